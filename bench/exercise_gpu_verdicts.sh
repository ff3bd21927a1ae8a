#!/usr/bin/env bash
# gpulab exercise on the GPU against the emulator: every course solution, every planted mistake
# (exercises/NN-ID.txt, "@@ mistake"), every forgery (tests/exercise/forgeries, named/,
# naive_matmul.cu) and an honest kernel with printf, checked with the same seed on
# --backend cpu and --backend gpu. Writes $OUT/exercise_verdicts.tsv (one row per file: the two
# verdicts, whether the outputs were right on each, the mistakes named) and $OUT/*.json (every
# check's JSON), and prints the rows whose verdicts disagree.
#
# Expected: the same verdict on both, except that a solution that passes on the emulator is
# "not_verified" on the GPU when a rule cannot be measured there (it is, for every exercise with
# rules: that is the point of item 4), and that a planted mistake's outputs may be right on the
# GPU where compute-sanitizer must then name it (missing guard, off-by-one: sanitizer_memcheck).
#
# Run from the repository root on the GPU machine, after building build/gpu:
#   OUT=/tmp/out bench/exercise_gpu_verdicts.sh
# Takes a few minutes with 16 cores (four checks at a time).
set -euo pipefail
G=${GPULAB:-build/gpu/bin/gpulab}
OUT=${OUT:?set OUT to a folder for the results}
mkdir -p "$OUT/files"
export XDG_CACHE_HOME="$OUT/cache" XDG_STATE_HOME="$OUT/state"
SEED=${SEED:-2026}
files=()

for f in exercises/[0-9]*.txt; do
  base=$(basename "$f" .txt)
  id=${base#*-}
  { echo "// gpulab exercise: $id"; "$G" exercise solution "$id"; } > "$OUT/files/$id-solution.cu"
  files+=("$OUT/files/$id-solution.cu")
  # each planted mistake
  awk -v id="$id" -v dir="$OUT/files" '
    /^@@ mistake / { name=$3; out=dir "/" id "-mistake-" name ".cu"; print "// gpulab exercise: " id > out; inside=1; next }
    /^@@ / { inside=0 }
    inside { print >> out }' "$f"
done
for f in "$OUT"/files/*-mistake-*.cu; do files+=("$f"); done
for f in tests/exercise/forgeries/*.cu tests/exercise/named/*.cu tests/exercise/naive_matmul.cu; do
  files+=("$f")
done
cat > "$OUT/files/01-map.cu" <<'CU'
// gpulab exercise: map
#include <cstdio>
__global__ void map_add_ten(const float* a, float* out, int n) {
  int i = threadIdx.x;
  if (i == 0) printf("hello from thread %d of %d\n", i, n);
  out[i] = a[i] + 10.0f;
}
CU
files+=("$OUT/files/01-map.cu")

check_one() {
  local f=$1 name
  name=$(basename "$f" .cu)
  for b in cpu gpu; do
    "$G" exercise check "$f" --seed "$SEED" --backend "$b" --json > "$OUT/$name.$b.json" 2> "$OUT/$name.$b.err" || true
  done
  python3 - "$OUT/$name.cpu.json" "$OUT/$name.gpu.json" "$name" <<'PY'
import json, sys
def read(p):
    try:
        j = json.load(open(p))
    except Exception as e:
        return {"verdict": "no-json"}
    return j
c, g, name = read(sys.argv[1]), read(sys.argv[2]), sys.argv[3]
def outputs_right(j):
    t = j.get("tests", [])
    return bool(t) and all(all(r.get("pass") for r in x.get("results", [])) and "error" not in x for x in t)
def mistakes(j):
    return " ".join(d["mistake"] for d in j.get("diagnoses", []))
print("\t".join([name, c.get("verdict", "?"), g.get("verdict", "?"), str(outputs_right(c)),
                 str(outputs_right(g)), mistakes(c), mistakes(g)]))
PY
}
export -f check_one
export G OUT SEED
printf 'file\tcpu_verdict\tgpu_verdict\tcpu_outputs_right\tgpu_outputs_right\tcpu_mistakes\tgpu_mistakes\n' > "$OUT/exercise_verdicts.tsv"
printf '%s\n' "${files[@]}" | xargs -P 4 -I{} bash -c 'check_one "$@"' _ {} | sort >> "$OUT/exercise_verdicts.tsv"

echo "rows whose verdicts differ (a solution: passed on cpu, not_verified on gpu is expected):"
awk -F'\t' 'NR > 1 && $2 != $3 && !($2 == "passed" && $3 == "not_verified")' "$OUT/exercise_verdicts.tsv"
echo "forgeries that were not refused on the GPU (must be none):"
awk -F'\t' 'NR > 1 && $1 !~ /solution|mistake|^01-map$/ && $3 == "passed"' "$OUT/exercise_verdicts.tsv"
echo "done: $OUT/exercise_verdicts.tsv"
