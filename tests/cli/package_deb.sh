#!/bin/sh
# cpack -G DEB in a build folder: the package holds the binary, the run kit, the man pages and the
# bash completion, declares its libraries, and the gpulab extracted from it runs (dpkg-deb -x: no
# root needed).
set -eu
build=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! (cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1); then
  cat "$out/cpack.log"
  exit 1
fi
deb=$(ls "$out"/*.deb)
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/gpulab ./usr/share/man/man1/gpulab.1 ./usr/share/man/zh_CN/man1/gpulab.1 \
  ./usr/share/bash-completion/completions/gpulab ./usr/share/doc/gpulab/README.md \
  ./usr/lib/gpulab/run/; do
  if ! printf '%s\n' "$contents" | grep -q " $f\$"; then
    echo "missing from the package: $f"
    exit 1
  fi
done
depends=$(dpkg-deb -f "$deb" Depends)
case $depends in
  *libc6*) ;;
  *) echo "Depends does not name the libraries: '$depends'"; exit 1 ;;
esac
mkdir "$out/root"
dpkg-deb -x "$deb" "$out/root"
gpulab=$out/root/usr/bin/gpulab
"$gpulab" --version
"$gpulab" amdahl --p 0.95 | grep -q '1 / 0.05 = 20x'
"$gpulab" __complete vec | grep -qx vecadd
MANWIDTH=80 man -l "$out/root/usr/share/man/man1/gpulab.1" 2>/dev/null | grep -q 'index-map'
echo "$(basename "$deb"): ok"
