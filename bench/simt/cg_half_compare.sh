#!/usr/bin/env bash
# Diffs the cooperative-groups and __half test kernels' results: GPU (nvcc build) against emulator.
# On the development machine: cmake --build --preset default --target cg_half_dump, then
#   bench/simt/cg_half_compare.sh build      (compiles build/gpu-dump/cg_half_dump_gpu with nvcc)
# On the GPU machine (with build/ carried over):
#   bench/simt/cg_half_compare.sh run        (writes $OUT/cg_half_{gpu,emu}.txt and their diff)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
case "${1:-}" in
  build)
    mkdir -p build/gpu-dump
    /usr/local/cuda/bin/nvcc -std=c++20 -O2 -arch=sm_90 -Isrc -Itests/simt \
      bench/simt/cg_half_dump.cu -o build/gpu-dump/cg_half_dump_gpu
    ;;
  run)
    mkdir -p "$OUT"
    build/gpu-dump/cg_half_dump_gpu > "$OUT/cg_half_gpu.txt"
    build/default/bin/cg_half_dump > "$OUT/cg_half_emu.txt"
    if diff "$OUT/cg_half_gpu.txt" "$OUT/cg_half_emu.txt" > "$OUT/cg_half.diff"; then
      echo "cg/__half: the emulator matches the GPU on every line"
    else
      echo "cg/__half: lines that differ (GPU <, emulator >), first 40:"
      head -40 "$OUT/cg_half.diff" | cut -c1-300
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 build|run" >&2
    exit 2
    ;;
esac
