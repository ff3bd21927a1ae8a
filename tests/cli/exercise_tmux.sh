#!/usr/bin/env bash
# An exercise walked in a real terminal: tmux types the commands a student types (start, the
# answer edited into the file, check, hint) and the screen is checked after each.
# Usage: exercise_tmux.sh <path to gpulab>
set -euo pipefail
gpulab=$1
name=exercise
WAIT_SECONDS=120  # the first check compiles
. "$(dirname "$0")/tmux_lib.sh"

type_line() { tm send-keys -t "$session" -l "$1"; tm send-keys -t "$session" Enter; }

tm new-session -d -s "$session" -x 160 -y 50 -c "$work" \
  "env XDG_STATE_HOME='$work/state' XDG_CACHE_HOME='$work/cache' PS1='$ ' bash --norc --noprofile"
tm set-option -t "$session" history-limit 20000 >/dev/null

type_line "alias gpulab='$gpulab'"
type_line "gpulab exercise --lang en --color never"
# As many as the course has (exercises/NN-ID.txt).
count=$(find "$(dirname "$0")/../../exercises" -name '[0-9][0-9]-*.txt' | wc -l)
wait_for "0 of $count passed"

type_line "gpulab exercise start zip --lang en; echo STARTED-\$?"
wait_for "STARTED-0"
wait_for "Wrote $work/02-zip.cu"
grep -q "// gpulab exercise: zip" "$work/02-zip.cu" || { echo "FAIL: no exercise marker"; cat "$work/02-zip.cu"; exit 1; }

# The untouched starter: a verdict with reasons, exit 1.
type_line "gpulab exercise check 02-zip.cu --lang en --color never; echo CHECKED-\$?"
wait_for "CHECKED-1"
wait_for "was never written"

# The student's edit: the body of the kernel, as one would type it in an editor.
type_line "sed -i 's|  // Your code here: one element per thread.|  int i = threadIdx.x;\\n  out[i] = a[i] + b[i];|' 02-zip.cu"
type_line "gpulab exercise check 02-zip.cu --lang en --color never; echo CHECKED-\$?"
wait_for "CHECKED-0"
wait_for "PASSED: every test and every rule."
wait_for "kept    global reads per thread <= 2"

type_line "gpulab exercise hint zip --lang zh --color never"
wait_for "同一个下标 i"

type_line "gpulab exercise check 02-zip.cu --draw --lang en --color never; echo DRAWN-\$?"
wait_for "DRAWN-0"
wait_for "Who touched what"

type_line "gpulab exercise --lang en --color never"
wait_for "1 of $count passed"
grep -q '"zip"' "$work/state/gpulab/progress.json" || { echo "FAIL: no progress saved"; exit 1; }
echo "PASS: exercise walkthrough"
