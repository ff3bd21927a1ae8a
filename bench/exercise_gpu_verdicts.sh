#!/usr/bin/env bash
# gpulab exercise on the GPU against the emulator, with one seed: every course solution, every
# planted mistake (exercises/NN-ID.txt, "@@ mistake"), every forgery (tests/exercise/forgeries,
# named/, naive_matmul.cu), the tricks that fail on their own (tests/exercise/failing) and an
# honest kernel with printf, each checked with --backend cpu and --backend gpu.
#
# Writes $OUT/exercise_verdicts.tsv (one row per file: both verdicts, the rules the GPU could
# not measure, the mistakes each named), $OUT/unexpected.txt (the rows that break the
# expectations below; empty when all hold) and $OUT/checks.tar.gz (every check's JSON and
# stderr).
#
# Expected (docs/exercise.md, "What the GPU can and cannot measure"):
#   solution, printf: cpu passed; gpu passed when the exercise has no per-thread rule, else
#                     not_verified with unmeasured_rules only among max_global_reads,
#                     max_global_writes, max_barriers_per_block and the counter rules
#                     (max_sectors_per_request, ...) (never bounds_and_races: the
#                     GPU machine has compute-sanitizer);
#   mistake:          cpu failed; gpu failed, or not_verified when the emulator named only what
#                     the GPU cannot see (a rule, a race on global memory, an element two threads
#                     wrote with the same value); never passed;
#   forgery, named:   refused on both (nothing is compiled);
#   failing, naive:   failed on both.
#
# Run from the repository root on the GPU machine, with the binaries of build/gpu:
#   OUT=/tmp/out bench/exercise_gpu_verdicts.sh            # everything (about 4-5 min, 16 cores)
#   OUT=/tmp/out PART=1 bench/exercise_gpu_verdicts.sh     # solutions, forgeries, failing, printf
#   OUT=/tmp/out PART=2 bench/exercise_gpu_verdicts.sh     # the planted mistakes
#   ONLY='guard|printf' ...                                 # the files whose path matches
set -euo pipefail
G=${GPULAB:-build/gpu/bin/gpulab}
OUT=${OUT:?set OUT to a folder for the results}
PART=${PART:-all}
JOBS=${JOBS:-12}
SEED=${SEED:-2026}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/files" "$work/checks" "$OUT"
export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state"
start=$(date +%s)

