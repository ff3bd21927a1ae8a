#!/usr/bin/env bash
# On the GPU machine: build with CUDA, run every test (the [gpu] ones too), every kernel under
# compute-sanitizer, and the commands whose output the README shows. Logs go to $OUT (or ./out).
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
# The device machine has no Debian -dev packages: the binaries are built on the development machine
# (cmake -S . -B build/gpu -DGPULAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90) and carried with their
# two shared libraries in build/gpu/lib. The CLI tests find gpulab at its build path.
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ ! -e /work/main/build/gpu/bin/gpulab ]; then mkdir -p /work && ln -sfn "$PWD" /work/main; fi
G=build/gpu/bin/gpulab

echo "== tests (the [gpu] ones too)"
for t in unit_tests cli_tests simt_tests gpu_tests; do
  build/gpu/bin/$t > "$OUT/$t.log" 2>&1; echo "$t rc=$?: $(tail -2 "$OUT/$t.log" | head -1)"
done
grep -B2 -A12 FAILED "$OUT"/*_tests.log | head -60
grep "^occupancy on" "$OUT/gpu_tests.log"  # the calculator against cudaOccupancyMaxActiveBlocksPerMultiprocessor

echo "== compute-sanitizer"
san() {  # tool, then gpulab arguments
  local tool=$1; shift
  if compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 10 "$G" "$@" --backend gpu \
      > "$OUT/san.tmp" 2>&1; then
    echo "clean  $tool: $*"
  else
    echo "FAIL   $tool: $*"; tail -20 "$OUT/san.tmp"
  fi
  cat "$OUT/san.tmp" >> "$OUT/sanitizer.log"
}
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" hello --blocks 2 --threads 4
  san "$tool" vecadd --n 1000 --block 256 --seed 1 --show none
  san "$tool" twonorm --rows 64 --cols 64 --kernel course --seed 1
  san "$tool" twonorm --rows 1000 --cols 999 --kernel reduce --seed 1
  san "$tool" index-map --grid 3x2x2 --block 5x3x2 --run --show none
  san "$tool" twonorm --rows 64 --cols 64 --kernel all --seed 1
  san "$tool" twonorm --rows 301 --cols 77 --kernel all --seed 1
  san "$tool" warp-hiding --measure --steps 4 --ops 8 --seed 1
done

echo "== README outputs"
run() { local name=$1; shift; echo "\$ gpulab $*" > "$OUT/readme_$name.txt"; "$G" "$@" >> "$OUT/readme_$name.txt" 2>&1; echo "rc=$? $name"; }
run hello hello --blocks 2 --threads 4
run vecadd vecadd --n 32 --block 8 --seed 2026
run vecadd_large vecadd --n 268435456 --block 256 --seed 1
run twonorm_course twonorm --rows 32 --cols 14 --kernel course --seed 7
run twonorm_reduce twonorm --rows 16384 --cols 16384 --kernel reduce --seed 7
run index index-map --grid 2x3 --block 3x4 --find 17 --run
run ladder twonorm --rows 16384 --cols 16384 --kernel all --bench --seed 7
run ladder_json twonorm --rows 16384 --cols 16384 --kernel all --bench --seed 7 --json
run measure warp-hiding --measure --seed 7
run measure_json warp-hiding --measure --seed 7 --json
run measure_ops64 warp-hiding --measure --ops 64 --seed 7
run measure_ops256 warp-hiding --measure --ops 256 --seed 7
run device device-info
run device_json device-info --json
cat "$OUT"/readme_vecadd_large.txt | tail -6
cat "$OUT"/readme_twonorm_reduce.txt | tail -6
cat "$OUT"/readme_ladder.txt "$OUT"/readme_measure.txt
grep -E "^\s+[0-9]+ +[0-9]+ x|Saturates|calculator|Memory latency" "$OUT"/readme_measure_ops*.txt
echo "== registers (64 warps of latency_probe need <= 32 per thread)"
cuobjdump --dump-resource-usage "$G" 2>/dev/null | grep -A1 -E "latency_probe|ladder_" | grep -oE "Function [^:]+|REG:[0-9]+" | paste - - 
# The device tool returns at most 8 files: everything else travels in one archive.
tar czf /tmp/gpulab_logs.tgz -C "$OUT" . && mv /tmp/gpulab_logs.tgz "$OUT/logs.tgz" && find "$OUT" -type f ! -name logs.tgz ! -name 'readme_ladder*' ! -name 'readme_measure.txt' ! -name 'readme_measure_json.txt' -delete
