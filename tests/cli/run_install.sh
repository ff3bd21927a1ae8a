#!/bin/sh
# gpulab run from an installed gpulab (cmake --install), started in a folder of its own: the kit
# must come with the binary.
set -eu
build=$1
src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
mkdir "$prefix/work"
cd "$prefix/work"
cp "$src/tests/run_corpus/ok/shfl_atomics.cu" .
out=$(XDG_CACHE_HOME="$prefix/cache" "$prefix/bin/gpulab" run --backend cpu shfl_atomics.cu 2>"$prefix/err") || {
  cat "$prefix/err"
  exit 1
}
expected=$(cat "$src/tests/run_corpus/ok/shfl_atomics.out")
if [ "$out" != "$expected" ]; then
  echo "installed gpulab run printed: $out"
  exit 1
fi
echo "installed gpulab run: ok"

# cuBLAS's OpenBLAS, as kit.json names it, gone since the build: one line naming it and exit 1;
# the same file in <prefix>/lib (a copied gpulab carries it there): the program runs.
kit="$prefix/lib/gpulab/run/kit.json"
blas=$(python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["cublas_shared_libraries"]; print(l[0] if l else "")' "$kit")
cp "$src/tests/run_corpus/ok/cublas_gemm.cu" .
if [ -z "$blas" ]; then
  # Built without OpenBLAS: refused by name.
  if XDG_CACHE_HOME="$prefix/cache" "$prefix/bin/gpulab" run --backend cpu cublas_gemm.cu 2>"$prefix/err"; then
    echo "a cuBLAS program ran on a gpulab built without OpenBLAS"
    exit 1
  fi
  grep -q "built without it" "$prefix/err" || { cat "$prefix/err"; exit 1; }
  echo "installed gpulab run, no OpenBLAS: refused by name"
  exit 0
fi
name=$(basename "$blas")
python3 -c 'import json, sys; k = json.load(open(sys.argv[1])); k["cublas_shared_libraries"] = ["/nonexistent/" + sys.argv[2]]; json.dump(k, open(sys.argv[1], "w"))' "$kit" "$name"
# refused PROGRAM TEXT: gpulab run exits 1 with one line on stderr that holds TEXT.
refused() {
  status=0
  XDG_CACHE_HOME="$prefix/cache" "$prefix/bin/gpulab" run --backend cpu "$1" >/dev/null 2>"$prefix/err" || status=$?
  if [ "$status" != 1 ] || [ "$(wc -l <"$prefix/err")" != 1 ] || ! grep -q "$2" "$prefix/err"; then
    echo "$1: exit $status, stderr:"
    cat "$prefix/err"
    exit 1
  fi
}
refused cublas_gemm.cu "/nonexistent/$name (found when gpulab was built), which is not there now: install libopenblas-dev"
cp "$blas" "$prefix/lib/$name"
out=$(XDG_CACHE_HOME="$prefix/cache" "$prefix/bin/gpulab" run --backend cpu cublas_gemm.cu 2>"$prefix/err") || {
  cat "$prefix/err"
  exit 1
}
if [ "$out" != "$(cat "$src/tests/run_corpus/ok/cublas_gemm.out")" ]; then
  echo "cuBLAS with OpenBLAS in <prefix>/lib printed: $out"
  exit 1
fi
echo "installed gpulab run, OpenBLAS missing then in <prefix>/lib: named, then ran"

# Any library the emulator links every program with, gone: the same one line, naming it.
python3 -c 'import json, sys; k = json.load(open(sys.argv[1])); k["shared_libraries"][0] = "/nonexistent/libgpulab-test-gone.so.1"; json.dump(k, open(sys.argv[1], "w"))' "$kit"
refused shfl_atomics.cu "/nonexistent/libgpulab-test-gone.so.1 (found when gpulab was built), which is not there now"
echo "installed gpulab run, a kit library missing: named"
