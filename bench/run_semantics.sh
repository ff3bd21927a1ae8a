#!/usr/bin/env bash
# On the GPU machine, from the repository root: how the GPU behaves for each program of
# tests/run_corpus/gpu_semantics (issue 22: faults, errors at the sync call, device-side assert,
# by-value arguments, locks, heap, graphs, child launches, cooperative launches and grid sync,
# cooperative groups, cuda::barrier), built with plain nvcc and run directly, next to gpulab's
# emulator (`gpulab run --backend cpu`, with and without --check).
#
# Writes under $OUT (default ./out):
#   run_semantics_table.md   one row per program: exit codes, whether the GPU's stdout equals the
#                            expected NAME.out the CI test asserts for the emulator, whether each
#                            line of NAME.err is in the GPU's stderr, and the emulator's verdicts
#   run_semantics.tar.gz     the raw outputs: NAME.gpu.{out,err,rc}, NAME.cpu.{out,err,rc,json},
#                            NAME.check.{err,rc} (gpulab run --check --json), NAME.memcheck.txt
#                            (compute-sanitizer on the fault programs), NAME.nvcc.txt, diffs,
#                            nvcc's words for kernel parameters past 32764 bytes (big_params.*),
#                            nvcc_version.txt, gpu.txt
# A line `// nvcc: FLAGS` in a program adds FLAGS to its nvcc command (-rdc=true for child launches).
# Takes about a minute on an H100 host. GPULAB and SEMANTICS_DIR override the binary and the folder.
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
WORK=$(mktemp -d)/run_semantics
mkdir -p "$WORK"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=/tmp/gpulab-run-sem-cache
G=${GPULAB:-$PWD/build/gpu/bin/gpulab}
DIR=${SEMANTICS_DIR:-tests/run_corpus/gpu_semantics}
nvcc --version | tail -2 > "$WORK/nvcc_version.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$WORK/gpu.txt" 2>&1
table="$OUT/run_semantics_table.md"
{
  echo "# gpulab run semantics on $(head -1 "$WORK/gpu.txt") ($(tail -1 "$WORK/nvcc_version.txt"))"
  echo
  echo "| program | GPU exit | GPU stdout = expected | expected stderr lines in GPU's | emulator exit | emulator stdout = expected | --check exit, findings |"
  echo "|---|---|---|---|---|---|---|"
} > "$table"
for f in "$DIR"/*.cu; do
  n=$(basename "$f" .cu)
  flags=$(sed -n 's|^// nvcc: ||p' "$f" | head -1)
  gpu_rc="-"; gpu_same="nvcc failed"; err_lines="-"
  # shellcheck disable=SC2086
  if nvcc -O2 -lineinfo -arch=sm_90 $flags "$f" -o "$WORK/$n.bin" > "$WORK/$n.nvcc.txt" 2>&1; then
    timeout 60 "$WORK/$n.bin" > "$WORK/$n.gpu.out" 2> "$WORK/$n.gpu.err"
    gpu_rc=$?
    echo "$gpu_rc" > "$WORK/$n.gpu.rc"
    if cmp -s "$WORK/$n.gpu.out" "$DIR/$n.out"; then
      gpu_same=yes
    else
      gpu_same=NO
      diff "$DIR/$n.out" "$WORK/$n.gpu.out" > "$WORK/$n.gpu.diff"
    fi
    if [ -f "$DIR/$n.err" ]; then
      err_lines=""
      while IFS= read -r line; do
        if grep -qF -- "$line" "$WORK/$n.gpu.err"; then err_lines="${err_lines}found "; else err_lines="${err_lines}MISSING "; fi
      done < "$DIR/$n.err"
    fi
    case "$n" in
      fault_*) timeout 120 compute-sanitizer --tool memcheck "$WORK/$n.bin" > "$WORK/$n.memcheck.txt" 2>&1 ;;
    esac
  fi
  timeout 300 "$G" run --backend cpu --json --report "$WORK/$n.cpu.json" "$f" \
    > "$WORK/$n.cpu.out" 2> "$WORK/$n.cpu.err"
  cpu_rc=$?
  echo "$cpu_rc" > "$WORK/$n.cpu.rc"
  if cmp -s "$WORK/$n.cpu.out" "$DIR/$n.out"; then cpu_same=yes; else cpu_same=NO; fi
  # The report to a file of its own: a program's own stderr (a device assert's lines) comes first.
  timeout 300 "$G" run --backend cpu --check --json --report "$WORK/$n.check.json" "$f" \
    > /dev/null 2> "$WORK/$n.check.err"
  check_rc=$?
  echo "$check_rc" > "$WORK/$n.check.rc"
  findings=$(python3 -c 'import json,sys
try:
    j = json.load(open(sys.argv[1]))
    print(", ".join(f["kind"] + " " + f.get("where", "") for f in j.get("findings", [])) or "none")
except Exception as e:
    print("no report")' "$WORK/$n.check.json" 2>/dev/null)
  echo "| $n | $gpu_rc | $gpu_same | $err_lines | $cpu_rc | $cpu_same | $check_rc: $findings |" >> "$table"
done
# Kernel parameters past the 32764 bytes CUDA 12.1+ allows on Volta and newer: nvcc's words, and
# gpulab run's (which should say the same facts).
cat > "$WORK/big_params.cu" <<'CU'
struct Big { char bytes[32768]; };
__global__ void k(Big b, int* out) { *out = b.bytes[0]; }
int main() {
  Big b{};
  int* out; cudaMalloc(&out, 4);
  k<<<1, 1>>>(b, out);
  return 0;
}
CU
nvcc -arch=sm_90 "$WORK/big_params.cu" -o "$WORK/big_params.bin" > "$WORK/big_params.nvcc.txt" 2>&1
echo "nvcc exit $?" >> "$WORK/big_params.nvcc.txt"
"$G" run --backend cpu "$WORK/big_params.cu" > /dev/null 2> "$WORK/big_params.cpu.txt"
{
  echo
  echo "Kernel parameters of 32776 bytes:"
  echo "- nvcc: $(grep -m1 -i 'parameter' "$WORK/big_params.nvcc.txt")"
  echo "- gpulab run: $(grep -m1 'Formal parameter' "$WORK/big_params.cpu.txt")"
} >> "$table"
rm -f "$WORK"/*.bin
tar czf "$OUT/run_semantics.tar.gz" -C "$(dirname "$WORK")" run_semantics
cat "$table"
