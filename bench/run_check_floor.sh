#!/usr/bin/env bash
# The floor of a per-access check against issue 23's --check bounds (docs/performance.md, "The
# floor of a per-access check"):
#   bench/run_check_floor.sh [BUILD_DIR] [ROUNDS]
# Builds bench/run/check_floor.cpp (check_overhead.cu's vector add and tiled matmul as plain
# loops over the threads, -O1 as gpulab's checked builds) with no hooks and with -fsanitize=thread
# and hooks that only record each access (check_floor_hooks.cpp), then runs, alternating, ROUNDS
# times (default 3): gpulab run's plain emulator run of check_overhead.cu, the unhooked loops and
# the hooked loops, all on one core (--emu-threads 1), and prints each against the plain run.
set -euo pipefail
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/run_check_floor.txt") 2>&1
fi
BUILD=${1:-build/default}
ROUNDS=${2:-3}
G=$BUILD/bin/gpulab
CXX=${CXX:-g++}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/gpulab-check-floor-cache}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$CXX -std=c++20 -O1 bench/run/check_floor.cpp -o "$work/no_hooks"
$CXX -std=c++20 -O1 -fsanitize=thread -c bench/run/check_floor.cpp -o "$work/hooked.o"
$CXX -std=c++20 -O2 -c bench/run/check_floor_hooks.cpp -o "$work/hooks.o"
$CXX "$work/hooked.o" "$work/hooks.o" -o "$work/record_only"  # no TSan runtime: the hooks are ours
$G run --backend cpu --emu-threads 1 bench/run/check_overhead.cu > /dev/null 2>&1  # compile once
for round in $(seq "$ROUNDS"); do
  echo "round $round load $(cut -d' ' -f1 /proc/loadavg) gpulab: $($G run --backend cpu --emu-threads 1 bench/run/check_overhead.cu 2>/dev/null | tr '\n' ' ')"
  echo "round $round load $(cut -d' ' -f1 /proc/loadavg) no_hooks: $("$work/no_hooks" | tr '\n' ' ')"
  echo "round $round load $(cut -d' ' -f1 /proc/loadavg) record_only: $("$work/record_only" | tr '\n' ' ')"
done | tee "$work/times"
python3 - "$work/times" <<'PY'
import re, sys
rounds = {}
for line in open(sys.argv[1]):
    m = re.match(r"round (\d+) load \S+ (\w+): vector add 2\^24: median ([0-9.]+) ms matmul 512: median ([0-9.]+) ms", line)
    if m:
        rounds.setdefault(int(m.group(1)), {})[m.group(2)] = (float(m.group(3)), float(m.group(4)))
for r, v in sorted(rounds.items()):
    if len(v) != 3:
        continue
    p = v["gpulab"]
    print(f"round {r}, against gpulab's plain run: -O1 loops without hooks: vector add "
          f"{v['no_hooks'][0] / p[0]:.1f}x, matmul {v['no_hooks'][1] / p[1]:.1f}x; hooks that only "
          f"record: vector add {v['record_only'][0] / p[0]:.1f}x (bound 10x), matmul "
          f"{v['record_only'][1] / p[1]:.1f}x (bound 5x)")
PY
