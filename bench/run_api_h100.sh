#!/usr/bin/env bash
# On the GPU machine, from the repository root, with build/gpu (gpulab built with CUDA): the
# programs of issue 21 (real programs I) under `gpulab run --backend gpu` (nvcc on the GPU) next to
# `--backend cpu` (the emulator), each against its expected output; nvcc's refusal of API CUDA 13
# removed and gpulab's explanation of it; and a probe of what the GPU answers where the emulator
# follows CUDA's documentation without a recording yet. Results go to $OUT/run_api (default
# ./out/run_api), packed into $OUT/run_api.tar.gz; the summary is printed and kept in summary.txt.
#
#   NAME.gpu.out/.err/.rc, NAME.cpu.out/.err/.rc   each program on both backends
#   removed_api.gpu.err                             nvcc's refusal, with gpulab's sentences
#   api_probe.gpu.out / api_probe.cpu.out           the probe, side by side (diff them)
#   corpus_gpu_test.txt                             the [gpu] test of the corpus (thrust's launches)
#   typed.gpu.out / typed.cpu.out                   __FILE__ of tests/run_corpus/typed, as typed
#   ptxas.nvcc.txt / ptxas.cpu.err                  -Xptxas -v: ptxas's lines, the emulator's note
set -uo pipefail
ROOT=${OUT:-out}
OUT=$ROOT/run_api
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=/tmp/gpulab-run-api-cache
G=build/gpu/bin/gpulab
C=tests/run_corpus
summary="$OUT/summary.txt"
: > "$summary"
nvcc --version | tail -2 > "$OUT/nvcc_version.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1

# NAME EXPECTED ARGS...: both backends, each stdout against EXPECTED.
compare() {
  local n=$1 expected=$2
  shift 2
  timeout 300 $G run --backend gpu "$@" > "$OUT/$n.gpu.out" 2> "$OUT/$n.gpu.err"; echo $? > "$OUT/$n.gpu.rc"
  timeout 300 $G run --backend cpu "$@" > "$OUT/$n.cpu.out" 2> "$OUT/$n.cpu.err"; echo $? > "$OUT/$n.cpu.rc"
  local g e
  if cmp -s "$OUT/$n.gpu.out" "$expected"; then g=same; else g=DIFFERENT; fi
  if cmp -s "$OUT/$n.cpu.out" "$expected"; then e=same; else e=DIFFERENT; fi
  echo "$n: GPU exit $(cat "$OUT/$n.gpu.rc") stdout $g; emulator exit $(cat "$OUT/$n.cpu.rc") stdout $e" | tee -a "$summary"
  [ "$g" = same ] || diff "$OUT/$n.gpu.out" "$expected" | head -8 | tee -a "$summary"
}

for n in zero_copy occupancy memory_2d3d streams_launch warp_queries flags_hints dot_products; do
  compare "$n" "$C/api/$n.out" "$C/api/$n.cu"
done
compare headers "$C/headers/main.out" -I "$C/headers/include" "$C/headers/main.cu" "$C/headers/squares.cu"
compare shared_template "$C/api/shared_template.out" "$C/api/shared_template.cu" "$C/api/shared_template_host.cpp"
for n in curand_host cublas_gemm thrust_sort; do
  compare "$n" "$C/ok/$n.out" "$C/ok/$n.cu"
done
# thrust on the GPU: its CUB kernels are counted apart, so both backends list the same launches.
$G run --backend gpu --json "$C/ok/thrust_sort.cu" > /dev/null 2> "$OUT/thrust_sort.gpu.json"
grep -o '"library_launches": [0-9]*' "$OUT/thrust_sort.gpu.json" | tee -a "$summary"

# API CUDA 13 removed: nvcc refuses it, gpulab says what replaces each; the emulator runs it.
timeout 300 $G run --backend gpu "$C/api/removed_api.cu" > /dev/null 2> "$OUT/removed_api.gpu.err"
echo "removed_api on the GPU: exit $? (expected 1), explained: $(grep -c 'CUDA 13 removed' "$OUT/removed_api.gpu.err") of 6" | tee -a "$summary"
compare removed_api "$C/api/removed_api.out" "$C/api/removed_api.cu"

# __FILE__ as typed: plain nvcc and the emulator from the program's folder, same command line.
T=$PWD/$C/typed
A=$(cd "$OUT" && pwd)
GA=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
(cd "$T" && nvcc -arch=sm_90 -I inc src/main.cu src/other.cu -o "$A/typed.bin" && "$A/typed.bin") > "$OUT/typed.gpu.out" 2> "$OUT/typed.gpu.err"
(cd "$T" && timeout 300 "$GA" run --backend cpu -I inc src/main.cu src/other.cu) > "$OUT/typed.cpu.out" 2> "$OUT/typed.cpu.err"
echo "__FILE__ as typed: GPU $(cmp -s "$OUT/typed.gpu.out" "$T/expected.out" && echo same || echo DIFFERENT), emulator $(cmp -s "$OUT/typed.cpu.out" "$T/expected.out" && echo same || echo DIFFERENT) (expected.out)" | tee -a "$summary"
diff "$OUT/typed.gpu.out" "$T/expected.out" | tee -a "$summary"
# -Xptxas -v: ptxas's own lines on the GPU, and what the emulator says instead.
nvcc -arch=sm_90 -Xptxas -v "$C/api/flags_hints.cu" -o "$OUT/ptxas.bin" > "$OUT/ptxas.nvcc.txt" 2>&1
timeout 300 $G run --backend cpu -Xptxas -v "$C/api/flags_hints.cu" > /dev/null 2> "$OUT/ptxas.cpu.err"
echo "ptxas -v on the GPU: $(grep -c 'ptxas info' "$OUT/ptxas.nvcc.txt") info lines; emulator: $(grep -c 'static shared memory' "$OUT/ptxas.cpu.err") kernel lines" | tee -a "$summary"

# The probe: plain nvcc on the GPU, and the emulator.
nvcc -O2 -arch=sm_90 bench/run/api_probe.cu -lcublas -lcurand -o "$OUT/api_probe.bin" > "$OUT/api_probe.nvcc.txt" 2>&1 &&
  timeout 60 "$OUT/api_probe.bin" > "$OUT/api_probe.gpu.out" 2>&1
timeout 300 $G run --backend cpu bench/run/api_probe.cu > "$OUT/api_probe.cpu.out" 2> "$OUT/api_probe.cpu.err"
echo "api_probe: lines that differ (GPU < > emulator):" | tee -a "$summary"
diff "$OUT/api_probe.gpu.out" "$OUT/api_probe.cpu.out" | tee -a "$summary"

# The corpus test that failed on thrust_sort last time.
if [ -x build/gpu/bin/gpu_tests ]; then
  timeout 600 build/gpu/bin/gpu_tests "run --backend gpu: the corpus prints what the emulator prints" > "$OUT/corpus_gpu_test.txt" 2>&1
  echo "gpu_tests corpus case: exit $? ($(tail -2 "$OUT/corpus_gpu_test.txt" | tr '\n' ' '))" | tee -a "$summary"
fi
tar -czf "$ROOT/run_api.tar.gz" -C "$ROOT" run_api
