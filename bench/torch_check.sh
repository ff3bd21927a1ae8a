#!/usr/bin/env bash
# On the GPU machine: builds gpulab_torch the three ways (pip, load(), load_inline()), runs its
# tests against the first two, then bench/torch_ops.py; prints a summary, logs go to $OUT if set.
#
# Run from the repository root: bench/torch_check.sh. Needs PyTorch with CUDA, nvcc and ninja;
# no network (pip runs with --no-build-isolation --no-deps --no-index). Caches live under /tmp.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export TORCH_EXTENSIONS_DIR=/tmp/gpulab_torch_ext  # load() and load_inline() build cache
export TORCHINDUCTOR_CACHE_DIR=/tmp/gpulab_torch_inductor
export TRITON_CACHE_DIR=/tmp/gpulab_torch_triton
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}  # the H100 alone: one architecture builds faster
export MAX_JOBS=${MAX_JOBS:-5}                            # per build; the three builds run at once
PY=${PYTHON:-python3}
TARGET=/tmp/gpulab_torch_pip  # pip install --target
LOG=/tmp/gpulab_torch_logs
rm -rf "$LOG" "$TARGET" python/gpulab_torch/build
mkdir -p "$LOG"
START=$SECONDS
STEPS=()

# step NAME SECONDS COMMAND...: runs it with a time limit; output in $LOG/NAME.log, exit code
# and seconds in $LOG/NAME.rc (steps may run in the background).
step() {
  local name=$1 limit=$2 t=$SECONDS rc
  shift 2
  timeout "$limit" "$@" > "$LOG/$name.log" 2>&1
  rc=$?
  echo "$rc $((SECONDS - t))" > "$LOG/$name.rc"
  echo "== $name: rc=$rc in $((SECONDS - t)) s (at $((SECONDS - START)) s)"
  [ $rc = 0 ] || tail -30 "$LOG/$name.log"
  return $rc
}

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -2
  echo "ninja $(ninja --version)"
  "$PY" -c 'import torch, setuptools; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.is_available(), "setuptools", setuptools.__version__)'
} 2>&1 | tee "$LOG/versions.txt"

if "$PY" -c 'import pytest' 2>/dev/null; then
  TESTS=("$PY" -m pytest -v -rs python/gpulab_torch/tests)
else
  TESTS=("$PY" -m unittest discover -v -s python/gpulab_torch/tests)
fi

echo "== building the three ways at once"
STEPS+=(build_pip build_load build_load_inline)
# 1. pip install, the release way: setup.py with CUDAExtension + BuildExtension. pip builds a
# wheel, which needs the wheel package or setuptools >= 70.1; without either (and no network to
# fetch one) the same setup.py builds the extension with build_ext into the same target.
if "$PY" -c 'import wheel' 2>/dev/null ||
  "$PY" -c 'import setuptools, sys; v = tuple(int(x) for x in setuptools.__version__.split(".")[:2]); sys.exit(v < (70, 1))'; then
  step build_pip 360 "$PY" -m pip install --no-build-isolation --no-deps --no-index -v \
    --target "$TARGET" ./python/gpulab_torch &
else
  echo "pip cannot build a wheel here (no wheel package, setuptools < 70.1): setup.py build_ext instead"
  step build_pip 360 bash -c "cd python/gpulab_torch && '$PY' setup.py build_ext --build-lib '$TARGET' &&
    cp -r gpulab_torch/*.py '$TARGET/gpulab_torch/'" &
fi
# 2. load(), the development way: the example builds csrc/ into the cache and calls the ops.
step build_load 360 "$PY" python/examples/load_jit.py &
# 3. load_inline(): add2 from strings with cpp_sources declaring it; it checks itself.
step build_load_inline 360 "$PY" python/examples/load_inline_add2.py &
wait
ok() { [ "$(cut -d' ' -f1 "$LOG/$1.rc" 2>/dev/null)" = 0 ]; }

# The same load() again: the cache turns the build into a load.
STEPS+=(load_cached)
step load_cached 120 "$PY" python/examples/load_jit.py && grep "load():" "$LOG/load_cached.log"

if ok build_pip; then
  STEPS+=(tests_pip)
  step tests_pip 240 env GPULAB_TORCH_BUILD=installed PYTHONPATH="$TARGET" "${TESTS[@]}"
fi
if ok build_load; then
  STEPS+=(tests_load)
  step tests_load 240 env GPULAB_TORCH_BUILD=jit "${TESTS[@]}"
fi
STEPS+=(bench)
if ok build_pip; then
  step bench 300 env GPULAB_TORCH_BUILD=installed PYTHONPATH="$TARGET" \
    "$PY" bench/torch_ops.py --json "$LOG/torch_ops.json"
else
  step bench 300 env GPULAB_TORCH_BUILD=jit "$PY" bench/torch_ops.py --json "$LOG/torch_ops.json"
fi
echo
cat "$LOG/bench.log"

echo
echo "== summary ($((SECONDS - START)) s in all)"
for s in "${STEPS[@]}"; do
  read -r rc secs < "$LOG/$s.rc" 2>/dev/null || { rc="?"; secs="?"; }
  printf '  %-18s %-5s rc=%-4s %s s\n' "$s" "$([ "$rc" = 0 ] && echo PASS || echo FAIL)" "$rc" "$secs"
done
for s in tests_pip tests_load; do
  [ -f "$LOG/$s.log" ] && echo "  $s: $(grep -E "passed|failed|^OK|^FAILED|^Ran " "$LOG/$s.log" | tail -2 | tr '\n' ' ')"
done
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  tar czf "$OUT/torch_logs.tgz" -C "$LOG" .
  cp "$LOG/bench.log" "$LOG/versions.txt" "$OUT/" 2>/dev/null
  cp "$LOG/torch_ops.json" "$OUT/" 2>/dev/null
fi
FAILS=0
for s in "${STEPS[@]}"; do ok "$s" || FAILS=$((FAILS + 1)); done
echo "  $FAILS step(s) failed"
[ $FAILS = 0 ]
