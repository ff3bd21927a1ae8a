#!/usr/bin/env bash
# Two gpulab builds, A and B, alternated on NVIDIA's scan and PMPP's histogram (the run corpus's
# programs; bench/run_corpus.tsv), each run cut at LIMIT seconds: each launch entry of its report
# (launches and the emulator's milliseconds a launch), and the run's own time.
#   REPOS=/work/main/.corpus bench/corpus_speed7_ab.sh A/bin/gpulab B/bin/gpulab [ROUNDS] [LIMIT]
# Settings: THREADS (--emu-threads, 2), PROGRAMS (ids, default "scan pmpp_histogram").
set -u
A=$(realpath "$1") B=$(realpath "$2") ROUNDS=${3:-2} LIMIT=${4:-60}
THREADS=${THREADS:-2} PROGRAMS=${PROGRAMS:-scan pmpp_histogram}
REPOS=$(cd "${REPOS:-.corpus}" && pwd)
manifest=$(cd "$(dirname "$0")" && pwd)/run_corpus.tsv
work=$(mktemp -d /tmp/speed7_ab.XXXXXX)
export XDG_CACHE_HOME=$work/cache
one() {  # side binary id round
  local line repo folder files flags
  line=$(awk -F'\t' -v id="$3" '$1 == id {print $2 "\t" $4 "\t" $5 "\t" $6}' "$manifest")
  IFS=$'\t' read -r repo folder files flags <<< "$line"
  local tree=$REPOS/${repo/\//+} report=$work/$3.$1.$4.json
  local f=() fl=()
  read -r -a f <<< "$files"
  read -r -a fl <<< "$flags"
  for ((i = 0; i < ${#fl[@]}; i++)); do [ "${fl[i]}" = -I ] && fl[i+1]=$tree/${fl[i+1]}; done
  local t0=$(date +%s.%N)
  (cd "$tree/$folder" && "$2" run --backend cpu --emu-threads "$THREADS" --timeout "$LIMIT" --json \
    --report "$report" "${fl[@]}" "${f[@]}" > "$work/$3.$1.$4.out" 2> /dev/null < /dev/null)
  local t1=$(date +%s.%N)
  python3 - "$report" "$1" "$3" "$4" "$(echo "$t1 - $t0" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)" << 'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
# The report's launch entries in their order (a kernel's launches with other arguments are
# entries of their own: scan's array lengths).
cells = ", ".join(f"{l['kernel']} {l['count']} x {l['emulator_ms'] / l['count']:.1f} ms"
                  for l in r.get("launches", []) if l["count"] and not l.get("unfinished"))
print(f"{sys.argv[3]} round {sys.argv[4]} {sys.argv[2]}: {float(sys.argv[5]):.1f} s, exit "
      f"{r.get('exit_code')}, timed out {r.get('timed_out')}, {r.get('launches_total')} launches; "
      f"{cells} (load {sys.argv[6]})")
EOF
}
for ((round = 1; round <= ROUNDS; round++)); do
  for id in $PROGRAMS; do
    one A "$A" "$id" "$round"
    one B "$B" "$id" "$round"
  done
done
rm -rf "$work"
