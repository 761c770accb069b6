#!/usr/bin/env python3
"""PyTorch microbenchmarks at the shapes of trainsim's ground-truth scenarios.

    kernels.py --out FILE.csv [--device cuda|cpu] [--tiny] [--budget-s S]

Causal attention through F.scaled_dot_product_attention per backend (and the explicit softmax
form), layer_norm and rms_norm, softmax and cross_entropy over fp32 logits, AdamW's step,
torch.mm in bf16 and FP8 (torch._scaled_mm), and a MoE layer's expert GEMMs (torch._grouped_mm
beside a loop of torch.mm per expert). One table of cases, one driver (warm-up, timing, output); the CSV is
rewritten atomically after every group, FILE.json beside it holds the environment. A case
that raises becomes a row with the error as its status; --budget-s (default 90, counted from
the start of the process) stops adding rows when spent. README.md beside this file has the
columns and the FLOP and byte counts.
"""
import time

START = time.perf_counter()  # the budget counts the imports too: they take seconds on a device

import argparse  # noqa: E402
import contextlib  # noqa: E402
import csv  # noqa: E402
import dataclasses  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from typing import Callable  # noqa: E402

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import common  # noqa: E402
from common import log  # noqa: E402

COLUMNS = ["kernel", "variant", "dtype", "shape", "time_s", "repetitions", "flops", "bytes",
           "status"]
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
ELEMENT_BYTES = {"bf16": 2, "fp32": 4}


@dataclasses.dataclass
class Case:
    """One row: what it measures, its counts, and make() -> the timed body (inputs allocated)."""
    kernel: str
    variant: str
    dtype: str
    shape: dict
    flops: int
    bytes: int
    make: Callable[[], Callable[[], object]]
    context: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext

    def shape_text(self):
        return ";".join(f"{k}={v}" for k, v in self.shape.items())


# --------------------------------------------------------------------------------------------
# Sizes: the ground-truth scenarios' (scenarios/h100-ground-truth/) first, then a sweep.

FULL = {
    # m x n x k of x[m,k] @ w[n,k]^T (a Linear's forward): the shapes, then the
    # scenarios' QKV, MLP and output layers.
    "mm": [(2048, 4096, 4096), (8192, 1024, 4096), (4096, 14336, 4096), (4096, 128256, 2048),
           (8192, 8192, 8192), (8192, 3072, 1024), (8192, 50304, 1024), (16384, 8192, 2048),
           (16384, 128256, 2048)],
    # (batch, heads, kv heads, seq, head dim) of the four scenarios.
    "attention_scenarios": [(4, 16, 16, 2048, 64), (2, 16, 8, 2048, 128), (8, 16, 8, 2048, 128),
                            (1, 32, 8, 2048, 128)],
    # the sweep: these head layouts at every sequence length, batch x seq = tokens.
    "attention_heads": [(16, 16, 64), (16, 8, 128), (32, 8, 128)],
    "attention_seqs": [1024, 2048, 4096, 8192],
    "attention_tokens": 8192,
    "explicit_max_seq": 2048,  # the explicit form holds b*h*s^2 scores: only up to here
    # (tokens, hidden): the scenarios' first, then the corners.
    "norms": [(8192, 1024), (4096, 2048), (16384, 2048), (2048, 4096), (2048, 1024),
              (16384, 4096)],
    # (tokens, vocab)
    "logits": [(8192, 50304), (4096, 128256), (16384, 128256), (2048, 128256), (16384, 50304)],
    "adamw": [10 ** 7, 10 ** 8],
    "adamw_tensors": 10,
    # (local experts, rows per expert, n, k) of a MoE layer's expert GEMMs: Qwen3-30B-A3B and
    # GPT-OSS-120B at EP 8 (16 local experts, 4096 balanced rows each: 8192 x top-8 and
    # 16384 x top-4 tokens), FC1 (gated) and FC2; then fewer rows per expert.
    "grouped": [(16, 4096, 1536, 2048), (16, 4096, 2048, 768), (16, 4096, 5760, 2880),
                (16, 4096, 2880, 2880), (16, 512, 1536, 2048), (16, 512, 2048, 768),
                (128, 128, 1536, 2048)],
}

