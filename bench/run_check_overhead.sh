#!/usr/bin/env bash
# What gpulab run --check costs and finds at full size (issue 23, docs/performance.md):
#   bench/run_check_overhead.sh [BUILD_DIR] [EMU_THREADS]
# Runs bench/run/check_overhead.cu (a 2^24 vector add and a 512x512 tiled matmul, CUDA events,
# median of 3) without and with --check, alternating, twice, with the load average before each;
# prints each time and the ratio --check / plain, then runs the planted bugs (a read past the
# vector add's input, a missing __syncthreads in the matmul, and the findings all over memory of
# tests/run_corpus/check/spread_findings.cu) under --check twice each with the workers asked for
# and once with one worker, and shows that the findings are there and the same all three times.
set -euo pipefail
# On the GPU machine: everything printed is kept in $OUT/run_check_overhead.txt as well.
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/run_check_overhead.txt") 2>&1
fi
BUILD=${1:-build/default}
THREADS=${2:-0}
G=$BUILD/bin/gpulab
P=bench/run/check_overhead.cu
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/gpulab-check-overhead-cache}
threads=()
[ "$THREADS" != 0 ] && threads=(--emu-threads "$THREADS")
$G run --backend cpu "${threads[@]}" $P > /dev/null            # compile both builds once
$G run --backend cpu --check "${threads[@]}" $P > /dev/null || true
for round in 1 2; do
  for mode in plain check; do
    flag=()
    [ $mode = check ] && flag=(--check)
    echo "round $round load $(cut -d' ' -f1 /proc/loadavg) $mode: $($G run --backend cpu "${flag[@]}" "${threads[@]}" --timeout 600 $P | tr '\n' ' ')"
  done
done | tee /tmp/check_overhead.$$
python3 - /tmp/check_overhead.$$ <<'PY'
import re, sys
rounds = {}
for line in open(sys.argv[1]):
    m = re.match(r"round (\d) load \S+ (\w+): vector add 2\^24: median ([0-9.]+) ms matmul 512: median ([0-9.]+) ms", line)
    if m:
        rounds.setdefault(m.group(1), {})[m.group(2)] = (float(m.group(3)), float(m.group(4)))
for r, v in sorted(rounds.items()):
    if len(v) == 2:
        print(f"round {r}: --check / plain: vector add {v['check'][0] / v['plain'][0]:.1f}x (target <= 10x), "
              f"matmul {v['check'][1] / v['plain'][1]:.1f}x (target <= 5x)")
PY
rm -f /tmp/check_overhead.$$
# The findings (JSON; addresses masked, they move from run to run) of each planted bug: twice with
# the workers asked for, once with one worker; all three must be the same.
findings() {
  python3 -c '
import json, re, sys
t = sys.stdin.read()
m = re.search(r"^\{", t, re.M)
if m is None:
    print("no JSON report"); sys.exit()
d = json.loads(t[m.start():])
s = json.dumps(d["findings"], sort_keys=True)
s = re.sub(r"0x[0-9a-f]{6,}", "0xADDR", s)
s = re.sub(r"\"address\": [0-9]+", "\"address\": 0", s)
print(s)'
}
# tests/run_corpus/check/spread_findings.cu: races, reads never written and reads past an
# allocation all over memory, each block's check split by address among the workers.
S=tests/run_corpus/check/spread_findings.cu
for bug in oob nosync spread; do
  runs=()
  for t in "${threads[@]:+${threads[1]}}" "${threads[@]:+${threads[1]}}" 1; do
    w=(); [ -n "$t" ] && w=(--emu-threads "$t")
    program=($P -- $bug); [ $bug = spread ] && program=($S)
    # (gpulab run exits 1 when it finds something)
    runs+=("$( ($G run --backend cpu --check "${w[@]}" --json --timeout 600 "${program[@]}" 2>&1 || true) | findings)")
  done
  printf '%s\n' "${runs[0]}" | python3 -c '
import json, sys
for f in json.loads(sys.stdin.read()):
    print("'$bug':", f.get("kind"), "at", f.get("where", ""), "-", f.get("message", "")[:110])'

  if [ "${runs[0]}" = "${runs[1]}" ] && [ "${runs[0]}" = "${runs[2]}" ]; then
    echo "$bug: the same findings in both runs and with one worker"
  else
    echo "$bug: FINDINGS DIFFER"; printf '%s\n' "${runs[@]}"
  fi
done
