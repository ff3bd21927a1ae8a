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
for round in $(seq "$ROUNDS"); do
  for kernel in vecadd matmul reduce shfl matrixmul; do
    for runner in emu_bench emu_bench_fibers emu_bench_hipcpu; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      line=$("$BUILD/bin/$runner" --only "$kernel" "$@" | grep -E ' ok$| WRONG RESULT$' | head -1)
      echo "round $round load $load $runner: $line" | tee -a "$LOG"
    done
  done
done
python3 - "$LOG" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"round (\d+) load ([0-9.]+) (\S+): (.{16}).*kernel +([0-9.]+) ms.*serial loop +([0-9.]+) ms", line)
    if not m:
        continue
    rnd, load, runner, name, kernel, serial = m.groups()
    rows.setdefault(name.strip(), {}).setdefault(int(rnd), {})[runner] = (float(kernel), float(serial), float(load))
print()
print("median over rounds (kernel wall ms; ratios taken within a round):")
print(f"{'kernel':16} {'gpulab':>10} {'fibers':>10} {'HIP-CPU':>10} {'gpulab/HIP':>10} {'fibers/HIP':>10} {'gpulab/serial':>13} {'loads':>16}")
for name, rounds in rows.items():
    full = [r for r in rounds.values() if len(r) == 3]
    if not full:
        continue
    med = lambda xs: statistics.median(xs)
    g = med([r["emu_bench"][0] for r in full])
    f = med([r["emu_bench_fibers"][0] for r in full])
    h = med([r["emu_bench_hipcpu"][0] for r in full])
    gh = med([r["emu_bench"][0] / r["emu_bench_hipcpu"][0] for r in full])
    fh = med([r["emu_bench_fibers"][0] / r["emu_bench_hipcpu"][0] for r in full])
    gs = med([r["emu_bench"][0] / r["emu_bench"][1] for r in full])
    loads = sorted(x[2] for r in full for x in r.values())
    print(f"{name:16} {g:10.1f} {f:10.1f} {h:10.1f} {gh:9.2f}x {fh:9.2f}x {gs:12.1f}x {loads[0]:7.1f}-{loads[-1]:<7.1f}")
PY
