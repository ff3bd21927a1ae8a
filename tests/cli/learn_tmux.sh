#!/usr/bin/env bash
# A lesson walked in a real terminal: tmux types an answer, Enter, b and q; the screen and the
# saved progress are checked, then the lesson resumes where it stopped.
# Usage: learn_tmux.sh <path to gpulab>
set -euo pipefail
gpulab=$1
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed (scripts/install-deps.sh installs it)"; exit 1; }
work=$(mktemp -d)
session="gpulab-test-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"

screen() { tmux capture-pane -p -S - -t "$session"; }  # the whole scrollback
# Waits until the text $1 has appeared at least $2 times (at most 30 s).
wait_for() {
  local want=${2:-1}
  for _ in $(seq 1 300); do
    if [ "$(screen | grep -cF -- "$1" || true)" -ge "$want" ]; then return 0; fi
    sleep 0.1
  done
  echo "FAIL: the screen never showed '$1' $want time(s)"; echo "----- screen -----"; screen; exit 1
}
start() {
  tmux new-session -d -s "$session" -x 150 -y 60 \
    "env XDG_STATE_HOME='$XDG_STATE_HOME' '$gpulab' learn 04 --lang en --color never --backend cpu; echo GPULAB-EXITED-\$?; sleep 60"
  tmux set-option -t "$session" history-limit 20000 >/dev/null
}

start
wait_for "[1/5] Amdahl's law"
wait_for "your answer"
tmux send-keys -t "$session" "9.17" Enter          # step 1 asks for the speedup at P = 0.9, N = 100
wait_for "Right."
wait_for "[Enter] next" 1
tmux send-keys -t "$session" Enter
wait_for "[2/5] Amdahl's law"
wait_for "Limit: 1 / (1 - P) = 1 / 0.05 = 20x"    # the live demo ran
wait_for "[Enter] next" 2
tmux send-keys -t "$session" b Enter               # back to step 1
wait_for "[1/5] Amdahl's law" 2
wait_for "your answer" 2
tmux send-keys -t "$session" "7" Enter             # a wrong answer gets the worked solution
wait_for "Not quite"
wait_for "1 / (0.90/100 + 0.10)" 2
wait_for "[Enter] next" 3
tmux send-keys -t "$session" Enter
wait_for "[2/5] Amdahl's law" 2
wait_for "[Enter] next" 4
tmux send-keys -t "$session" q Enter
wait_for "GPULAB-EXITED-0"
wait_for "Saved."

progress="$XDG_STATE_HOME/gpulab/progress.json"
[ -f "$progress" ] || { echo "FAIL: no progress file at $progress"; exit 1; }
grep -q '"04-amdahl"' "$progress" || { echo "FAIL: lesson not in progress file"; cat "$progress"; exit 1; }
grep -q '"step": 1' "$progress" || { echo "FAIL: expected step index 1 (the second step) saved"; cat "$progress"; exit 1; }

tmux kill-session -t "$session"
start
wait_for "resuming at step 2"
wait_for "[2/5] Amdahl's law"
wait_for "[Enter] next"
tmux send-keys -t "$session" q Enter
wait_for "GPULAB-EXITED-0"
"$gpulab" learn --json | grep -q '"in progress"' || { echo "FAIL: learn does not list the lesson in progress"; exit 1; }
echo "1 passed, 0 failed"
