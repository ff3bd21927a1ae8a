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
