"""What train_step.py and kernels.py share: atomic writes, the environment record, feature checks.

Imported by the two scripts only (they set sys.dont_write_bytecode first, so no __pycache__
lands in the source tree). Works with torch 1.13 (this machine's CPU tests) up to torch 2.x.
"""
import datetime
import json
import os
import platform
import statistics
import sys

import torch


def write_atomic(path, text):
    """Writes text to path through a temporary file and os.replace: a kill leaves the old file
    or the new one, never half of one."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_json_atomic(path, value):
    write_atomic(path, json.dumps(value, indent=1, default=str) + "\n")


def log(*parts):
    # The device run is killed at its time limit: every line must be out before that.
    print(*parts, flush=True)


def median(values):
    return statistics.median(values) if values else None


def torch_version_at_least(major, minor):
    """True when torch's version is major.minor or later (local suffixes like +cu130 ignored)."""
    try:
        parts = torch.__version__.split("+")[0].split(".")
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (ValueError, IndexError):
        return False


def has_sdpa():
    return hasattr(torch.nn.functional, "scaled_dot_product_attention")


def sdpa_has_enable_gqa():
    # enable_gqa arrived in torch 2.5; SDPA is a builtin, so its signature cannot be inspected.
    return has_sdpa() and torch_version_at_least(2, 5)


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(device, extra=None):
    """The versions and the device a measurement ran on (a dict for the JSON outputs)."""
    env = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "torch": torch.__version__,
        "cuda": getattr(torch.version, "cuda", None),
        "cudnn": None,
        "device": str(device),
        "device_name": cpu_name(),
        "torch_threads": torch.get_num_threads(),
        "sdpa": has_sdpa(),
    }
    try:
        env["cudnn"] = torch.backends.cudnn.version()
    except Exception:  # noqa: BLE001 - a missing cuDNN is a fact to record, not a failure
        env["cudnn"] = None
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env["device_name"] = props.name
        env["device_capability"] = f"{props.major}.{props.minor}"
        env["device_memory_bytes"] = props.total_memory
        env["device_sms"] = props.multi_processor_count
        env["device_l2_bytes"] = getattr(props, "L2_cache_size", None)
    if extra:
        env.update(extra)
    return env


def open_device(name, tool):
    """torch.device(name), or None (logged) when it is CUDA and no GPU is usable."""
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        log(f"{tool}: --device cuda, but torch.cuda.is_available() is false")
        return None
    return device