TINY = {
    "mm": [(64, 128, 64), (128, 64, 96)],
    "attention_scenarios": [(2, 4, 4, 32, 16), (2, 4, 2, 32, 16)],
    "attention_heads": [(4, 2, 16)],
    "attention_seqs": [16, 64],
    "attention_tokens": 128,
    "explicit_max_seq": 64,
    "norms": [(64, 32), (64, 64)],
    "logits": [(64, 500), (32, 1000)],
    "adamw": [10 ** 4, 10 ** 5],
    "adamw_tensors": 4,
    "grouped": [(2, 32, 48, 64)],
}


def randn(shape, dtype, device, grad=False):
    return torch.randn(shape, dtype=dtype, device=device).requires_grad_(grad)


def forward_or_backward(fn, inputs, pass_name):
    """The body for a pass: forward re-runs fn (building the graph, as training does);
    backward runs fn once and then times autograd.grad over the kept graph."""
    if pass_name == "forward":
        return fn
    out = fn()
    grad_out = torch.randn_like(out) if out.dim() else torch.ones_like(out)
    return lambda: torch.autograd.grad(out, inputs, grad_out, retain_graph=True)


# --- torch.mm ---------------------------------------------------------------------------------

def mm_cases(sizes, device):
    for m, n, k in sizes["mm"]:
        def make(m=m, n=n, k=k):
            x = randn((m, k), torch.bfloat16, device)
            w = randn((n, k), torch.bfloat16, device)
            return lambda: torch.mm(x, w.t())
        yield Case("mm", "x@w.T", "bf16", {"m": m, "n": n, "k": k}, 2 * m * n * k,
                   2 * (m * k + n * k + m * n), make)


def fp8_mm_cases(sizes, device):
    """torch._scaled_mm in FP8 E4M3 with per-tensor scales and a bf16 output, as Transformer
    Engine's tensorwise recipe runs a Linear (the casts and amax are not in the time)."""
    for m, n, k in sizes["mm"]:
        def make(m=m, n=n, k=k):
            e4m3 = torch.float8_e4m3fn
            x = randn((m, k), torch.bfloat16, device).to(e4m3)
            w = randn((n, k), torch.bfloat16, device).to(e4m3)
            one = torch.ones((), device=device)
            return lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16)
        yield Case("mm", "fp8_e4m3 x@w.T", "fp8", {"m": m, "n": n, "k": k}, 2 * m * n * k,
                   m * k + n * k + 2 * m * n, make)


def grouped_cases(sizes, device):
    """A MoE layer's local experts: torch._grouped_mm over the experts' row blocks (one kernel,
    as Megatron-Core's GroupedMLP / TE's GroupedLinear), and a loop of torch.mm per expert (as
    Megatron's SequentialMLP), bf16."""
    for experts, rows, n, k in sizes["grouped"]:
        shape = {"experts": experts, "m": rows, "n": n, "k": k}
        flops = 2 * experts * rows * n * k
        moved = 2 * experts * (rows * k + n * k + rows * n)

        def make_grouped(experts=experts, rows=rows, n=n, k=k):
            x = randn((experts * rows, k), torch.bfloat16, device)
            w = randn((experts, n, k), torch.bfloat16, device)  # each expert's weight as a Linear's
            offs = torch.arange(1, experts + 1, device=device, dtype=torch.int32) * rows
            return lambda: torch._grouped_mm(x, w.transpose(-2, -1), offs=offs,
                                             out_dtype=torch.bfloat16)

        def make_loop(experts=experts, rows=rows, n=n, k=k):
            x = randn((experts * rows, k), torch.bfloat16, device)
            w = randn((experts, n, k), torch.bfloat16, device)
            out = torch.empty((experts * rows, n), dtype=torch.bfloat16, device=device)

            def body():
                for e in range(experts):
                    torch.mm(x[e * rows:(e + 1) * rows], w[e].t(),
                             out=out[e * rows:(e + 1) * rows])
            return body
        yield Case("grouped_mm", "torch._grouped_mm", "bf16", shape, flops, moved, make_grouped)
        yield Case("grouped_mm", "mm per expert", "bf16", shape, flops, moved, make_loop)


# --- attention --------------------------------------------------------------------------------

