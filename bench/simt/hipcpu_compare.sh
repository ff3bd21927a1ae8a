#!/usr/bin/env bash
# The emulator benchmark against ROCm's HIP-CPU, side by side in one run (docs/performance.md).
#   bench/simt/hipcpu_compare.sh HIP_CPU_DIR [BUILD_DIR] [ROUNDS] [emu_bench arguments...]
# HIP_CPU_DIR: a checkout of https://github.com/ROCm/HIP-CPU (header-only; never vendored here).
# Needs TBB (Debian: libtbb-dev). Builds bench/simt/emu_bench.cpp against HIP-CPU with g++ -O3
# (HIP-CPU's recommended flags) into $BUILD_DIR/bin/emu_bench_hipcpu. Then, ROUNDS times (default
# 3), for each kernel: gpulab's emu_bench (kernels as gpulab run builds them), emu_bench_fibers
# (the same kernels as written: the fiber path) and the HIP-CPU build, one after the other, each
# with the load average before it. Prints every line, then per kernel the median of each runner's
# kernel time and of the ratios gpulab / HIP-CPU and gpulab / serial loop, taken round by round.
# BEFORE=path/to/emu_bench (a build of an earlier commit) adds it to every round, and the
# summary gives after / before; KERNELS="vecadd shfl" picks the kernels (default: all five), and
# FIBERS=0 leaves emu_bench_fibers out (the fiber path's shfl reduction alone takes half a minute).
set -euo pipefail
HIP=${1:?usage: hipcpu_compare.sh HIP_CPU_DIR [BUILD_DIR] [ROUNDS] [emu_bench arguments...]}
BUILD=${2:-build/default}
ROUNDS=${3:-3}
shift $(( $# >= 3 ? 3 : $# ))
HIPBIN=$BUILD/bin/emu_bench_hipcpu
if [ ! -x "$HIPBIN" ] || [ bench/simt/emu_bench.cpp -nt "$HIPBIN" ] ||
   [ bench/simt/emu_bench_kernels.cuh -nt "$HIPBIN" ]; then
  g++ -O3 -std=c++17 -DEMU_BENCH_HIP_CPU -I"$HIP/include" bench/simt/emu_bench.cpp -o "$HIPBIN" \
    -ltbb -lpthread
fi
echo "HIP-CPU: $(git -C "$HIP" rev-parse HEAD 2>/dev/null || echo "$HIP (not a git checkout)"), g++ $(g++ -dumpfullversion) -O3 -std=c++17, TBB $(dpkg-query -W -f '${Version}' libtbb-dev 2>/dev/null || echo '?')"
echo "cores: $(nproc)"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
RUNNERS="emu_bench$([ "${FIBERS:-1}" = 0 ] || echo " emu_bench_fibers") emu_bench_hipcpu${BEFORE:+ before}"
for round in $(seq "$ROUNDS"); do
  for kernel in ${KERNELS:-vecadd matmul reduce shfl matrixmul}; do
    for runner in $RUNNERS; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      bin=$BUILD/bin/$runner
      [ "$runner" = before ] && bin=$BEFORE
      line=$("$bin" --only "$kernel" "$@" | grep -E ' ok$| WRONG RESULT$' | head -1)
      echo "round $round load $load $runner: $line" | tee -a "$LOG"
    done
  done
done
python3 - "$LOG" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"round (\d+) load ([0-9.]+) (\S+): (.{16}).*kernel +([0-9.]+) ms \(cpu +([0-9.]+)\).*serial loop +([0-9.]+) ms", line)
    if not m:
        continue
    rnd, load, runner, name, kernel, cpu, serial = m.groups()
    rows.setdefault(name.strip(), {}).setdefault(int(rnd), {})[runner] = (float(kernel), float(serial), float(load), float(cpu))
print()
print("median over rounds (kernel wall ms; ratios taken within a round):")
print(f"{'kernel':16} {'gpulab':>10} {'fibers':>10} {'HIP-CPU':>10} {'gpulab/HIP':>10} {'fibers/HIP':>10} {'gpulab/serial':>13} {'loads':>16}")
runners = {k for rounds in rows.values() for r in rounds.values() for k in r}
need = len(runners)
for name, rounds in rows.items():
    full = [r for r in rounds.values() if len(r) == need]
    if not full:
        continue
    med = lambda xs: statistics.median(xs)
    g = med([r["emu_bench"][0] for r in full])
    fibers = "emu_bench_fibers" in runners
    f = med([r["emu_bench_fibers"][0] for r in full]) if fibers else float("nan")
    h = med([r["emu_bench_hipcpu"][0] for r in full])
    gh = med([r["emu_bench"][0] / r["emu_bench_hipcpu"][0] for r in full])
    fh = med([r["emu_bench_fibers"][0] / r["emu_bench_hipcpu"][0] for r in full]) if fibers else float("nan")
    gs = med([r["emu_bench"][0] / r["emu_bench"][1] for r in full])
    loads = sorted(x[2] for r in full for x in r.values())
    print(f"{name:16} {g:10.1f} {f:10.1f} {h:10.1f} {gh:9.2f}x {fh:9.2f}x {gs:12.1f}x {loads[0]:7.1f}-{loads[-1]:<7.1f}")
    hc = med([r["emu_bench"][3] / r["emu_bench_hipcpu"][3] for r in full])
    line = f"{'':16} CPU time: gpulab / HIP-CPU {hc:.2f}x"
    if "before" in runners:
        b = med([r["before"][0] for r in full])
        ab = med([r["emu_bench"][0] / r["before"][0] for r in full])
        abc = med([r["emu_bench"][3] / r["before"][3] for r in full])
        bh = med([r["before"][0] / r["emu_bench_hipcpu"][0] for r in full])
        bhc = med([r["before"][3] / r["emu_bench_hipcpu"][3] for r in full])
        line += (f"; before {b:.1f} ms, before / HIP-CPU {bh:.2f}x (CPU {bhc:.2f}x);"
                 f" after / before {ab:.2f}x (CPU {abc:.2f}x)")
    print(line)
PY
