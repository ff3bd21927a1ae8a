#!/bin/sh
# scripts/check_layers.py on small trees: it passes a tree whose includes point down, and fails
# (naming the file) on a wrong-way include and on two modules that include each other.
# usage: check_layers_test.sh PYTHON SOURCE_DIR
set -eu
python=$1
check=$2/scripts/check_layers.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tree() {  # a fresh tree: core/text, calc/amdahl (includes core), commands/help and complete
  rm -rf "$work/t"
  mkdir -p "$work/t/src/core" "$work/t/src/calc" "$work/t/src/commands" "$work/t/apps/gpulab"
  echo '#pragma once' > "$work/t/src/core/text.hpp"
  printf '#pragma once\n#include "core/text.hpp"\n' > "$work/t/src/calc/amdahl.hpp"
  echo '#pragma once' > "$work/t/src/commands/help.hpp"
  echo '#pragma once' > "$work/t/src/commands/complete.hpp"
  printf '#include "commands/help.hpp"\n#include "calc/amdahl.hpp"\n' > "$work/t/src/commands/help.cpp"
  printf '#include "commands/help.hpp"\n' > "$work/t/apps/gpulab/main.cpp"
}

tree
"$python" "$check" "$work/t" || { echo "FAIL: a clean tree was refused"; exit 1; }

tree
printf '#pragma once\n#include "commands/help.hpp"\n' > "$work/t/src/core/text.hpp"
if "$python" "$check" "$work/t" 2> "$work/err"; then echo "FAIL: core including commands passed"; exit 1; fi
grep -q "src/core/text.hpp:2: includes commands/help.hpp" "$work/err" ||
  { echo "FAIL: the wrong-way include is not named:"; cat "$work/err"; exit 1; }

tree
printf '#include "commands/complete.hpp"\n' >> "$work/t/src/commands/help.cpp"
printf '#include "commands/complete.hpp"\n#include "commands/help.hpp"\n' > "$work/t/src/commands/complete.cpp"
if "$python" "$check" "$work/t" 2> "$work/err"; then echo "FAIL: a help/complete circle passed"; exit 1; fi
grep -q "include circle: .*commands/complete -> .*commands/help -> .*commands/complete\|include circle: .*commands/help -> .*commands/complete -> .*commands/help" "$work/err" ||
  { echo "FAIL: the circle is not named:"; cat "$work/err"; exit 1; }

tree
mkdir -p "$work/t/src/gadgets" && echo '#pragma once' > "$work/t/src/gadgets/x.hpp"
if "$python" "$check" "$work/t" 2> "$work/err"; then echo "FAIL: a folder outside the layers passed"; exit 1; fi
echo "check_layers: all cases behave"
