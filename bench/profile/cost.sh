#!/usr/bin/env bash
# The cost of gpulab profile against a plain gpulab run of the same program (the issue's bound:
# at most 5x). Five corpus programs made larger (so that the kernels, not the start-up, dominate),
# built once into the compile cache, then run ROUNDS times alternating run and profile; the whole
# process's CPU time (user + system, /usr/bin/time) is compared, median of the rounds. One emulator
# worker (--emu-threads 1), so that a loaded machine's scheduling does not enter the figure.
#
#   bench/profile/cost.sh [ROUNDS]        (from the repository root; GPULAB=path/to/gpulab)
set -euo pipefail
G=${GPULAB:-build/cpu-only/bin/gpulab}
rounds=${1:-5}
work=$(mktemp -d /tmp/gpulab-profile-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
corpus=tests/profile/corpus
sed 's/constexpr int N = 64;/constexpr int N = 1024;/' $corpus/transpose_tiled.cu > "$work/transpose_tiled.cu"
sed 's/constexpr int N = 64, TILE = 16;/constexpr int N = 256, TILE = 16;/' $corpus/matmul_tiled.cu > "$work/matmul_tiled.cu"
for p in reduce_sequential scan_hillis_steele histogram_shared; do
  sed 's/const int n = 8192/const int n = 1 << 20/' $corpus/$p.cu > "$work/$p.cu"
done
cpu() {  # the command's user + system CPU seconds
  /usr/bin/time -f "%U %S" -o "$work/time" "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  awk '{printf "%.2f", $1 + $2}' "$work/time"
}
echo "load: $(uptime | sed 's/.*load average: //')"
printf "%-20s %-28s %-28s %s\n" program "run (CPU s)" "profile (CPU s)" "ratio (median)"
for f in "$work"/*.cu; do
  name=$(basename "$f" .cu)
  "$G" run "$f" --emu-threads 1 > /dev/null 2>&1  # fill the cache: builds are not measured
  "$G" profile "$f" --emu-threads 1 > /dev/null 2>&1
  runs=() profiles=() ratios=()
  for _ in $(seq "$rounds"); do
    a=$(cpu "$G" run "$f" --emu-threads 1)
    b=$(cpu "$G" profile "$f" --emu-threads 1)
    runs+=("$a") profiles+=("$b")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')")
  done
  median=$(printf "%s\n" "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  printf "%-20s %-28s %-28s %sx\n" "$name" "${runs[*]}" "${profiles[*]}" "$median"
done
echo "load: $(uptime | sed 's/.*load average: //')"
