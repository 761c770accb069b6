#!/usr/bin/env bash
# ctest device.bundle: scripts/device-bundle from this build, then what can be checked without
# a GPU (issue 24 part A): the bundle's trainsim simulates from a clean environment with only
# the bundle's library path, and run-on-gpu's environment step runs and, without a GPU, exits 77
# saying so (with a GPU: 0) having written trainsim's predictions of the ground-truth scenarios.
#   check_bundle.sh BUILD_DIR OUT_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$1"
out="$2"
rm -rf "$out"
mkdir -p "$out"
"$root/scripts/device-bundle" "$out/bundle" --no-build --build-dir "$build"
bundle="$out/bundle"
size="$(du -sb "$bundle" | cut -f1)"
((size < 64 * 1024 * 1024)) || { echo "FAIL: the bundle is $size bytes"; exit 1; }
for f in bin/trainsim bin/trainsim-calibrate bin/trainsim-gpu-info bin/test_cuda_backend \
         run-on-gpu MANIFEST calibrate/pytorch/train_step.py calibrate/pytorch/kernels.py \
         hwprofiles/dgx-h100.yaml scenarios/h100-ground-truth/llama-h4096-l2-mb1.yaml; do
  [[ -e "$bundle/$f" ]] || { echo "FAIL: the bundle lacks $f"; exit 1; }
done
! ls "$bundle"/lib | grep -E '^lib(c|m|cuda|cublas|cublasLt|nccl)\.so' ||
  { echo "FAIL: the bundle carries a library the machine provides"; exit 1; }

# The bundle's trainsim, its own library path only (cuBLAS and NCCL by the binary's RUNPATH
# here; run-on-gpu adds the machine's on the device).
env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$bundle/lib" TRAINSIM_ROOT="$bundle" \
  "$bundle/bin/trainsim" simulate "$bundle/scenarios/h100-ground-truth/llama-h2048-l4-mb2.yaml" \
  >"$out/simulate.txt"
grep -q "iteration time" "$out/simulate.txt" || { echo "FAIL: simulate"; cat "$out/simulate.txt"; exit 1; }

status=0
env -i PATH=/usr/bin:/bin "$bundle/run-on-gpu" "$out/run" --only environment >"$out/run.txt" 2>&1 ||
  status=$?
cat "$out/run.txt"
if ((status == 77)); then
  grep -q "run-on-gpu: no GPU usable here" "$out/run.txt" || { echo "FAIL: no reason given"; exit 1; }
elif ((status != 0)); then
  echo "FAIL: run-on-gpu exited $status"; exit 1
fi
[[ -s "$out/run/run.log" && -s "$out/run/steps.tsv" ]] || { echo "FAIL: no log"; exit 1; }
tar -tzf "$out/run/environment.tar.gz" >"$out/environment.list"
for f in environment.yaml predicted-gpt2-h1024-l4-mb4.json predicted-llama-h4096-l2-mb1.json; do
  grep -q "environment/$f" "$out/environment.list" || { echo "FAIL: environment.tar.gz lacks $f"; exit 1; }
done
files="$(find "$out/run" -type f | wc -l)"
((files <= 8)) || { echo "FAIL: $files files under OUT, the device tool returns 8"; exit 1; }
# The runner itself, every step forced on this GPU-less machine: each fails fast, and is
# logged, timed and packed; the run ends 1 (steps failed), within its budget.
status=0
env -i PATH=/usr/bin:/bin TRAINSIM_RUN_ON_GPU_FORCE=1 "$bundle/run-on-gpu" "$out/forced" \
  --budget 240 >"$out/forced.txt" 2>&1 || status=$?
((status == 1)) || { cat "$out/forced.txt"; echo "FAIL: forced run exited $status, expected 1"; exit 1; }
for step in environment pytorch calibrate kernels cuda; do
  grep -q "^$step"$'\t' "$out/forced/steps.tsv" || { echo "FAIL: steps.tsv lacks $step"; exit 1; }
  # Listed first, then searched: `grep -q` would cut tar's pipe (a failure under pipefail).
  listing="$(tar -tzf "$out/forced/$step.tar.gz")" || { echo "FAIL: no $step.tar.gz"; exit 1; }
  grep -qx "$step/" <<<"$listing" || { echo "FAIL: $step.tar.gz holds no $step/"; exit 1; }
done
grep -q "calibrate/gemm-shapes.csv" <<<"$(tar -tzf "$out/forced/calibrate.tar.gz")" ||
  { echo "FAIL: the calibrate step listed no GEMM shapes"; exit 1; }
files="$(find "$out/forced" -type f | wc -l)"
((files <= 8)) || { echo "FAIL: $files files under OUT, the device tool returns 8"; exit 1; }
cat "$out/forced/steps.tsv"

echo "device bundle ok ($((size / 1024 / 1024)) MiB), run-on-gpu exit $status"
