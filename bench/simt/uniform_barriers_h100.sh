#!/usr/bin/env bash
# On the GPU machine: the kernels that gpulab run splits into region loops since split-6 (kernels in
# user headers, barriers under a block-uniform if, a thread block's sync; docs/performance.md,
# "Kernels in headers, barriers under a block's condition, a block group's sync"):
#   1. tests/run_corpus/ok/uniform_barriers.cu and a header-kernel program built by nvcc and run on
#      the GPU (`gpulab run --backend gpu`), their stdout against the emulator's and the .out;
#   2. bench/simt/uniform_barriers_ab.sh with this build on both sides (the header form of the
#      matrixMul-style product against the file form; the three kernels' times) on all cores.
# Run from the repository root of a built tree:
#   OUT=out bench/simt/uniform_barriers_h100.sh [build/gpu] [ROUNDS]
# Writes $OUT/uniform_barriers_h100.txt and $OUT/uniform_barriers_ab.txt. About two minutes.
set -euo pipefail
G="${1:-build/gpu}/bin/gpulab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
OUT=${OUT:-out}
LOG="$OUT/uniform_barriers_h100.txt"
mkdir -p "$OUT"
export XDG_CACHE_HOME="$work/cache"
echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1); cores $(nproc)" | tee "$LOG"
# A kernel with barriers in an included header (the header's kernel and its fault line).
mkdir -p "$work/inc"
cat > "$work/inc/tiles.cuh" << 'EOF'
#pragma once
__global__ void block_sum(const int* in, int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (int stride = 32; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
EOF
cat > "$work/header.cu" << 'EOF'
#include <cstdio>
#include "tiles.cuh"
int main() {
  int *in, *out;
  cudaMallocManaged(&in, 4 * 64 * sizeof(int));
  cudaMallocManaged(&out, 4 * sizeof(int));
  for (int k = 0; k < 4 * 64; ++k) in[k] = k;
  block_sum<<<4, 64>>>(in, out);
  cudaDeviceSynchronize();
  std::printf("%d %d %d %d\n", out[0], out[1], out[2], out[3]);
  cudaFree(in);
  cudaFree(out);
}
EOF
for prog in tests/run_corpus/ok/uniform_barriers.cu "$work/header.cu"; do
  name=$(basename "$prog" .cu)
  "$G" run --backend gpu -I"$work/inc" "$prog" > "$work/$name.gpu" 2> "$work/$name.gpu.err" || true
  "$G" run --backend cpu -I"$work/inc" "$prog" > "$work/$name.cpu" 2> "$work/$name.cpu.err" || true
  if cmp -s "$work/$name.gpu" "$work/$name.cpu"; then verdict=equal; else verdict=DIFFERENT; fi
  echo "== $name: GPU and emulator stdout $verdict" | tee -a "$LOG"
  { echo "-- GPU:"; cat "$work/$name.gpu"; tail -3 "$work/$name.gpu.err"
    echo "-- emulator:"; cat "$work/$name.cpu"; } | tee -a "$LOG"
done
if cmp -s "$work/uniform_barriers.gpu" tests/run_corpus/ok/uniform_barriers.out; then
  echo "uniform_barriers.out: the GPU's stdout" | tee -a "$LOG"
else
  echo "uniform_barriers.out: DIFFERS from the GPU's stdout" | tee -a "$LOG"
fi
unset XDG_CACHE_HOME
OUT="$OUT" bench/simt/uniform_barriers_ab.sh "$G" "$G" "${2:-2}" "$(nproc)"
