#!/usr/bin/env bash
# The cost of gpulab profile against a plain gpulab run of the same program (the issue's bound:
# at most 5x). Five corpus programs made larger (so that the kernels, not the start-up, dominate),
# built once into the compile cache, then run ROUNDS times alternating run and profile; the whole
# process's CPU time (user + system, /usr/bin/time) is compared, median of the rounds. One emulator
# worker (--emu-threads 1), so that a loaded machine's scheduling does not enter the figure.
#
#   bench/profile/cost.sh [ROUNDS]        (from the repository root; GPULAB=path/to/gpulab)
#
# BEFORE=path/to/other/gpulab adds that build's profile to each round, alternating with this one's
# (run, profile, other build's profile), so that a change to the profile is measured against the
# build before it under the same load: a second ratio column, the other build's profile / run.
set -euo pipefail
G=${GPULAB:-build/cpu-only/bin/gpulab}
before=${BEFORE:-}
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
if [ -n "$before" ]; then
  printf "%-20s %-22s %-22s %-22s %-9s %s\n" program "run (CPU s)" "profile (CPU s)" \
    "BEFORE's profile" "ratio" "BEFORE's ratio (medians)"
else
  printf "%-20s %-28s %-28s %s\n" program "run (CPU s)" "profile (CPU s)" "ratio (median)"
fi
for f in "$work"/*.cu; do
  name=$(basename "$f" .cu)
  "$G" run "$f" --emu-threads 1 > /dev/null 2>&1  # fill the cache: builds are not measured
  "$G" profile "$f" --emu-threads 1 > /dev/null 2>&1
  [ -z "$before" ] || "$before" profile "$f" --emu-threads 1 > /dev/null 2>&1
  runs=() profiles=() ratios=() others=() other_ratios=()
  for _ in $(seq "$rounds"); do
    a=$(cpu "$G" run "$f" --emu-threads 1)
    b=$(cpu "$G" profile "$f" --emu-threads 1)
    runs+=("$a") profiles+=("$b")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')")
    if [ -n "$before" ]; then
      c=$(cpu "$before" profile "$f" --emu-threads 1)
      others+=("$c")
      other_ratios+=("$(awk -v a="$a" -v c="$c" 'BEGIN { printf "%.2f", c / a }')")
    fi
  done
  median() { printf "%s\n" "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
  if [ -n "$before" ]; then
    printf "%-20s %-22s %-22s %-22s %-9s %sx\n" "$name" "${runs[*]}" "${profiles[*]}" \
      "${others[*]}" "$(median "${ratios[@]}")x" "$(median "${other_ratios[@]}")"
  else
    printf "%-20s %-28s %-28s %sx\n" "$name" "${runs[*]}" "${profiles[*]}" "$(median "${ratios[@]}")"
  fi
done
echo "load: $(uptime | sed 's/.*load average: //')"
