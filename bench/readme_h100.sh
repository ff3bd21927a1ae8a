#!/usr/bin/env bash
# On the H100 machine, from the repository root: the README's examples marked
# "<!-- example: h100 -->" run with build/gpu/bin/gpulab and compared with what the README shows
# (tests/readme/check_readme.py; times and bandwidths compared as "#"). Each command's output is
# saved in $OUT/readme/. Exit 0 when all match. To take new outputs into the README instead:
#   python3 tests/readme/check_readme.py README.md build/gpu/bin/gpulab --kind h100 --update
# (then review the diff: every number it changes was printed by the H100).
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT/readme"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/readme/gpu.txt"
python3 tests/readme/check_readme.py README.md build/gpu/bin/gpulab --kind h100 \
  --out "$OUT/readme" 2>&1 | tee "$OUT/readme/check.txt"
exit "${PIPESTATUS[0]}"
