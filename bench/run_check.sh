#!/usr/bin/env bash
# On the GPU machine: gpulab run's corpus (tests/run_corpus) with nvcc on the GPU and on the
# emulator, side by side, and which planted bugs compute-sanitizer finds. Logs go to $OUT (or ./out).
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=/tmp/gpulab-run-cache
G=build/gpu/bin/gpulab
echo "== correct programs: output of nvcc on the GPU vs the expected (emulator) output"
# One program a job, eight at once; the lines come back in the programs' order.
mkdir -p "$OUT/okrows"
ok_one() {
  f=$1
  n=$(basename "$f" .cu)
  {
    $G run --backend gpu "$f" > "$OUT/$n.gpu.out" 2> "$OUT/$n.gpu.err"; g=$?
    $G run --backend cpu "$f" > "$OUT/$n.cpu.out" 2> "$OUT/$n.cpu.err"; c=$?
    if cmp -s "$OUT/$n.gpu.out" "${f%.cu}.out"; then same=same; else same=DIFFERENT; fi
    if cmp -s "$OUT/$n.cpu.out" "${f%.cu}.out"; then esame=same; else esame=DIFFERENT; fi
    echo "$n: gpu exit $g ($same), emulator exit $c ($esame)"
    [ "$same" = same ] || diff "$OUT/$n.gpu.out" "${f%.cu}.out" | head -5
  } > "$OUT/okrows/$n.txt"
}
export -f ok_one
export G OUT
ls tests/run_corpus/ok/*.cu | xargs -P "${JOBS:-8}" -I{} bash -c 'ok_one "$1"' _ {}
cat "$OUT"/okrows/*.txt
echo "== planted bugs: compute-sanitizer (--backend gpu --check) vs the emulator (--check)"
# Each cell: the findings' kinds and lines; the expected ones are the files' "// expect:" marks.
# The raw output of every tool is kept in $OUT/sanitizer/ (src/run/sanitizer.cpp's parser reads
# it; tests/commands/sanitizer/ can take these files as recorded fixtures).
mkdir -p "$OUT/sanitizer"
printf "| bug | expected | emulator --check | GPU --check (compute-sanitizer) | GPU exit | tool errors (mem/race/sync/init) |\n|---|---|---|---|---|---|\n" > "$OUT/run_bugs.md"
# One program a job, eight at once (compute-sanitizer's four tools make each take a while).
mkdir -p "$OUT/rows"
one() {
  f=$1
  n=$(basename "$f" .cu)
  $G run --backend gpu --check --json "$f" > "$OUT/$n.gpu.out" 2> "$OUT/$n.gpu.json"; ge=$?
  $G run --backend cpu --check --json "$f" > /dev/null 2> "$OUT/$n.cpu.json"
  nvcc -O2 -lineinfo -arch=sm_90 -o "$OUT/sanitizer/$n" "$f" 2>/dev/null &&
  for tool in memcheck racecheck synccheck initcheck; do
    extra=""; [ "$tool" = memcheck ] && extra="--leak-check full"
    (cd "$(dirname "$f")" && compute-sanitizer --tool "$tool" $extra "$OLDPWD/$OUT/sanitizer/$n") \
      > "$OUT/sanitizer/$n.$tool.txt" 2>&1
  done
  python3 - "$n" "$f" "$ge" "$OUT/$n.cpu.json" "$OUT/$n.gpu.json" > "$OUT/rows/$n.md" <<'PY'
import json, re, sys
name, src, gexit, cpu, gpu = sys.argv[1:6]
def load(p):
    try: return json.load(open(p))
    except Exception as e: return {"error": str(e)}
c, g = load(cpu), load(gpu)
marks = []
for i, line in enumerate(open(src), 1):
    m = re.search(r"// expect: ([a-z_]+)", line)
    if m: marks.append(f"{m.group(1)} :{i}")
def cell(j):
    if "error" in j: return "no report: " + j["error"][:40]
    fs = sorted({f["kind"] + " " + f["where"].split(":")[-1] for f in j.get("findings", [])})
    return ", ".join(fs) or "none"
tools = {t["tool"]: t["errors"] for t in g.get("compute_sanitizer", [])}
errs = "/".join(str(tools.get(t, "?")) for t in ("memcheck", "racecheck", "synccheck", "initcheck"))
print("| " + " | ".join([name, ", ".join(marks) or "(correct)", cell(c), cell(g), gexit, errs]) + " |")
PY
}
export -f one
ls tests/run_corpus/bugs/*.cu tests/run_corpus/ok/*.cu | xargs -P "${JOBS:-8}" -I{} bash -c 'one "$1"' _ {}
cat "$OUT"/rows/*.md >> "$OUT/run_bugs.md"
cat "$OUT/run_bugs.md"
echo "== timing: a cached run of the notes' vector add (emulator), 5 times"
for i in 1 2 3 4 5; do /usr/bin/time -f "%e s" $G run --backend cpu tests/run_corpus/ok/notes_vector_add.cu > /dev/null 2>> "$OUT/timing.txt"; done
grep " s$" "$OUT/timing.txt"
echo "== emulator throughput: a student's vector add (gpulab run) against gpulab vecadd's own kernel"
$G run --backend cpu bench/run/vecadd_throughput.cu 2>/dev/null | tee -a "$OUT/throughput.txt"
$G vecadd --n 16777216 --block 256 --backend cpu --bench --show none 2>/dev/null | grep -iE "median|kernel" | head -3 | tee -a "$OUT/throughput.txt"
# NVIDIA's cuda-samples, if a checkout is given (SAMPLES=path with Common/ and Samples/): read and
# run where they are, never copied into the project.
if [ -n "${SAMPLES:-}" ]; then
  echo "== cuda-samples: nvcc on the GPU, then the emulator"
  for s in 0_Introduction/vectorAdd/vectorAdd.cu 0_Introduction/matrixMul/matrixMul.cu \
           0_Introduction/simpleVoteIntrinsics/simpleVoteIntrinsics.cu \
           2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu 6_Performance/transpose/transpose.cu; do
    n=$(basename "$s" .cu)
    $G run --backend gpu -I "$SAMPLES/Common" "$SAMPLES/Samples/$s" > "$OUT/sample_$n.gpu" 2>&1; g=$?
    /usr/bin/time -f "%e" -o "$OUT/sample_$n.time" $G run --backend cpu --timeout 400 -I "$SAMPLES/Common" "$SAMPLES/Samples/$s" > "$OUT/sample_$n.cpu" 2>&1; c=$?
    echo "$n: gpu exit $g [$(grep -m1 -iE "pass|fail|result|checksum" "$OUT/sample_$n.gpu" | head -c 80)]; emulator exit $c in $(cat "$OUT/sample_$n.time") s [$(grep -m1 -iE "pass|fail|result|checksum" "$OUT/sample_$n.cpu" | head -c 80)]"
  done
fi
