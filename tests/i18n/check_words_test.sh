#!/bin/sh
# tests/i18n/check_words.py's rule 7 on small trees: a message formatted with fmt::runtime (or
# fmt::vformat) fails, named by file and line; one in a comment or a string, one written with
# say(), and one in a file of the allow-list pass.
# usage: check_words_test.sh PYTHON SOURCE_DIR
set -eu
python=$1
check=$2/tests/i18n/check_words.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tree() {  # a fresh tree: one command that says its message the one way
  rm -rf "$work/t"
  mkdir -p "$work/t/src/commands" "$work/t/src/core" "$work/t/apps/gpulab"
  cat > "$work/t/src/commands/hello.cpp" <<'CPP'
// Not fmt::runtime(tr(l, en, zh)) but say():
std::string hello(Lang l, int n) {
  const char* why = "fmt::runtime(";
  return say(l, "{} blocks", "{} 个线程块", n);
}
CPP
  echo 'int main() { return 0; }' > "$work/t/apps/gpulab/main.cpp"
}

tree
"$python" "$check" "$work/t" > "$work/out" || { echo "FAIL: a clean tree was refused:"; cat "$work/out"; exit 1; }

refused() {  # refused FILE PATTERN: FILE (already written) fails the check, named as PATTERN says
  if "$python" "$check" "$work/t" > "$work/out"; then echo "FAIL: $1 passed"; exit 1; fi
  grep -q "$2" "$work/out" || { echo "FAIL: $1 is not named:"; cat "$work/out"; exit 1; }
}

tree
printf 'std::string f(Lang l, int n) {\n  return fmt::format(\n      fmt::runtime(std::string(tr(l, "{} blocks", "{} 个线程块"))), n);\n}\n' \
  > "$work/t/src/core/text.cpp"
refused src/core/text.cpp "^src/core/text.cpp:3: fmt::runtime: write the message with say"

tree
printf 'int main() { return fmt::vformat(pick(), fmt::make_format_args(1)).size(); }\n' \
  > "$work/t/apps/gpulab/main.cpp"
refused apps/gpulab/main.cpp "^apps/gpulab/main.cpp:1: fmt::vformat"

tree
printf 'std::string f(std::string_view s) { return fmt::format(fmt::runtime(s), 1); }\n' \
  > "$work/t/src/core/i18n_format.hpp"
"$python" "$check" "$work/t" > "$work/out" ||
  { echo "FAIL: a file of the allow-list was refused:"; cat "$work/out"; exit 1; }
echo "check_words: all cases behave"
