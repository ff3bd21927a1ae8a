#!/usr/bin/env bash
# Kernels that gpulab run splits into region loops since split-6 (docs/performance.md, "Kernels in
# headers, barriers under a block's condition, a block group's sync"), timed under two gpulab
# builds alternately in one run, A then B in each round, each a whole `gpulab run` of a cached
# build; the programs print their kernels' own times (cudaEvent, ms a launch):
#   - the matrixMul-style product (bench/simt/matrixmul_sample.cu, MM_LAUNCHES launches) as written
#     and with its kernel moved into a header of its own (made here in a temporary folder);
#   - tests/run_corpus/ok/uniform_barriers.cu N LAUNCHES: a histogram with a barrier in each branch
#     of `if (blockIdx.x % 2 == 0)`, a scan waiting through a thread block's sync, and an
#     `if (blockIdx.x > 0) cg::this_thread_block().sync();`.
# Run from the repository root; A and B may be the same binary (then it compares the header form
# with the file form, as on the GPU machine with one build):
#   OUT=out bench/simt/uniform_barriers_ab.sh GPULAB_A GPULAB_B [ROUNDS] [EMU_THREADS]
# Writes $OUT/uniform_barriers_ab.txt. About a minute a round on 2 cores with B at split-6 and A
# before it (A's header form and scan run on fibers).
set -euo pipefail
A=${1:?usage: uniform_barriers_ab.sh GPULAB_A GPULAB_B [ROUNDS] [EMU_THREADS]}
B=${2:?usage: uniform_barriers_ab.sh GPULAB_A GPULAB_B [ROUNDS] [EMU_THREADS]}
ROUNDS=${3:-3}
THREADS=${4:-2}
MM_LAUNCHES=${MM_LAUNCHES:-30}
N=${N:-1048576}
LAUNCHES=${LAUNCHES:-20}
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG="$OUT/uniform_barriers_ab.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The product as written (with fewer launches), and with its kernel in mm_kernel.cuh.
src=bench/simt/matrixmul_sample.cu
sed "s/const int iterations = 300;/const int iterations = $MM_LAUNCHES;/" "$src" > "$work/mm_file.cu"
first=$(grep -n '^constexpr int kBlock' "$work/mm_file.cu" | cut -d: -f1)
last=$(grep -n '^int main' "$work/mm_file.cu" | cut -d: -f1)
{ echo "#pragma once"; sed -n "${first},$((last - 1))p" "$work/mm_file.cu"; } > "$work/mm_kernel.cuh"
{ sed -n "1,$((first - 1))p" "$work/mm_file.cu"; echo '#include "mm_kernel.cuh"'
  sed -n "${last},\$p" "$work/mm_file.cu"; } > "$work/mm_header.cu"
echo "cores: $(nproc); $(uptime); A=$A B=$B; $ROUNDS rounds, --emu-threads $THREADS" | tee "$LOG"
run() {  # run BINARY LABEL PROGRAM [ARGS...]: one whole run, its timing lines
  local bin=$1 label=$2 prog=$3
  shift 3
  local line
  line=$( { /usr/bin/time -f "%e s wall" "$bin" run --backend cpu --emu-threads "$THREADS" \
            "$prog" ${1+-- "$@"}; } 2>&1 | grep -E "launches|values|wall" | tr '\n' ' ')
  echo "$label $(basename "$prog"): $line" | tee -a "$LOG"
}
for r in 0 $(seq "$ROUNDS"); do
  echo "== round $r (0: builds, not counted), load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$LOG"
  for side in A B; do
    bin=$A
    [ "$side" = B ] && bin=$B
    export XDG_CACHE_HOME="$work/cache-$side"
    run "$bin" "$side" "$work/mm_file.cu"
    run "$bin" "$side" "$work/mm_header.cu"
    run "$bin" "$side" tests/run_corpus/ok/uniform_barriers.cu "$N" "$LAUNCHES"
  done
done
