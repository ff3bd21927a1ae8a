#!/usr/bin/env bash
# Whether two gpulab builds give the same profile: the JSON report and the text report (en and zh)
# of every program of the profile corpus, byte for byte, one emulator worker each (with more, the
# example drawn for a tie may come from either worker's block). A change that makes profiling
# cheaper must leave every count, line, branch and example as it was.
#
#   bench/profile/same_reports.sh OTHER_GPULAB        (from the repository root)
#
# GPULAB=path/to/gpulab (default build/cpu-only/bin/gpulab) is compared with OTHER_GPULAB.
# LARGE=1 adds the five programs of cost.sh at its sizes (a 2^20-element reduction, scan and
# histogram, a 1024x1024 transpose, a 256x256 matrix product): batches that fill, many blocks.
# Prints one line per program that differs (and the first lines of the difference); exit 1 then.
set -euo pipefail
G=${GPULAB:-build/cpu-only/bin/gpulab}
other=${1:?usage: bench/profile/same_reports.sh OTHER_GPULAB}
work=$(mktemp -d /tmp/gpulab-profile-same.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
corpus=tests/profile/corpus
programs=("$corpus"/*.cu)
if [ "${LARGE:-0}" = 1 ]; then
  mkdir -p "$work/large"
  sed 's/constexpr int N = 64;/constexpr int N = 1024;/' $corpus/transpose_tiled.cu \
    > "$work/large/transpose_tiled.cu"
  sed 's/constexpr int N = 64, TILE = 16;/constexpr int N = 256, TILE = 16;/' \
    $corpus/matmul_tiled.cu > "$work/large/matmul_tiled.cu"
  for p in reduce_sequential scan_hillis_steele histogram_shared; do
    sed 's/const int n = 8192/const int n = 1 << 20/' $corpus/$p.cu > "$work/large/$p.cu"
  done
  programs+=("$work"/large/*.cu)
fi
reports() {  # BUILD FILE OUT: the JSON and the text reports of FILE's profile
  local build=$1 file=$2 out=$3
  "$build" profile "$file" --emu-threads 1 --json --report "$out.json" > "$out.stdout" 2>&1 || true
  "$build" profile "$file" --emu-threads 1 --report "$out.txt" > /dev/null 2>&1 || true
  "$build" profile "$file" --emu-threads 1 --lang zh \
    --report "$out.zh.txt" > /dev/null 2>&1 || true
}
differ=0 same=0
for f in "${programs[@]}"; do
  name=$(basename "$f" .cu)
  [ -d "$work/large" ] && [[ $f == "$work"/large/* ]] && name="large_$name"
  reports "$G" "$f" "$work/$name.a"
  reports "$other" "$f" "$work/$name.b"
  for kind in json stdout txt zh.txt; do
    if ! cmp -s "$work/$name.a.$kind" "$work/$name.b.$kind"; then
      echo "differs: $name ($kind)"
      diff "$work/$name.a.$kind" "$work/$name.b.$kind" | head -8 || true
      differ=$((differ + 1))
      continue 2
    fi
  done
  [ -s "$work/$name.a.json" ] || { echo "no report: $name" >&2; differ=$((differ + 1)); continue; }
  same=$((same + 1))
done
echo "same: $same program(s); different: $differ"
[ "$differ" = 0 ]
