#!/usr/bin/env bash
# Region loops against coroutines (issue 23; docs/performance.md, "Region loops") on a many-core
# machine: the block reduction and the matrixMul-style product, built as gpulab run builds them
# (emu_bench: region loops) and coroutine-only (emu_bench_coroutines), one after the other in each
# round, with 1 and all emulator workers. Run from the repository root of a built tree:
#   OUT=out bench/simt/regions_h100.sh [build/gpu] [ROUNDS]
# Writes $OUT/regions.txt. About three minutes on 16 cores with 3 rounds.
set -euo pipefail
BUILD=${1:-build/gpu}
ROUNDS=${2:-3}
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG="$OUT/regions.txt"
for b in emu_bench emu_bench_coroutines; do
  [ -x "$BUILD/bin/$b" ] || cmake --build "$BUILD" --target "$b" -j "$(nproc)"
done
start=$(date +%s)
echo "cores: $(nproc); $(uptime)" | tee "$LOG"
for r in $(seq "$ROUNDS"); do
  for w in 1 "$(nproc)"; do
    for b in emu_bench emu_bench_coroutines; do
      echo "== round $r, $b, --workers $w, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$LOG"
      "$BUILD/bin/$b" --workers "$w" --only reduce --runs 3 | tail -1 | tee -a "$LOG"
      "$BUILD/bin/$b" --workers "$w" --only matrixmul --runs 2 --mm-launches 11 | tail -2 | tee -a "$LOG"
    done
  done
done
# NVIDIA's matrixMul as the sample runs it (301 launches), a whole `gpulab run` on two cores of
# an otherwise idle machine: issue 23's target is under 5 s. The first run builds (and is not
# counted), the next ones use the cached build.
CACHE=$(mktemp -d)
for r in 0 $(seq "$ROUNDS"); do
  echo "== matrixmul_sample on cores 0-1, run $r (0: builds), load $(cut -d' ' -f1 /proc/loadavg)" |
    tee -a "$LOG"
  XDG_CACHE_HOME=$CACHE taskset -c 0,1 /usr/bin/time -f "%e s wall, %U s user, %S s sys" \
    "$BUILD/bin/gpulab" run --backend cpu --emu-threads 2 bench/simt/matrixmul_sample.cu 2>&1 |
    grep -E "launches|wall" | tee -a "$LOG"
done
rm -rf "$CACHE"
echo "script: $(( $(date +%s) - start )) s" | tee -a "$LOG"
