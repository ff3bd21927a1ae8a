#!/usr/bin/env bash
# A lesson in a real 60x30 terminal, en and zh: no line wider than the pane (capture-pane -J
# joins the lines the terminal had to wrap), and a long demo shortened so that the step and its
# question stay on the screen.
# Usage: layout_tmux.sh <path to gpulab>
set -euo pipefail
gpulab=$1
name=layout
SCREEN_JOIN=1  # lines the terminal had to wrap are joined, so that a too-wide line is seen whole
. "$(dirname "$0")/tmux_lib.sh"
export XDG_STATE_HOME="$work/state"

# Fails when a line of the screen is wider than 60 columns (Chinese characters count two).
check_width() {
  screen | python3 -c '
import sys, unicodedata
bad = [l for l in sys.stdin.read().splitlines()
       if sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l) > 60]
for l in bad: print("FAIL: wider than 60 columns: " + l)
sys.exit(1 if bad else 0)'
}

for lang in en zh; do
  session="$server-$lang"
  # No COLUMNS or LINES from outside: the width and height are the pane's.
  tm new-session -d -s "$session" -x 60 -y 30 \
    "env -u COLUMNS -u LINES XDG_STATE_HOME='$XDG_STATE_HOME' '$gpulab' learn 11 --restart --lang $lang --color never --backend cpu; sleep 60"
  tm set-option -t "$session" history-limit 20000 >/dev/null
  # The note under a shortened demo (either wording learn has had).
  if [ $lang = en ]; then next="\\[Enter\\] next"; cut="lines left out to keep this on the screen|more lines?: run"
  else next="\\[回车\\]"; cut="为了留在一屏之内省略了|还有 [0-9]+ 行"; fi
  wait_for_re "$next"
  tm send-keys -t "$session" Enter           # step 2: its question comes first
  if [ $lang = en ]; then wait_for_re "your answer >"; else wait_for_re "你的答案 >"; fi
  tm send-keys -t "$session" Enter           # Enter shows the answer, then the demo runs
  wait_for_re "$cut"                              # its table rows and the grid do not fit 30 rows
  check_width
done
echo "layout_tmux: passed"
