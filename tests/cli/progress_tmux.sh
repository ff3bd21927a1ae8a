#!/usr/bin/env bash
# The --bench progress line: shown on a terminal's stderr while the launches run, erased at the end.
# Usage: progress_tmux.sh <path to gpulab>
set -euo pipefail
gpulab=$1
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed (scripts/install-deps.sh installs it)"; exit 1; }
session="gpulab-progress-$$"
trap 'tmux -L "$session" kill-server 2>/dev/null || true' EXIT
tmux -L "$session" new-session -d -s "$session" -x 120 -y 20 \
  "'$gpulab' vecadd --n 1000000 --bench --reps 200 --backend cpu --show none >/dev/null; echo GPULAB-EXITED-\$?; sleep 30"
seen=0
for _ in $(seq 1 2400); do  # up to 2 minutes (a sanitizer build is slow)
  screen=$(tmux -L "$session" capture-pane -p -t "$session")
  if grep -q "gpulab: benchmark launch [0-9]*/200" <<<"$screen"; then seen=1; fi
  if grep -q "GPULAB-EXITED" <<<"$screen"; then break; fi
  sleep 0.05
done
screen=$(tmux -L "$session" capture-pane -p -t "$session")
grep -q "GPULAB-EXITED-0" <<<"$screen" || { echo "FAIL: gpulab did not exit 0"; echo "$screen"; exit 1; }
[ "$seen" = 1 ] || { echo "FAIL: no progress line was shown"; exit 1; }
if grep -q "benchmark launch" <<<"$screen"; then echo "FAIL: the progress line was not erased"; echo "$screen"; exit 1; fi
# Not a terminal: nothing on stderr.
err=$("$gpulab" vecadd --n 100000 --bench --reps 5 --backend cpu --show none 2>&1 >/dev/null)
[ -z "$err" ] || { echo "FAIL: stderr is not a terminal, yet got: $err"; exit 1; }
echo "1 passed, 0 failed"
