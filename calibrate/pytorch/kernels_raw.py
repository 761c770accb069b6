#!/usr/bin/env python3
"""kernels.py's rows that `trainsim fit` can use, as raw rows: attention and GEMMs.

    kernels_raw.py KERNELS.csv --out RAW.csv [--backend cudnn]

GEMMs: every ok `mm` row (bf16 torch.mm and FP8 torch._scaled_mm, both x @ w.T) as a `gemm` row
with layout NT (algorithm "torch.mm:NT" / "torch._scaled_mm:NT"), dtype bf16 or fp8, batch 1,
flops 2·m·n·k: the fit gets FP8's efficiency from them (the calibrator has no FP8 path).

Attention: for every shape with both a BACKEND:forward and a BACKEND:forward+backward row (ok):
an `attention` row (the forward's time) and an `attention_backward` row (forward+backward
minus forward), m = sequence, k = head dim, batch = b x query heads, flops the simulator's
causal count (2·batch·k·s·(s + 1), 2.5x for the backward; kernels.py's own column uses s² and
is not copied). Default backend cudnn: what Transformer Engine (and so Megatron-Core) and
PyTorch's SDPA run on Hopper. The environment lines come from KERNELS.json beside the CSV.
Rows say verified "no" (kernels.py checks no result): fit them with --include-unverified.
Needs no torch: it runs anywhere on a committed kernels.csv.
"""
import argparse
import csv
import io
import json
import os
import sys

sys.dont_write_bytecode = True

COLUMNS = ["benchmark", "dtype", "m", "n", "k", "batch", "bytes", "group_size", "tier",
           "algorithm", "time_s", "repetitions", "flops", "bytes_moved", "verified"]


def shape_of(text):
    return dict(part.split("=", 1) for part in text.split(";"))


def causal_flops(batch, head_dim, s):
    return 2 * batch * head_dim * s * (s + 1)


def environment_lines(kernels_json):
    if not os.path.exists(kernels_json):
        return []
    with open(kernels_json, encoding="utf-8") as f:
        env = json.load(f).get("environment", {})
    keys = {"gpu": "device_name", "date": "date_utc", "torch": "torch", "cuda_runtime": "cuda",
            "cudnn": "cudnn", "compute_capability": "device_capability"}
    lines = [f"# {key}: {env[name]}\n" for key, name in keys.items() if env.get(name) is not None]
    return lines + ["# library: torch.mm, torch._scaled_mm (FP8 E4M3, tensorwise scales), "
                    "torch.nn.functional.scaled_dot_product_attention with is_causal=True "
                    "(calibrate/pytorch/kernels.py, converted by kernels_raw.py)\n"]


def gemm_rows(rows):
    """kernels.py's ok mm rows (x @ w.T: B transposed) as raw gemm rows, in file order."""
    out = []
    for r in rows:
        if r["kernel"] != "mm" or r["status"] != "ok" or r["dtype"] not in ("bf16", "fp8"):
            continue
        shape = shape_of(r["shape"])
        m, n, k = (int(shape[x]) for x in ("m", "n", "k"))
        library = "torch._scaled_mm" if r["dtype"] == "fp8" else "torch.mm"
        out.append({"benchmark": "gemm", "dtype": r["dtype"], "m": m, "n": n, "k": k, "batch": 1,
                    "bytes": "", "group_size": "", "tier": "", "algorithm": f"{library}:NT",
                    "time_s": f"{float(r['time_s']):.9e}", "repetitions": r["repetitions"],
                    "flops": 2 * m * n * k, "bytes_moved": "", "verified": "no"})
    return out


def attention_rows(rows, backend):
    """Forward and backward rows per shape, in kernels.csv's order of shapes."""
    timed = {}
    order = []
    for r in rows:
        if r["kernel"] != "attention" or r["status"] != "ok":
            continue
        name, _, pass_name = r["variant"].partition(":")
        if name != backend:
            continue
        key = r["shape"]
        if key not in timed:
            order.append(key)
        timed.setdefault(key, {})[pass_name] = (float(r["time_s"]), int(r["repetitions"]),
                                                r["dtype"])
    out = []
    for key in order:
        passes = timed[key]
        if "forward" not in passes or "forward+backward" not in passes:
            continue
        shape = shape_of(key)
        b, h, s, d = (int(shape[x]) for x in ("b", "h", "s", "d"))
        forward, forward_reps, dtype = passes["forward"]
        both, both_reps, _ = passes["forward+backward"]
        if both <= forward:
            continue  # noise: no backward time to speak of
        batch = b * h
        flops = causal_flops(batch, d, s)
        common = {"dtype": dtype, "m": s, "n": "", "k": d, "batch": batch, "bytes": "",
                  "group_size": "", "tier": "", "bytes_moved": "", "verified": "no"}
        out.append({**common, "benchmark": "attention", "algorithm": f"{backend}:{key}",
                    "time_s": f"{forward:.9e}", "repetitions": forward_reps, "flops": flops})
        out.append({**common, "benchmark": "attention_backward", "algorithm": f"{backend}:{key}",
                    "time_s": f"{both - forward:.9e}",
                    "repetitions": min(forward_reps, both_reps), "flops": int(2.5 * flops)})
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kernels", help="kernels.py's CSV")
    p.add_argument("--out", required=True)
    p.add_argument("--backend", default="cudnn", help="the SDPA backend's attention rows")
    args = p.parse_args(argv)
    with open(args.kernels, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    attention = attention_rows(rows, args.backend)
    gemms = gemm_rows(rows)
    if not attention:
        print(f"kernels_raw: {args.kernels}: no {args.backend} attention rows with both passes; "
              "the gemm rows alone", file=sys.stderr)
    out = gemms + attention
    if not out:
        print(f"kernels_raw: {args.kernels}: nothing to convert", file=sys.stderr)
        return 1
    buf = io.StringIO()
    buf.writelines(environment_lines(os.path.splitext(args.kernels)[0] + ".json"))
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(out)
    tmp = f"{args.out}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(buf.getvalue())
    os.replace(tmp, args.out)
    print(f"kernels_raw: {len(gemms)} gemm rows, {len(attention)} attention rows "
          f"({args.backend}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
