#!/usr/bin/env python3
"""The calibrator's GEMM rows again, timed through PyTorch (torch.mm: cuBLASLt with a workspace,
as frameworks call it), written as raw rows that `trainsim fit` reads.

    gemms.py RAW_GEMM.csv --out FILE.csv [--device cuda|cpu] [--budget-s S]

RAW_GEMM.csv is what `trainsim-calibrate --suite gemm` wrote: every gemm row (dtype, m, n, k,
batch 1, the layout in its algorithm's ":XY" suffix, X for A and Y for B, T transposed) is timed
again with torch.mm on the same layout, row-major as trainsim's matmul: C[m, n] = op(A) op(B),
A stored k x m when transposed; rows with batch > 1 are left out (logged). tf32 rows run fp32 tensors with TF32 matmuls allowed, fp32 rows
with them forbidden. Out: the input's environment lines (date, library and algorithm replaced),
the calibrator's header, one row per timed input row in input order (algorithm "torch.mm:XY";
rows that raised or were not reached are logged and left out, as a raw row needs its time).
Rows say verified "no": the script times PyTorch's result without checking it against a
reference, so `trainsim fit` takes them only with --include-unverified. Timing as kernels.py's (CUDA events, inputs rotated over 2x L2).
"""
import time

START = time.perf_counter()

import argparse  # noqa: E402
import contextlib  # noqa: E402
import csv  # noqa: E402
import datetime  # noqa: E402
import io  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

sys.dont_write_bytecode = True

import torch  # noqa: E402

import common  # noqa: E402
import kernels  # noqa: E402
from common import log  # noqa: E402

TORCH_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32,
                "fp32": torch.float32}
ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "tf32": 4, "fp32": 4}


def read_rows(path):
    """(environment lines, header columns, gemm rows as dicts) of a calibrator CSV."""
    environment, body = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            (environment if line.startswith("#") else body).append(line)
    reader = csv.DictReader(body)
    rows = [r for r in reader if r.get("benchmark") == "gemm"]
    return environment, reader.fieldnames, rows


def layout(row):
    suffix = row["algorithm"].rsplit(":", 1)[-1]
    if len(suffix) != 2 or any(c not in "NT" for c in suffix):
        raise ValueError(f"algorithm '{row['algorithm']}': expected a ':XY' layout of N and T")
    return suffix[0] == "T", suffix[1] == "T"


@contextlib.contextmanager
def tf32(allowed):
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = allowed
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before


def case_of(row, device):
    dtype = row["dtype"]
    m, n, k = int(row["m"]), int(row["n"]), int(row["k"])
    ta, tb = layout(row)
    t = TORCH_DTYPES[dtype]

    def make():
        a = kernels.randn((k, m) if ta else (m, k), t, device)
        b = kernels.randn((n, k) if tb else (k, n), t, device)
        a = a.t() if ta else a
        b = b.t() if tb else b
        return lambda: torch.mm(a, b)
    moved = ELEMENT_BYTES[dtype] * (m * k + k * n + m * n)
    return kernels.Case("gemm", row["algorithm"], dtype, {"m": m, "n": n, "k": k},
                        2 * m * n * k, moved, make,
                        context=lambda: tf32(dtype == "tf32"))


def output_environment(environment, env):
    replaced = {"date", "library", "algorithm", "cublas"}
    kept = [line for line in environment
            if line[1:].strip().split(":", 1)[0].strip() not in replaced]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return kept + [f"# date: {now}\n",
                   f"# library: torch {env['torch']} (CUDA {env['cuda']}), torch.mm\n"]


def csv_text(environment, columns, rows):
    buf = io.StringIO()
    buf.writelines(environment)
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("raw", help="the calibrator's GEMM CSV")
    p.add_argument("--out", required=True)
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--budget-s", type=float, default=120.0,
                   help="stop timing rows after this many seconds since the start")
    args = p.parse_args(argv)
    device = common.open_device(args.device, "gemms")
    if device is None:
        return 2
    environment, columns, inputs = read_rows(args.raw)
    if not inputs:
        log(f"gemms: {args.raw}: no gemm rows")
        return 1
    torch.manual_seed(0)
    env = common.environment(device)
    environment = output_environment(environment, env)
    cuda = device.type == "cuda"
    timing = kernels.Timing(10, 0.02, 1.0) if cuda else kernels.Timing(2, 0.0, 1.0, warmup=1)
    l2 = (env.get("device_l2_bytes") or 50 * 2 ** 20) if cuda else 0
    out_rows, failed, batched, reached = [], 0, 0, 0
    common.write_atomic(args.out, csv_text(environment, columns, out_rows))
    for row in inputs:
        if time.perf_counter() - START > args.budget_s:
            break
        reached += 1
        if row.get("batch") not in ("", "1", None):
            batched += 1  # one torch.mm would carry the batch's FLOPs: left out, said so
            log(f"  {row['dtype']} {row['m']}x{row['n']}x{row['k']} batch {row['batch']}: "
                "left out (gemms.py times one GEMM; batched rows need torch.bmm)")
            continue
        try:
            measured = kernels.measure(case_of(row, device), device, timing, l2)
        except (ValueError, KeyError) as e:
            measured = {"status": f"{type(e).__name__}: {e}"}
        kernels.free_memory(device)
        if measured["status"] != "ok":
            failed += 1
            log(f"  {row['dtype']} {row['m']}x{row['n']}x{row['k']} {row['algorithm']}: "
                f"{measured['status']}")
            continue
        result = dict(row)
        result["algorithm"] = "torch.mm:" + row["algorithm"].rsplit(":", 1)[-1]
        result["time_s"] = f"{float(measured['time_s']):.9e}"
        result["repetitions"] = str(measured["repetitions"])
        result["verified"] = "no"  # timed, not checked against a reference
        out_rows.append(result)
        if len(out_rows) % 20 == 0:
            common.write_atomic(args.out, csv_text(environment, columns, out_rows))
    common.write_atomic(args.out, csv_text(environment, columns, out_rows))
    log(f"gemms: {len(out_rows)} of {len(inputs)} rows timed ({failed} failed, {batched} batched "
        f"left out, {len(inputs) - reached} not reached) in {time.perf_counter() - START:.1f} s "
        f"-> {args.out}")
    return 0 if out_rows else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
