#!/usr/bin/env bash
# The emulator on every core (issue 23): --emu-threads 16 against 1, 4096 blocks, vector add and
# tiled matmul, on a 16-core machine. Run from the repository root of a built tree:
#   OUT=out bench/emu_scaling.sh [build/gpu]
# Prints (and writes to $OUT/emu_scaling.txt) each program's times with 1 and 16 emulator threads
# and the ratio; the target is at least 10x on both. Two measurements:
#   1. gpulab run --backend cpu --emu-threads N bench/run/emu_scaling.cu (a student's program)
#   2. emu_bench --scaling --workers N (the same kernels through gpulab_simt's launch()).
# Well under a minute plus the program's compilation by the first gpulab run: a 1-thread 1024x1024
# matmul takes about 2.1 s of CPU time (the 2-core development machine), and the script runs 7 of
# them. The last line gives the script's own time.
set -euo pipefail
BUILD=${1:-build/gpu}
OUT=${OUT:-out}
mkdir -p "$OUT"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/gpulab-run-cache}
G=$BUILD/bin/gpulab
BENCH=$BUILD/bin/emu_bench
[ -x "$BENCH" ] || cmake --build "$BUILD" --target emu_bench -j "$(nproc)" ||
  { echo "emu_bench is not built in $BUILD (GPULAB_BUILD_TESTS off?): part 2 skipped"; BENCH=; }
echo "cores: $(nproc)" | tee "$OUT/emu_scaling.txt"
$G run --backend cpu --emu-threads 16 --timeout 600 bench/run/emu_scaling.cu > /dev/null  # compile once
for t in 1 16; do
  echo "== gpulab run --emu-threads $t" | tee -a "$OUT/emu_scaling.txt"
  $G run --backend cpu --emu-threads "$t" --timeout 600 bench/run/emu_scaling.cu | tee "$OUT/run_$t.txt" | tee -a "$OUT/emu_scaling.txt"
  [ -n "$BENCH" ] || continue
  echo "== emu_bench --scaling --workers $t" | tee -a "$OUT/emu_scaling.txt"
  "$BENCH" --scaling --runs 3 --workers "$t" | tee "$OUT/bench_$t.txt" | tee -a "$OUT/emu_scaling.txt"
done
python3 - "$OUT" <<'PY' | tee -a "$OUT/emu_scaling.txt"
import re, sys
out = sys.argv[1]
def times(path, pattern):
    return [float(x) for x in re.findall(pattern, open(path).read())]
import os
for name, pat in (("run", r"median ([0-9.]+) ms"), ("bench", r"kernel +([0-9.]+) ms")):
    if not os.path.exists(f"{out}/{name}_16.txt"):
        continue
    one, many = times(f"{out}/{name}_1.txt", pat), times(f"{out}/{name}_16.txt", pat)
    for label, a, b in zip(("vector add", "tiled matmul"), one, many):
        print(f"{name:5} {label:12}: 1 thread {a:9.2f} ms, 16 threads {b:8.2f} ms, {a / b:5.1f}x (target >= 10x)")
PY
echo "emu_scaling.sh: ${SECONDS} s in all" | tee -a "$OUT/emu_scaling.txt"