def attention_backends(device):
    """(name, context factory or an error text) for each way to run the attention core."""
    backends = [("default", contextlib.nullcontext)]
    if not common.has_sdpa():
        return backends
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: PLC0415 - torch >= 2.3
    except ImportError:
        missing = f"torch {torch.__version__} has no torch.nn.attention.sdpa_kernel"
        return backends + [(name, missing) for name in ("flash", "cudnn", "efficient")]
    names = (("flash", "FLASH_ATTENTION"), ("cudnn", "CUDNN_ATTENTION"),
             ("efficient", "EFFICIENT_ATTENTION"))
    if device.type != "cuda":
        names = (("math", "MATH"),)
    for name, attr in names:
        backend = getattr(SDPBackend, attr, None)
        if backend is None:
            backends.append((name, f"SDPBackend has no {attr} in torch {torch.__version__}"))
        else:
            backends.append((name, lambda b=backend: sdpa_kernel(b)))
    return backends


def causal_mask(s, device):
    return torch.full((s, s), torch.finfo(torch.float32).min, device=device).triu(1)


def explicit_attention(q, k, v, mask):
    """transformers' eager attention (the model's `attention: standard`): scores, the additive
    causal mask (made once, as the model does), fp32 softmax, P.V; GQA by repeating the
    key/value heads."""
    times = q.shape[1] // k.shape[1]
    if times > 1:
        b, g, s, d = k.shape
        k = k[:, :, None].expand(b, g, times, s, d).reshape(b, g * times, s, d)
        v = v[:, :, None].expand(b, g, times, s, d).reshape(b, g * times, s, d)
    w = torch.matmul(q, k.transpose(2, 3)) * q.shape[-1] ** -0.5 + mask
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.matmul(w, v)


def attention_counts(b, h, kv, s, d, pass_name):
    """Causal FLOPs (FlashAttention's convention: forward 4bhs^2d / 2, backward 2.5x forward)
    and the minimal HBM bytes (bf16 q, k, v, o; backward also reads o, dO, writes dq, dk, dv)."""
    fwd_flops = 2 * b * h * s * s * d
    fwd_bytes = 2 * b * s * d * (2 * h + 2 * kv)
    if pass_name == "forward":
        return fwd_flops, fwd_bytes
    return int(3.5 * fwd_flops), fwd_bytes + 2 * b * s * d * ((3 * h + 2 * kv) + (h + 2 * kv))


def attention_case(b, h, kv, s, d, backend, context, pass_name, device):
    native_gqa = common.sdpa_has_enable_gqa()
    kv_stored = kv if (kv == h or native_gqa or backend == "explicit") else h
    shape = {"b": b, "h": h, "kv": kv, "s": s, "d": d}
    if kv != h:
        shape["gqa"] = ("repeat_kv" if backend == "explicit" else
                        "enable_gqa" if native_gqa else "expanded")
    # The FLOPs do not depend on the key/value heads; the bytes count those stored.
    flops, nbytes = attention_counts(b, h, kv_stored, s, d, pass_name)

    def make():
        if isinstance(context, str):
            raise RuntimeError(context)
        if backend != "explicit" and not common.has_sdpa():
            raise RuntimeError(f"torch {torch.__version__} has no F.scaled_dot_product_attention")
        q = randn((b, h, s, d), torch.bfloat16, device, grad=True)
        k = randn((b, kv_stored, s, d), torch.bfloat16, device, grad=True)
        v = randn((b, kv_stored, s, d), torch.bfloat16, device, grad=True)
        if backend == "explicit":
            mask = causal_mask(s, device)
            fn = lambda: explicit_attention(q, k, v, mask)  # noqa: E731
        else:
            extra = {"enable_gqa": True} if kv_stored != h else {}
            def fn():
                return F.scaled_dot_product_attention(q, k, v, is_causal=True, **extra)
        if pass_name == "forward":
            return fn
        grad_out = torch.randn_like(q)
        return lambda: torch.autograd.grad(fn(), (q, k, v), grad_out)

    ctx = context if callable(context) else contextlib.nullcontext
    return Case("attention", f"{backend}:{pass_name}", "bf16", shape, flops, nbytes, make, ctx)


def attention_cases(layouts, sizes, device):
    backends = attention_backends(device)
    for b, h, kv, s, d in layouts:
        variants = list(backends)
        if s <= sizes["explicit_max_seq"]:
            variants.append(("explicit", contextlib.nullcontext))
        for backend, context in variants:
            for pass_name in ("forward", "forward+backward"):
                yield attention_case(b, h, kv, s, d, backend, context, pass_name, device)


