#!/usr/bin/env bash
# gpulab exercise grade on the GPU machine (16 cores): a class of every course solution plus
# three hostile submissions (an endless loop, 200 MB of kernel printf, a memory hog), graded on
# the emulator with --jobs 16, then the solutions alone with --jobs 16 and --jobs 1, each run
# with a fresh compile cache (the ratio of the two wall times is what grading on every core gives), and the solutions on --backend gpu (contained with the NVIDIA devices bound
# in). After each run no process of the run may be left.
#
# Writes $OUT/grade_summary.txt (the containment used, wall times, verdict counts, leftover
# processes) and $OUT/grade.tar.gz (each run's --json and the JUnit XML).
#
# Expected:
#   emulator: every solution's row `passed`, loop/flood/hog `failed` (timeout or output_limit;
#             hog: a crash or a fault), 21 rows; leftover processes 0 after each run;
#             jobs16 wall well under jobs1 wall (about 8x or more on 16 cores);
#   gpu:      every solution `not_verified` (the per-thread rules need the emulator), none
#             `failed` or `not_graded`; containment "bubblewrap" if bwrap works there, else
#             "limits" with the reason; leftover 0.
# Run from the repository root, with the binaries of build/gpu (well under 5 minutes):
#   OUT=/tmp/out bench/grade_h100.sh
set -euo pipefail
G=${GPULAB:-build/gpu/bin/gpulab}
OUT=${OUT:?set OUT to a folder for the results}
SEED=${SEED:-2026}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT" "$work/class" "$work/json"
export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state"
summary="$OUT/grade_summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

# The class: one folder per solution ("sol-NN"), and three hostile students.
ids=$("$G" exercise --json | python3 -c 'import json,sys; print(" ".join("%02d-%s" % (e["number"], e["id"]) for e in json.load(sys.stdin)["exercises"]))')
for name in $ids; do
  id=${name#*-}
  mkdir -p "$work/class/sol-$name"
  { echo "// gpulab exercise: $id"; "$G" exercise solution "$id"; } > "$work/class/sol-$name/$name.cu"
done
mkdir -p "$work/class/zz-loop" "$work/class/zz-flood" "$work/class/zz-hog"
printf '// gpulab exercise: map\n__global__ void map_add_ten(const float* a, float* out, int n) {\n  int i = threadIdx.x;\n  while (n > -1) out[i] = a[i] + 10.0f;\n}\n' > "$work/class/zz-loop/01-map.cu"
python3 - "$work/class/zz-flood/01-map.cu" <<'PY'
import sys
open(sys.argv[1], "w").write('// gpulab exercise: map\n#include <cstdio>\n__global__ void map_add_ten(const float* a, float* out, int n) {\n  int i = threadIdx.x;\n  for (int k = 0; k < 100000; ++k) printf("%d %d %s\\n", i, k, "' + "x" * 2000 + '");\n  if (i < n) out[i] = a[i] + 10.0f;\n}\n')
PY
printf '// gpulab exercise: map\n__device__ float hog[1 << 28];\n__global__ void map_add_ten(const float* a, float* out, int n) {\n  int i = threadIdx.x;\n  for (int k = 0; k < (1 << 28); k += 1024) hog[k + i] = 1;\n  if (i < n) out[i] = a[i] + 10.0f;\n}\n' > "$work/class/zz-hog/01-map.cu"

leftovers() { pgrep -f "$work" | grep -v "^$$\$" | wc -l || true; }

run() {  # NAME ARGS...
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  # A fresh compile cache for each run: every run builds what it grades, as a teacher's first one.
  XDG_CACHE_HOME="$work/cache-$name" "$G" exercise grade "$@" --seed "$SEED" --json --junit "$work/json/$name.xml" \
    > "$work/json/$name.json" 2> "$work/json/$name.err" || true
  t1=$(date +%s.%N)
  python3 - "$work/json/$name.json" "$name" "$t0" "$t1" "$(leftovers)" <<'PY' | tee -a "$summary"
import json, sys
path, name, t0, t1, left = sys.argv[1:]
wall = float(t1) - float(t0)
try:
    j = json.load(open(path))
except Exception as e:
    print(f"{name}: no JSON ({e})")
    sys.exit(0)
c = j["containment"]
print(f"{name}: {j['rows']} rows in {float(wall):.1f} s wall, jobs {j['jobs']}, containment "
      f"{c['mode']} {c['why_not']}; {j['summary']}; leftover processes {left}")
for r in j["results"]:
    print(f"  {r['student']:12} {r['exercise']:12} {r['verdict']:13} "
          f"{' '.join(d['mistake'] for d in r['diagnoses'])[:80]}")
PY
}

say "gpulab: $("$G" --version); bwrap: $(command -v bwrap || echo none); cores: $(nproc)"
run emu_class_jobs16 "$work/class" --jobs 16 --timeout 20 --memory 2048
# Grading on every core, measured on the solutions alone (a hostile row's 20 s timeout would
# bound the wall time of the parallel run): the same 20 files with 16 jobs and with 1.
mkdir -p "$work/gpu"
cp -r "$work"/class/sol-* "$work/gpu/"
run emu_sols_jobs16 "$work/gpu" --jobs 16 --timeout 20 --memory 2048
[ -n "${SKIP_JOBS1:-}" ] || run emu_sols_jobs1 "$work/gpu" --jobs 1 --timeout 20 --memory 2048
[ -n "${SKIP_GPU:-}" ] || run gpu_jobs8 "$work/gpu" --jobs 8 --timeout 60 --backend gpu
tar -czf "$OUT/grade.tar.gz" -C "$work" json
