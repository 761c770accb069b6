#!/usr/bin/env bash
# ctest pytorch.scripts_cpu: calibrate/pytorch/'s scripts on the CPU in a tiny size, the same
# code path as the GPU run (issue 24), so that a device session cannot fail on a typo.
#   test_pytorch_scripts.sh [OUT_DIR]   (default: a temporary folder, removed afterwards)
# Exit 77 (ctest: skipped) when no Python here has torch and yaml (scripts/install-deps
# installs Debian's python3-torch and python3-yaml for /usr/bin/python3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scripts="$root/calibrate/pytorch"

python=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import torch, yaml" 2>/dev/null; then
    python="$candidate"
    break
  fi
done
if [[ -z "$python" ]]; then
  echo "skipped: no Python with torch and yaml (tried /usr/bin/python3, python3)"
  exit 77
fi

if [[ $# -ge 1 ]]; then
  out="$1"
  rm -rf "$out"
  mkdir -p "$out"
else
  out="$(mktemp -d /tmp/test-pytorch-scripts.XXXXXX)"
  trap 'rm -rf "$out"' EXIT
fi
echo "python: $python ($("$python" -c 'import torch; print("torch", torch.__version__)'))"

# 1. train_step.py on the four ground-truth scenarios: four ok entries, gzip traces.
"$python" "$scripts/train_step.py" "$root"/scenarios/h100-ground-truth/*.yaml --out "$out/steps" \
  --device cpu --tiny --warmup 1 --steps 2 --profile-steps 1
"$python" - "$out/steps" <<'PY'
import gzip, json, os, sys
out = sys.argv[1]
doc = json.load(open(os.path.join(out, "steps.json")))
entries = doc["scenarios"]
assert doc["schema"] == "trainsim-pytorch-steps/1", doc["schema"]
assert doc["environment"]["torch"], "no torch version recorded"
assert len(entries) == 4, f"{len(entries)} entries, expected 4"
for e in entries:
    assert e["status"] == "ok", f"{e['name']}: {e['error']}"
    assert e["median_wall_s"] > 0, e["name"]
    assert len(e["step_times_wall_s"]) == 2, e["name"]
    assert e["parameters"] > 0 and e["model_flops_per_step"] > 0, e["name"]
    for key in ("implementation", "attention_implementation", "optimizer", "autocast_dtype"):
        assert e[key], f"{e['name']}: no {key}"
    with gzip.open(os.path.join(out, e["trace"])) as f:
        trace = json.load(f)
    assert trace["traceEvents"], f"{e['name']}: empty trace"
    steps = [v for v in trace["traceEvents"] if str(v.get("name", "")).startswith("ProfilerStep#")]
    assert steps, f"{e['name']}: no ProfilerStep#N span (validate-run --kineto reads them)"
    assert not os.path.exists(os.path.join(out, e["name"], "trace.json")), "uncompressed trace left"
families = sorted(e["family"] for e in entries)
assert families == ["gpt2", "llama", "llama", "llama"], families
print(f"steps.json: {len(entries)} ok, medians "
      + ", ".join(f"{e['median_wall_s'] * 1e3:.1f} ms" for e in entries))
PY

# 2. Refusals: a two-GPU scenario and gradient accumulation are errors naming the field, and
#    the next scenario still runs; the exit status says something failed.
sed 's/^gpus: 1$/gpus: 2/' "$root/scenarios/h100-ground-truth/gpt2-h1024-l4-mb4.yaml" >"$out/two-gpus.yaml"
sed 's/^  global_batch: 4$/  global_batch: 8/' "$root/scenarios/h100-ground-truth/gpt2-h1024-l4-mb4.yaml" \
  >"$out/accumulation.yaml"
grep -q '^gpus: 2$' "$out/two-gpus.yaml" && grep -q '^  global_batch: 8$' "$out/accumulation.yaml"
status=0
"$python" "$scripts/train_step.py" "$out/two-gpus.yaml" "$out/accumulation.yaml" \
  "$root/scenarios/h100-ground-truth/llama-h4096-l2-mb1.yaml" --out "$out/refused" \
  --device cpu --tiny --warmup 0 --steps 1 --profile-steps 0 || status=$?
((status != 0)) || { echo "FAIL: train_step.py exited 0 with refused scenarios"; exit 1; }
"$python" - "$out/refused/steps.json" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))["scenarios"]
assert [e["status"] for e in entries] == ["error", "error", "ok"], [e["status"] for e in entries]
assert "two-gpus.yaml: gpus: 2" in entries[0]["error"], entries[0]["error"]
assert "training.global_batch: 8" in entries[1]["error"], entries[1]["error"]
print("refused:", entries[0]["error"], "/", entries[1]["error"])
PY

# 3. kernels.py: every kernel family has rows, ok rows have positive times.
"$python" "$scripts/kernels.py" --device cpu --tiny --out "$out/kernels.csv" --budget-s 60
"$python" - "$out/kernels.csv" <<'PY'
import csv, json, sys
path = sys.argv[1]
rows = list(csv.DictReader(open(path)))
assert rows, "no rows"
assert list(rows[0]) == ["kernel", "variant", "dtype", "shape", "time_s", "repetitions", "flops",
                         "bytes", "status"], list(rows[0])
families = {"mm", "attention", "layer_norm", "rms_norm", "softmax", "cross_entropy", "adamw"}
ok = [r for r in rows if r["status"] == "ok"]
for r in ok:
    assert float(r["time_s"]) > 0 and int(r["repetitions"]) > 0, r
    assert "," not in r["shape"], r
missing = families - {r["kernel"] for r in ok}
assert not missing, f"no ok rows of {sorted(missing)}"
meta = json.load(open(path[:-len(".csv")] + ".json"))
assert meta["rows"] == len(rows) and not meta["budget_spent"], meta
print(f"kernels.csv: {len(rows)} rows, {len(ok)} ok, families {sorted(families)}")
PY
# 4. kernels_raw.py: kernels.py's mm rows as gemm rows (NT, 2mnk) and its attention rows (the
#    explicit form: every torch has it), both passes per shape, the simulator's causal FLOP
#    count; a backend without attention rows gives the gemm rows alone, with a warning.
"$python" "$scripts/kernels_raw.py" "$out/kernels.csv" --backend explicit --out "$out/raw-kernels.csv"
"$python" - "$out/raw-kernels.csv" <<'PY'
import csv, sys
all_rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
gemms = [r for r in all_rows if r["benchmark"] == "gemm"]
assert gemms, all_rows
for g in gemms:
    assert g["algorithm"] == "torch.mm:NT" and g["dtype"] == "bf16", g
    assert int(g["flops"]) == 2 * int(g["m"]) * int(g["n"]) * int(g["k"]), g
rows = [r for r in all_rows if r["benchmark"] != "gemm"]
assert rows and len(rows) % 2 == 0, rows
for forward, backward in zip(rows[::2], rows[1::2]):
    assert forward["benchmark"] == "attention" and backward["benchmark"] == "attention_backward"
    s, d, batch = int(forward["m"]), int(forward["k"]), int(forward["batch"])
    assert int(forward["flops"]) == 2 * batch * d * s * (s + 1), forward
    assert int(backward["flops"]) == int(2.5 * int(forward["flops"])), backward
    assert float(forward["time_s"]) > 0 and float(backward["time_s"]) > 0
    assert forward["verified"] == "no"
print(f"raw-kernels.csv: {len(gemms)} gemm rows, {len(rows)} attention rows")
PY
# A backend without attention rows: the gemm rows alone, and a warning naming the backend.
"$python" "$scripts/kernels_raw.py" "$out/kernels.csv" --backend nosuch --out "$out/gemms-only.csv" \
  2>"$out/nosuch.err"
grep -q "no nosuch attention rows" "$out/nosuch.err" || { echo "FAIL: no warning"; exit 1; }
if grep -q "^attention" "$out/gemms-only.csv" || ! grep -q "^gemm," "$out/gemms-only.csv"; then
  echo "FAIL: kernels_raw.py --backend nosuch"; exit 1
fi
# 5. gemms.py: calibrator GEMM rows replayed through torch.mm, every layout and dtype the CPU
#    has, in the calibrator's CSV (environment lines kept, library replaced, verified no); a
#    batched row is left out.
cat >"$out/raw-gemm.csv" <<'CSV'
# gpu: test
# cublas: 130100
# date: 2026-11-27T00:00:00Z
benchmark,dtype,m,n,k,batch,bytes,group_size,tier,algorithm,time_s,repetitions,flops,bytes_moved,verified
gemm,fp32,64,32,48,1,,,,shape:NN,1e-5,10,196608,,yes
gemm,fp32,64,32,48,1,,,,shape:NT,1e-5,10,196608,,yes
gemm,fp32,64,32,48,1,,,,shape:TN,1e-5,10,196608,,yes
gemm,bf16,64,32,48,1,,,,cublas-default:NN,1e-5,10,196608,,yes
gemm,bf16,8,8,8,2,,,,shape:NN,1e-6,10,2048,,yes
CSV
"$python" "$scripts/gemms.py" "$out/raw-gemm.csv" --device cpu --out "$out/raw-torch-gemm.csv"
"$python" - "$out/raw-torch-gemm.csv" <<'PY'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
assert "# gpu: test" in lines and not any(l.startswith("# cublas") for l in lines), lines
assert any(l.startswith("# library: torch") for l in lines), lines
rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
assert [r["algorithm"] for r in rows][:3] == ["torch.mm:NN", "torch.mm:NT", "torch.mm:TN"], rows
assert all(r["verified"] == "no" and float(r["time_s"]) > 0 for r in rows), rows
assert len(rows) == 4 and all(r["batch"] == "1" for r in rows), rows  # batch 2: left out
print(f"raw-torch-gemm.csv: {len(rows)} rows")
PY
# --impl auto with a transformers whose API is not what the script assumes (the GPU machine's
# version is untestable here): the entry records the failure and the native model is measured.
mkdir -p "$out/fake/transformers"
cat >"$out/fake/transformers/__init__.py" <<'PY'
__version__ = "0+broken"
class _Broken:
    def __init__(self, *args, **kwargs):
        raise TypeError("this transformers has another API")
GPT2Config = LlamaConfig = GPT2LMHeadModel = LlamaForCausalLM = _Broken
PY
PYTHONPATH="$out/fake" "$python" "$scripts/train_step.py" --device cpu --tiny --warmup 1 --steps 1 \
  --profile-steps 0 --out "$out/fallback" "$root/scenarios/h100-ground-truth/gpt2-h1024-l4-mb4.yaml"
"$python" - "$out/fallback/steps.json" <<'PY'
import json, sys
[e] = json.load(open(sys.argv[1]))["scenarios"]
assert e["status"] == "ok" and e["implementation"].startswith("native"), e
assert "another API" in e["transformers_error"], e
print("fallback to the native model: ok")
PY
echo "pytorch scripts ok"
