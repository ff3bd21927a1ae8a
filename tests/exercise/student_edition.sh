#!/usr/bin/env bash
# The student edition's build, for real and cheaply: configure gpulab with
# -DGPULAB_STUDENT_EDITION=ON in a scratch folder and build only the exercise files it embeds (the
# build tool apps/student_exercises, a few seconds), not a second gpulab. Checks that the embedding
# takes those files, that none holds a solution, a planted mistake or the final hint, and that the
# default build (BUILD_DIR) embeds the full files.
# usage: student_edition.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
SRC=$1
DEFAULT_BUILD=$2
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
fail() { echo "student_edition: $*" >&2; exit 1; }

cmake -S "$SRC" -B "$SCRATCH" -DGPULAB_STUDENT_EDITION=ON -DGPULAB_BUILD_TESTS=OFF \
  -DGPULAB_CUDA=OFF > "$SCRATCH.log" 2>&1 || { cat "$SCRATCH.log"; fail "configure failed"; }
cmake --build "$SCRATCH" --target gpulab_student_exercise_files > "$SCRATCH.log" 2>&1 ||
  { cat "$SCRATCH.log"; fail "the student exercise files were not built"; }
rm -f "$SCRATCH.log"

list=$SCRATCH/src/embedded_exercises.txt
[ -f "$list" ] || fail "no embedding list $list"
[ "$(ls "$SRC/exercises" | wc -l)" -eq "$(wc -l < "$list")" ] ||
  fail "$(wc -l < "$list") files embedded for $(ls "$SRC/exercises" | wc -l) in exercises/"
if grep -v "^$SCRATCH/src/student_exercises/" "$list"; then
  fail "the student edition embeds the files above from elsewhere"
fi
checked=0
while read -r f; do
  case "$f" in *.txt) ;; *) continue ;; esac
  name=$(basename "$f")
  [ "$(head -1 "$f")" = "@@ edition student" ] || fail "$name: no edition line"
  ! grep -q '^@@ solution' "$f" || fail "$name: holds its solution"
  ! grep -q '^@@ mistake' "$f" || fail "$name: holds its planted mistakes"
  for lang in en zh; do
    full=$(grep -c "^@@ hint.$lang" "$SRC/exercises/$name")
    kept=$(grep -c "^@@ hint.$lang" "$f" || true)
    [ "$kept" -eq $((full - 1)) ] || fail "$name: $kept of $full hints ($lang) kept"
  done
  # The solution's lines are nowhere in the student's file (but those the starter has too).
  sed -n '/^@@ solution/,/^@@ /p' "$SRC/exercises/$name" | sed '1d;/^@@ /d' |
    while IFS= read -r line; do
      trimmed=$(echo "$line" | sed 's/^ *//')
      [ ${#trimmed} -ge 16 ] || continue
      if grep -qF -- "$trimmed" "$f" && ! sed -n '/^@@ starter/,/^@@ /p' "$SRC/exercises/$name" |
          grep -qF -- "$trimmed"; then
        fail "$name: the solution's line '$trimmed' is in the student edition"
      fi
    done
  checked=$((checked + 1))
done < "$list"
[ "$checked" -ge 16 ] || fail "only $checked exercise files checked"

# The teacher's build (the default) embeds the full files.
default_list=$DEFAULT_BUILD/src/embedded_exercises.txt
[ -f "$default_list" ] || fail "no embedding list in $DEFAULT_BUILD"
grep -q "^$SRC/exercises/01-map.txt$" "$default_list" || fail "the default build does not embed exercises/"
echo "student_edition: $checked exercise files checked"