def attention_sweep(sizes):
    exact = set(sizes["attention_scenarios"])
    for h, kv, d in sizes["attention_heads"]:
        for s in sizes["attention_seqs"]:
            layout = (max(1, sizes["attention_tokens"] // s), h, kv, s, d)
            if layout not in exact:
                yield layout


# --- norms ------------------------------------------------------------------------------------

def hf_rms_norm(x, weight, eps):
    """transformers' LlamaRMSNorm: statistics in fp32, the gain applied in the input dtype."""
    dtype = x.dtype
    x = x.to(torch.float32)
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return weight * x.to(dtype)


def norm_cases(sizes, device):
    """layer_norm and rms_norm (F.rms_norm, and the formula transformers' Llama runs) in bf16 and
    fp32 (under autocast the model's layer_norm runs in fp32). Bytes: read x, write y forward;
    read x and dy, write dx backward (gains, biases and row statistics left out)."""
    impls = [("layer_norm", "", True), ("rms_norm", "F.rms_norm:", False),
             ("rms_norm", "hf:", False)]
    for t, h in sizes["norms"]:
        for dtype in ("bf16", "fp32"):
            for kernel, prefix, has_bias in impls:
                for pass_name in ("forward", "backward"):
                    def make(t=t, h=h, dtype=dtype, prefix=prefix, has_bias=has_bias,
                             pass_name=pass_name):
                        dt = DTYPES[dtype]
                        x = randn((t, h), dt, device, grad=True)
                        w = randn((h,), dt, device, grad=True)
                        if has_bias:
                            bias = randn((h,), dt, device, grad=True)
                            return forward_or_backward(
                                lambda: F.layer_norm(x, (h,), w, bias, 1e-5), (x, w, bias),
                                pass_name)
                        if prefix == "hf:":
                            fn = lambda: hf_rms_norm(x, w, 1e-5)  # noqa: E731
                        elif hasattr(F, "rms_norm"):
                            fn = lambda: F.rms_norm(x, (h,), w, 1e-5)  # noqa: E731
                        else:
                            raise RuntimeError(f"torch {torch.__version__} has no F.rms_norm")
                        return forward_or_backward(fn, (x, w), pass_name)
                    e = ELEMENT_BYTES[dtype]
                    nbytes = (2 if pass_name == "forward" else 3) * t * h * e
                    yield Case(kernel, prefix + pass_name, dtype, {"t": t, "h": h}, 0, nbytes, make)


# --- softmax and cross-entropy ---------------------------------------------------------------

def logits_cases(sizes, device):
    """Over fp32 logits [tokens, vocab] (transformers' loss upcasts them). Bytes: softmax reads
    x, writes y (backward: reads y, dy, writes dx); cross_entropy reads the logits once (backward:
    reads them, writes their gradient); the int64 targets left out."""
    for t, v in sizes["logits"]:
        for kernel in ("softmax", "cross_entropy"):
            for pass_name in ("forward", "backward"):
                def make(t=t, v=v, kernel=kernel, pass_name=pass_name):
                    x = randn((t, v), torch.float32, device, grad=True)
                    if kernel == "softmax":
                        fn = lambda: F.softmax(x, dim=-1)  # noqa: E731
                    else:
                        target = torch.randint(0, v, (t,), device=device)
                        fn = lambda: F.cross_entropy(x, target)  # noqa: E731
                    return forward_or_backward(fn, (x,), pass_name)
                per = {("softmax", "forward"): 2, ("softmax", "backward"): 3,
                       ("cross_entropy", "forward"): 1, ("cross_entropy", "backward"): 2}
                yield Case(kernel, pass_name, "fp32", {"t": t, "v": v}, 0,
                           per[(kernel, pass_name)] * t * v * 4, make)


# --- AdamW ------------------------------------------------------------------------------------

def adamw_cases(sizes, device):
    """AdamW's step over n fp32 parameters in equal tensors. Bytes 28 per parameter: read
    parameter, gradient and both moments, write parameter and both moments (4 bytes each)."""
    pieces = sizes["adamw_tensors"]
    for n in sizes["adamw"]:
        for kind in ("fused", "foreach"):
            def make(n=n, kind=kind):
                params = [torch.nn.Parameter(torch.randn(n // pieces, device=device))
                          for _ in range(pieces)]
                for p in params:
                    p.grad = torch.randn_like(p)
                opt = torch.optim.AdamW(params, lr=1e-4, **{kind: True})
                opt.step()  # creates the moments: the timed steps are steady-state ones
                return opt.step
            yield Case("adamw", kind, "fp32", {"n": n // pieces * pieces, "tensors": pieces}, 0,
                       28 * (n // pieces * pieces), make)


def groups(sizes, device):
    """(group name, cases) in order of value: a spent budget drops the last ones. Attention
    first (no other measurement of it; the profiles' figures are read off a chart), torch.mm
    late (trainsim-calibrate measures cuBLAS over the scenarios' shapes itself), then what
    trainsim-calibrate cannot time: FP8 GEMMs and a MoE layer's grouped expert GEMMs."""
    return [
        ("attention at the scenarios' shapes",
         list(attention_cases(sizes["attention_scenarios"], sizes, device))),
        ("norms", list(norm_cases(sizes, device))),
        ("softmax and cross_entropy", list(logits_cases(sizes, device))),
        ("adamw", list(adamw_cases(sizes, device))),
        ("attention sweep", list(attention_cases(list(attention_sweep(sizes)), sizes, device))),
        ("mm", list(mm_cases(sizes, device))),
        ("fp8 mm", list(fp8_mm_cases(sizes, device))),
        ("grouped mm", list(grouped_cases(sizes, device))),
    ]


# --------------------------------------------------------------------------------------------
# The driver.

@dataclasses.dataclass
class Timing:
    """CUDA: at least min_reps and min_time_s of timed work, at most max_wall_s per row."""
    min_reps: int
    min_time_s: float
    max_wall_s: float
    warmup: int = 3


def sleep_ahead(seconds):
    # The GPU spins while the host queues the repetitions behind it, so that the events time
    # the kernels back to back and not the host's launch gaps (2 GHz: an upper bound on H100's
    # clock, so the spin lasts at least `seconds`).
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(int(min(seconds, 0.2) * 2e9))
    return sleep is not None


def time_cuda(bodies, timing, cpu_launch_s, rep_s):
    times, i, started = [], 0, time.perf_counter()
    batch = max(timing.min_reps, min(500, math.ceil(timing.min_time_s / max(rep_s, 1e-6))))
    while True:
        sleep_ahead(batch * cpu_launch_s * 1.5 + 2e-3)
        pairs = []
        for _ in range(batch):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            bodies[i % len(bodies)]()
            end.record()
            pairs.append((start, end))
            i += 1
        torch.cuda.synchronize()
        times += [s.elapsed_time(e) / 1e3 for s, e in pairs]
        total = sum(times)
        if len(times) >= timing.min_reps and total >= timing.min_time_s:
            break
        if time.perf_counter() - started > timing.max_wall_s or len(times) >= 1000:
            break
        per = total / len(times)
        batch = max(1, min(500, math.ceil((timing.min_time_s - total) / max(per, 1e-7))))
    return common.median(times), len(times)


def time_cpu(bodies, timing):
    times, i, started = [], 0, time.perf_counter()
    while (len(times) < timing.min_reps or sum(times) < timing.min_time_s) and \
            time.perf_counter() - started < timing.max_wall_s:
        t0 = time.perf_counter()
        bodies[i % len(bodies)]()
        times.append(time.perf_counter() - t0)
        i += 1
    return common.median(times), len(times)


def copies_for_l2(case, device, l2_bytes):
    """Inputs rotated over at least twice the L2 (style §13), so that small cases are not
    timed from cache: the number of copies of the case's inputs (at most 8)."""
    if device.type != "cuda" or case.bytes <= 0:
        return 1
    return max(1, min(8, math.ceil(2 * l2_bytes / case.bytes)))


def measure(case, device, timing, l2_bytes):
    row = {"kernel": case.kernel, "variant": case.variant, "dtype": case.dtype,
           "shape": case.shape_text(), "time_s": "", "repetitions": 0, "flops": case.flops,
           "bytes": case.bytes, "status": "ok"}
    bodies = []
    caught = []
    try:
        # SDPA says why a backend refused a shape in warnings, then raises "No available
        # kernel": the warnings go into the row's status, not onto the console.
        with warnings.catch_warnings(record=True) as caught, case.context():
            warnings.simplefilter("always")
            bodies = [case.make() for _ in range(copies_for_l2(case, device, l2_bytes))]
            cpu_launch_s, rep_s = 0.0, 0.0
            for w in range(timing.warmup):
                common.synchronize(device)
                t0 = time.perf_counter()
                bodies[w % len(bodies)]()
                cpu_launch_s = time.perf_counter() - t0
                common.synchronize(device)
                rep_s = time.perf_counter() - t0
            if device.type == "cuda":
                seconds, reps = time_cuda(bodies, timing, cpu_launch_s, rep_s)
            else:
                seconds, reps = time_cpu(bodies, timing)
        row["time_s"], row["repetitions"] = f"{seconds:.9g}", reps
    except Exception as e:  # noqa: BLE001 - a backend that cannot run this shape is a result
        reasons = dict.fromkeys(str(w.message) for w in caught)  # distinct, in order
        text = " | ".join([f"{type(e).__name__}: {e}"] + list(reasons))
        row["status"] = " ".join(text.split()).replace(",", ";")[:500]
    finally:
        bodies.clear()
    return row


def csv_text(rows):
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def free_memory(device):
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="the CSV (FILE.json beside it: the environment)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--tiny", action="store_true", help="tiny shapes (the CPU test)")
    p.add_argument("--budget-s", type=float, default=90.0,
                   help="stop adding rows after this many seconds since the start (default 90)")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    device = common.open_device(args.device, "kernels")
    if device is None:
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    env_path = os.path.splitext(args.out)[0] + ".json"
    torch.manual_seed(0)
    sizes = TINY if args.tiny else FULL
    cuda = device.type == "cuda"
    # 20 ms of timed work per row (at least 20 repetitions, at most 1000 below): the budget
    # reaches every group on an H100, and a kernel of a few microseconds is still timed over
    # hundreds of back-to-back repetitions.
    timing = Timing(20, 0.02, 2.0) if cuda else Timing(3, 0.01, 1.0, warmup=1)
    env = common.environment(device)
    l2 = (env.get("device_l2_bytes") or 50 * 2 ** 20) if cuda else 0
    meta = {"schema": "trainsim-pytorch-kernels/1", "environment": env,
            "settings": {"device": args.device, "tiny": args.tiny, "budget_s": args.budget_s},
            "timing": ("CUDA events around every repetition, queued behind torch.cuda._sleep so "
                       "that they time the kernels back to back; warm-up 3; at least 20 "
                       "repetitions and 0.05 s of timed work (at most 3 s per row); inputs "
                       "rotated over 2x L2; median" if cuda else
                       "perf_counter per repetition; warm-up 1; at least 3 repetitions and "
                       "0.01 s (at most 1 s per row); median"),
            "groups_done": [], "rows": 0, "rows_not_run": 0, "budget_spent": False}
    rows = []
    common.write_json_atomic(env_path, meta)
    common.write_atomic(args.out, csv_text(rows))
    log(f"kernels: torch {torch.__version__} on {env['device_name']}, budget {args.budget_s:.0f} s "
        f"-> {args.out}")
    for name, cases in groups(sizes, device):
        t0 = time.perf_counter()
        ran = 0
        for case in cases:
            if time.perf_counter() - START > args.budget_s:
                meta["rows_not_run"] += 1
                continue
            rows.append(measure(case, device, timing, l2))
            ran += 1
            common.write_atomic(args.out, csv_text(rows))  # a time limit keeps every row
        free_memory(device)
        ok = sum(1 for r in rows[len(rows) - ran:] if r["status"] == "ok")
        log(f"  {name}: {ran} rows ({ok} ok) in {time.perf_counter() - t0:.1f} s")
        if ran == len(cases):
            meta["groups_done"].append(name)
        meta["rows"] = len(rows)
        common.write_json_atomic(env_path, meta)
    if meta["rows_not_run"]:
        meta["budget_spent"] = True
        log(f"kernels: the budget of {args.budget_s:.0f} s is spent: {meta['rows_not_run']} rows "
            "not run")
    meta["seconds"] = time.perf_counter() - START
    common.write_json_atomic(env_path, meta)
    log(f"kernels: {len(rows)} rows in {meta['seconds']:.1f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
