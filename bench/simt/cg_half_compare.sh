#!/usr/bin/env bash
# On the GPU machine: diffs the cooperative-groups and __half test kernels' results, GPU (the nvcc
# build, cg_half_dump_gpu) against the emulator (cg_half_dump). Both are built with the project
# when CUDA is on; BUILD names the build folder (default build/gpu). Writes $OUT/cg_half.diff.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
BUILD=${BUILD:-build/gpu}
mkdir -p "$OUT"
"$BUILD/bin/cg_half_dump_gpu" > "$OUT/cg_half_gpu.txt"
"$BUILD/bin/cg_half_dump" > "$OUT/cg_half_emu.txt"
if diff "$OUT/cg_half_gpu.txt" "$OUT/cg_half_emu.txt" > "$OUT/cg_half.diff"; then
  echo "cg/__half: the emulator matches the GPU on every line"
else
  echo "cg/__half: $(grep -c '^<' "$OUT/cg_half.diff") lines differ (GPU <, emulator >); the first:"
  head -20 "$OUT/cg_half.diff" | cut -c1-300
  exit 1
fi
