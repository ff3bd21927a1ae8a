#!/usr/bin/env bash
# On the H100 machine, from the repository root, with gpulab built in build/gpu (bin/, lib/): the
# README's examples marked "<!-- example: h100 -->" run with build/gpu/bin/gpulab and compared
# with what the README shows (tests/readme/check_readme.py; times and bandwidths compared as "#").
# Writes under $OUT (four files, for the lead to take back):
#   readme_check.txt      the GPU, then each example that printed something else (README vs gpulab)
#   readme_h100.patch     the README with those blocks regenerated, as a patch: from the
#                         repository root, `git apply readme_h100.patch` (review it: every number
#                         it changes was printed by the H100)
#   README.h100.md        the same README whole, to paste blocks from
#   readme_outputs.tgz    each command's whole output (example-NN-MM.txt)
# Exit 0 when every h100 example matches. About 1-2 minutes (twonorm and vecadd on 1 GiB of data).
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ! -x build/gpu/bin/gpulab ]]; then
  echo "readme_h100.sh: build/gpu/bin/gpulab is missing: build the GPU preset first" | tee "$OUT/readme_check.txt"
  exit 2
fi
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 tests/readme/check_readme.py README.md build/gpu/bin/gpulab --kind h100 \
    --out "$work/outputs" --write "$OUT/README.h100.md"
} > "$OUT/readme_check.txt" 2>&1
status=$?
cat "$OUT/readme_check.txt"
diff -u --label a/README.md --label b/README.md README.md "$OUT/README.h100.md" \
  > "$OUT/readme_h100.patch"
tar -czf "$OUT/readme_outputs.tgz" -C "$work" outputs
echo "readme_h100.sh: $(grep -c '^@@' "$OUT/readme_h100.patch") changed hunk(s) in $OUT/readme_h100.patch"
exit "$status"
