#!/usr/bin/env bash
# On the GPU machine, from the repository root: how the GPU behaves for each program of
# tests/run_corpus/gpu_semantics (issue 22: errors at the sync call, device-side assert, by-value
# arguments, locks, ...), built with plain nvcc and run directly, next to gpulab's emulator.
# For each program it records under $OUT (default ./out/run_semantics):
#   NAME.gpu.out / .gpu.err / .gpu.rc   nvcc's build run on the GPU: stdout, stderr, exit code
#   NAME.cpu.out / .cpu.err / .cpu.rc   the same program under `gpulab run --backend cpu`
# and prints, per program, whether the GPU's stdout equals the expected NAME.out that the CI test
# asserts for the emulator, and whether each line of NAME.err is in the GPU's stderr.
# A line `// nvcc: FLAGS` in a program adds FLAGS to its nvcc command (-rdc=true for child launches).
# Also records nvcc's error for kernel parameters past 32764 bytes (big_params.nvcc.txt).
set -uo pipefail
OUT=${OUT:-out}/run_semantics
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=/tmp/gpulab-run-sem-cache
G=build/gpu/bin/gpulab
DIR=tests/run_corpus/gpu_semantics
nvcc --version | tail -2 > "$OUT/nvcc_version.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
summary="$OUT/summary.txt"
: > "$summary"
for f in "$DIR"/*.cu; do
  n=$(basename "$f" .cu)
  flags=$(sed -n 's|^// nvcc: ||p' "$f" | head -1)
  # shellcheck disable=SC2086
  if ! nvcc -O2 -lineinfo -arch=sm_90 $flags "$f" -o "$OUT/$n.bin" > "$OUT/$n.nvcc.txt" 2>&1; then
    echo "$n: nvcc could not build it (see $n.nvcc.txt)" | tee -a "$summary"
    continue
  fi
  timeout 60 "$OUT/$n.bin" > "$OUT/$n.gpu.out" 2> "$OUT/$n.gpu.err"; echo $? > "$OUT/$n.gpu.rc"
  timeout 300 $G run --backend cpu "$f" > "$OUT/$n.cpu.out" 2> "$OUT/$n.cpu.err"; echo $? > "$OUT/$n.cpu.rc"
  if cmp -s "$OUT/$n.gpu.out" "$DIR/$n.out"; then same="stdout as expected"; else same="stdout DIFFERS"; fi
  err=""
  if [ -f "$DIR/$n.err" ]; then
    err="; expected stderr lines:"
    while IFS= read -r line; do
      if grep -qF -- "$line" "$OUT/$n.gpu.err"; then err="$err found"; else err="$err MISSING"; fi
    done < "$DIR/$n.err"
  fi
  echo "$n: gpu exit $(cat "$OUT/$n.gpu.rc"), emulator exit $(cat "$OUT/$n.cpu.rc"); $same$err" | tee -a "$summary"
  [ "$same" = "stdout as expected" ] || diff "$DIR/$n.out" "$OUT/$n.gpu.out" | head -20 | tee -a "$summary"
done
# Kernel parameters past the 32764 bytes CUDA 12.1+ allows on Volta and newer.
cat > "$OUT/big_params.cu" <<'CU'
struct Big { char bytes[32768]; };
__global__ void k(Big b, int* out) { *out = b.bytes[0]; }
int main() {
  Big b{};
  int* out; cudaMalloc(&out, 4);
  k<<<1, 1>>>(b, out);
  return 0;
}
CU
nvcc -arch=sm_90 "$OUT/big_params.cu" -o "$OUT/big_params.bin" > "$OUT/big_params.nvcc.txt" 2>&1
echo "big_params: nvcc exit $? ($(head -c 300 "$OUT/big_params.nvcc.txt" | tr '\n' ' '))" | tee -a "$summary"