list=()  # "kind<TAB>path"
for f in exercises/[0-9]*.txt; do
  base=$(basename "$f" .txt)
  id=${base#*-}
  if [ "$PART" != 2 ]; then
    { echo "// gpulab exercise: $id"; "$G" exercise solution "$id"; } > "$work/files/$id-solution.cu"
    list+=("solution	$work/files/$id-solution.cu")
  fi
  if [ "$PART" != 1 ]; then
    for m in $(awk '/^@@ mistake /{print $3}' "$f"); do
      awk -v n="$m" -v id="$id" 'BEGIN { print "// gpulab exercise: " id }
        /^@@ mistake / { p = ($3 == n); next } /^@@ / { p = 0 } p' "$f" > "$work/files/$id-mistake-$m.cu"
      list+=("mistake	$work/files/$id-mistake-$m.cu")
    done
  fi
done
if [ "$PART" != 2 ]; then
  for f in tests/exercise/forgeries/*.cu tests/exercise/named/*.cu; do list+=("forgery	$f"); done
  for f in tests/exercise/failing/*.cu tests/exercise/naive_matmul.cu; do list+=("failing	$f"); done
  cat > "$work/files/01-map.cu" <<'CU'
// gpulab exercise: map
#include <cstdio>
__global__ void map_add_ten(const float* a, float* out, int n) {
  int i = threadIdx.x;
  if (i == 0) printf("hello from thread %d of %d\n", i, n);
  out[i] = a[i] + 10.0f;
}
CU
  list+=("printf	$work/files/01-map.cu")
fi

check_one() {
  local kind=$1 f=$2 name b
  name=$kind-$(basename "$(dirname "$f")")-$(basename "$f" .cu)
  for b in cpu gpu; do
    "$G" exercise check "$f" --seed "$SEED" --backend "$b" --json --timeout 120 \
      > "$CHECKS/$name.$b.json" 2> "$CHECKS/$name.$b.err" || true
  done
  python3 - "$CHECKS/$name.cpu.json" "$CHECKS/$name.gpu.json" "$kind" "$name" <<'PY'
import json, sys
def read(p):
    try:
        return json.load(open(p))
    except Exception:
        return {"verdict": "no-json"}
c, g, kind, name = read(sys.argv[1]), read(sys.argv[2]), sys.argv[3], sys.argv[4]
mist = lambda j: " ".join(d["mistake"] for d in j.get("diagnoses", []))
print("\t".join([kind, name, c.get("verdict", "?"), g.get("verdict", "?"),
                 ",".join(g.get("unmeasured_rules", [])), mist(c), mist(g),
                 str(len(g.get("kernel_output", "")))]))
PY
}
if [ -n "${ONLY:-}" ]; then  # a regular expression on the paths: a part of the list
  kept=()
  for x in "${list[@]}"; do [[ $x =~ $ONLY ]] && kept+=("$x"); done
  list=("${kept[@]}")
fi
export -f check_one
export G SEED CHECKS="$work/checks"

printf 'kind\tfile\tcpu_verdict\tgpu_verdict\tgpu_unmeasured\tcpu_mistakes\tgpu_mistakes\tgpu_kernel_output_bytes\n' \
  > "$OUT/exercise_verdicts.tsv"
printf '%s\n' "${list[@]}" | xargs -P "$JOBS" -d '\n' -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r k f <<< "$1"; check_one "$k" "$f"' _ {} \
  | sort >> "$OUT/exercise_verdicts.tsv"

python3 - "$OUT/exercise_verdicts.tsv" > "$OUT/unexpected.txt" <<'PY'
import csv, sys
emulator_only = {"max_global_reads", "max_global_writes", "max_barriers_per_block",
                 "max_sectors_per_request", "max_bank_conflicts", "min_branch_uniformity"}
# divergent_barrier: threads that skip a __syncthreads() and exit are not waited for since
# Volta (an H200 gave the right output and synccheck reported nothing, measured 2026-11-26).
gpu_blind = {"too_many_reads", "too_many_writes", "too_many_barriers", "global_race", "race",
             "many_writers", "index_collision", "divergent_barrier", "uncoalesced",
             "bank_conflicts", "divergent_branches"}
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
for r in rows:
    k, cv, gv = r["kind"], r["cpu_verdict"], r["gpu_verdict"]
    unmeasured = set(filter(None, r["gpu_unmeasured"].split(",")))
    why = ""
    if k in ("solution", "printf"):
        if cv != "passed":
            why = "cpu should pass"
        elif gv not in ("passed", "not_verified") or not unmeasured <= emulator_only:
            why = "gpu should pass or be not_verified on emulator-only rules"
        elif gv == "not_verified" and not unmeasured:
            why = "not_verified without an unmeasured rule"
        elif k == "printf" and r["gpu_kernel_output_bytes"] == "0":
            why = "the kernel's printf was not kept"
    elif k == "mistake":
        if cv != "failed":
            why = "cpu should fail"
        elif gv == "passed":
            why = "gpu passed a planted mistake"
        elif gv == "not_verified" and not set(r["cpu_mistakes"].split()) <= gpu_blind:
            why = "gpu not_verified where the emulator saw something the GPU can see"
        elif gv not in ("failed", "not_verified"):
            why = "gpu verdict " + gv
    elif k == "forgery":
        if cv != "refused" or gv != "refused":
            why = "a forgery not refused"
    elif k == "failing":
        if cv != "failed" or gv != "failed":
            why = "should fail on both"
    if why:
        print(r["file"], cv, gv, r["gpu_unmeasured"], "|", r["cpu_mistakes"], "|",
              r["gpu_mistakes"], "->", why, sep="\t")
print(f"# {len(rows)} files checked", file=sys.stderr)
PY
tar -C "$work" -czf "$OUT/checks.tar.gz" checks
echo "$(($(date +%s) - start)) s; $(wc -l < "$OUT/unexpected.txt") unexpected rows (must be 0):"
cat "$OUT/unexpected.txt"
