#!/usr/bin/env bash
# The emulator benchmark against ROCm's HIP-CPU, side by side in one run (docs/performance.md).
#   bench/simt/hipcpu_compare.sh HIP_CPU_DIR [BUILD_DIR] [emu_bench arguments...]
# HIP_CPU_DIR: a checkout of https://github.com/ROCm/HIP-CPU (header-only; never vendored here).
# Needs TBB (Debian: libtbb-dev). Builds bench/simt/emu_bench.cpp against HIP-CPU with g++ -O3
# (HIP-CPU's recommended flags) into $BUILD_DIR/bin/emu_bench_hipcpu, then runs gpulab's emu_bench
# and the HIP-CPU build of the same kernels one after the other, twice.
set -euo pipefail
HIP=${1:?usage: hipcpu_compare.sh HIP_CPU_DIR [BUILD_DIR] [emu_bench arguments...]}
BUILD=${2:-build/default}
shift $(( $# >= 2 ? 2 : 1 ))
HIPBIN=$BUILD/bin/emu_bench_hipcpu
if [ ! -x "$HIPBIN" ] || [ bench/simt/emu_bench.cpp -nt "$HIPBIN" ]; then
  g++ -O3 -std=c++17 -DEMU_BENCH_HIP_CPU -I"$HIP/include" bench/simt/emu_bench.cpp -o "$HIPBIN" \
    -ltbb -lpthread
fi
echo "HIP-CPU: $(git -C "$HIP" rev-parse HEAD 2>/dev/null || echo "$HIP (not a git checkout)"), g++ $(g++ -dumpfullversion) -O3 -std=c++17, TBB $(dpkg-query -W -f '${Version}' libtbb-dev 2>/dev/null || echo '?')"
for round in 1 2; do
  echo "== round $round"
  "$BUILD/bin/emu_bench" "$@"
  "$HIPBIN" "$@"
done
