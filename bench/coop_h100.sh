#!/usr/bin/env bash
# On the GPU machine, from the repository root: the emulated device's 132 SMs and cooperative grids
# of that size (issues 21/22). Runs
#   1. tests/run_corpus/gpu_semantics/grid_resident.cu and grid_sync.cu, built with plain nvcc and
#      run on the GPU, and under `gpulab run --backend cpu` (the emulator), each stdout compared with
#      the .out file the CI test asserts for the emulator;
#   2. the four corpus programs that size their grids from the SM count (simpleOccupancy,
#      simpleStreams, simpleAWBarrier, reductionMultiBlockCG), reference and emulator, through
#      bench/run_corpus.sh (ONLY=...) and bench/corpus_compare.py, with /usr/bin/time -v's peak
#      memory of the emulator's reductionMultiBlockCG.
# Writes under $OUT (default ./out): coop_h100.md (the verdicts, one line each) and coop_h100.tar.gz
# (the raw outputs, the corpus part's files). Takes about 2-3 minutes on an H100 host.
# Settings: GPULAB (default build/gpu/bin/gpulab), REPOS (the corpus trees, as bench/run_corpus.sh:
# default .corpus), EMU_THREADS (16).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/coop_h100.XXXXXX)
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=/tmp/gpulab-coop-cache
G=${GPULAB:-$root/build/gpu/bin/gpulab}
EMU_THREADS=${EMU_THREADS:-16}
md="$OUT/coop_h100.md"
{
  echo "# cooperative grids of 132 SMs: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1)"
  echo
} > "$md"

# 1. The test programs: the GPU's stdout and the emulator's against the expected .out.
for n in grid_resident grid_sync; do
  src=tests/run_corpus/gpu_semantics/$n.cu
  exp=tests/run_corpus/gpu_semantics/$n.out
  nvcc -arch=sm_90 -o "$WORK/$n" "$src" > "$WORK/$n.nvcc.txt" 2>&1
  (cd "$WORK" && timeout 60 "./$n" > "$n.gpu.out" 2> "$n.gpu.err"; echo $? > "$n.gpu.rc")
  /usr/bin/time -v -o "$WORK/$n.cpu.time" timeout 240 \
    "$G" run --backend cpu --emu-threads "$EMU_THREADS" --json --report "$WORK/$n.cpu.json" "$src" \
    > "$WORK/$n.cpu.out" 2> "$WORK/$n.cpu.err"
  echo $? > "$WORK/$n.cpu.rc"
  gpu=$(cmp -s "$WORK/$n.gpu.out" "$exp" && echo "equal" || echo "DIFFERENT")
  cpu=$(cmp -s "$WORK/$n.cpu.out" "$exp" && echo "equal" || echo "DIFFERENT")
  echo "- $n: GPU exit $(cat "$WORK/$n.gpu.rc"), stdout $gpu to $n.out; emulator exit" \
    "$(cat "$WORK/$n.cpu.rc"), stdout $cpu; emulator" \
    "$(sed -n 's/.*Elapsed (wall clock) time[^:]*: //p' "$WORK/$n.cpu.time") wall," \
    "peak RSS $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/$n.cpu.time") KiB" >> "$md"
done

# 2. The four corpus programs: reference and emulator, compared.
ONLY=simpleOccupancy,simpleStreams,simpleAWBarrier,reductionMultiBlockCG
WORK_CORPUS="$WORK/corpus_work"
mkdir -p "$WORK_CORPUS" "$WORK/corpus_out"
ONLY=$ONLY WORK=$WORK_CORPUS OUT=$WORK/corpus_out EMU_THREADS=$EMU_THREADS G=$G DEADLINE=200 \
  bench/run_corpus.sh ref cpu > "$WORK/run_corpus.log" 2>&1
{
  echo
  echo "## corpus (bench/corpus_compare.py, reference on the GPU against gpulab run --backend cpu)"
  echo
  echo '```'
  python3 bench/corpus_compare.py "$WORK_CORPUS/corpus/ref" "$WORK_CORPUS/corpus/cpu" 2>&1 |
    grep -E "simpleOccupancy|simpleStreams|simpleAWBarrier|reductionMultiBlockCG|pass|fail" | head -20
  echo '```'
} >> "$md"

# Peak memory of the emulator's reductionMultiBlockCG (264 blocks of 1024 threads, 100 launches).
dir=${REPOS:-.corpus}/NVIDIA+cuda-samples/Samples
if [ -d "$dir" ]; then
  /usr/bin/time -v -o "$WORK/reductionMultiBlockCG.time" timeout 240 \
    "$G" run --backend cpu --emu-threads "$EMU_THREADS" -I "$dir/../Common" \
    "$dir/2_Concepts_and_Techniques/reductionMultiBlockCG/reductionMultiBlockCG.cu" \
    > "$WORK/reductionMultiBlockCG.cpu.out" 2> "$WORK/reductionMultiBlockCG.cpu.err"
  echo "- reductionMultiBlockCG under /usr/bin/time -v: exit $?," \
    "$(sed -n 's/.*Elapsed (wall clock) time[^:]*: //p' "$WORK/reductionMultiBlockCG.time") wall," \
    "peak RSS $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/reductionMultiBlockCG.time") KiB" >> "$md"
fi
cp "$WORK/corpus_out/run_corpus.md" "$OUT/coop_corpus.md" 2> /dev/null
tar czf "$OUT/coop_h100.tar.gz" -C "$WORK" . 2> /dev/null
cat "$md"
