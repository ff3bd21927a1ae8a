#!/usr/bin/env bash
# On the GPU machine, from the repository root: each program of bench/run_corpus.tsv built and run
# with nvcc on the GPU (gpulab run --backend gpu) and on the emulator (--backend cpu), unmodified,
# from checkouts of their repositories. Compares exit codes and the output lines that do not
# change from run to run (timings, throughputs, device names and clocks left out), and writes the
# table to $OUT/run_corpus.md, logs beside it.
#   REPOS=/path/to/checkouts bench/run_corpus.sh   (REPOS/<owner>+<name> at the manifest's commit,
#   e.g. REPOS/NVIDIA+cuda-samples)
set -uo pipefail
OUT=${OUT:-out}
REPOS=${REPOS:?set REPOS to the folder holding the checkouts (owner+name)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/gpulab-run-corpus-cache}
G=$(realpath "${G:-build/gpu/bin/gpulab}")
stable() {  # the lines that do not depend on the machine or the moment
  grep -v -i -E 'time|[0-9] ?ms\b|msec|GB/s|GFlop|throughput|bandwidth|clock|device [0-9]|GPU Device|using device|name:|emulator|NVIDIA|H100|\[.*\] - Starting' "$1" || true
}
printf '| program | GPU exit | emulator exit | stable lines equal |\n|---|---|---|---|\n' > "$OUT/run_corpus.md"
grep -v '^#' bench/run_corpus.tsv | while IFS=$'\t' read -r id repo commit dir files flags args expected; do
  [ -n "$id" ] || continue
  root="$REPOS/${repo/\//+}"
  if [ "$(git -C "$root" rev-parse HEAD 2>/dev/null)" != "$commit" ]; then
    echo "| $id | checkout of $repo at $commit missing | | |" >> "$OUT/run_corpus.md"
    continue
  fi
  flagv=()
  set -- $flags
  while [ $# -gt 0 ]; do
    if [ "$1" = "-I" ]; then flagv+=("-I" "$root/$2"); shift 2; else flagv+=("$1"); shift; fi
  done
  filev=()
  for f in $files; do filev+=("$f"); done
  (cd "$root/$dir" && timeout 600 "$G" run --backend gpu "${flagv[@]}" "${filev[@]}" -- $args \
     > "$OUT/$id.gpu.out" 2> "$OUT/$id.gpu.err"); g=$?
  (cd "$root/$dir" && timeout 600 "$G" run --backend cpu "${flagv[@]}" "${filev[@]}" -- $args \
     > "$OUT/$id.cpu.out" 2> "$OUT/$id.cpu.err"); c=$?
  if diff <(stable "$OUT/$id.gpu.out") <(stable "$OUT/$id.cpu.out") > "$OUT/$id.diff"; then
    same=yes
  else
    same="no ($(wc -l < "$OUT/$id.diff") diff lines)"
  fi
  echo "| $id | $g | $c | $same |" >> "$OUT/run_corpus.md"
  echo "$id: gpu $g, emulator $c, stable lines equal: $same"
done
cat "$OUT/run_corpus.md"
