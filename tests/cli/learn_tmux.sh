#!/usr/bin/env bash
# A lesson walked in a real terminal: tmux types answers, Enter, b and q; the screen and the
# saved progress are checked, the lesson resumes where it stopped and ends with a score and the
# next lesson; on a short screen the demo is capped; --json on a terminal shows the quiz.
# Usage: learn_tmux.sh <path to gpulab>
set -euo pipefail
gpulab=$1
name=learn
. "$(dirname "$0")/tmux_lib.sh"
export XDG_STATE_HOME="$work/state"

# start [env assignments...] -- gpulab arguments
start() {
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  starts=$((${starts:-0} + 1))
  session="$server-$starts"  # a new session each time: see tmux_lib.sh
  tm new-session -d -s "$session" -x 150 -y 60 \
    "env XDG_STATE_HOME='$XDG_STATE_HOME' ${envs[*]} '$gpulab' $* --color never --backend cpu; echo GPULAB-EXITED-\$?; sleep 60"
  tm set-option -t "$session" history-limit 20000 >/dev/null
}
send() { tm send-keys -t "$session" "$@"; }

start -- learn 04 --lang en
wait_for "[1/5] Amdahl's law"
wait_for "your answer"
wait_for "2 tries"
send "9.17" Enter                                   # step 1 asks for the speedup at P = 0.9, N = 100
wait_for "Right."
wait_for "[Enter] next" 1
send Enter
wait_for "[2/5] Amdahl's law"
wait_for "Limit: 1 / (1 - P) = 1 / 0.05 = 20x"      # the live demo ran
wait_for "    Limit:"                               # indented under its command line
wait_for "[Enter] next" 2
send b Enter                                        # back to step 1
wait_for "[1/5] Amdahl's law" 2
wait_for "your answer" 2
send "not a number" Enter                           # malformed: asked again, no try used
wait_for "no try used"
send "7" Enter                                      # wrong: one more try, the answer kept back
wait_for "1 try left"
never "The answer is"
send "7" Enter                                      # wrong again: the answer and its solution, once
wait_for "The answer is 9.17"
[ "$(screen | grep -cF '9.17' || true)" -le 3 ] || { echo "FAIL: the answer was repeated"; screen; exit 1; }
wait_for "[Enter] next" 3
send Enter
wait_for "[2/5] Amdahl's law" 2
wait_for "[Enter] next" 4
send Enter
wait_for "[3/5] Amdahl's law"
wait_for "your answer" 5
send q Enter                                        # q at a question: quits, not graded, not shown
wait_for "GPULAB-EXITED-0"
wait_for "Saved."
never "8.47"

progress="$XDG_STATE_HOME/gpulab/progress.json"
[ -f "$progress" ] || { echo "FAIL: no progress file at $progress"; exit 1; }
grep -q '"04-amdahl"' "$progress" || { echo "FAIL: lesson not in progress file"; cat "$progress"; exit 1; }
grep -q '"step": 2' "$progress" || { echo "FAIL: expected step index 2 (the third step) saved"; cat "$progress"; exit 1; }

start -- learn amdahl --lang en                     # found by name, resumed at the question
wait_for "resuming at step 3"
wait_for "[3/5] Amdahl's law"
wait_for "your answer"
send Enter                                          # Enter shows the answer
wait_for "Answer: 8.47"
wait_for "[Enter] next"
send Enter
wait_for "[4/5] Amdahl's law"
wait_for "your answer" 2
send "0.5" Enter                                    # wrong at the first try
wait_for "1 try left"
send "９８％" Enter                                    # full-width, and a percent for a fraction
wait_for "Right."
wait_for "[Enter] next" 2
send Enter
wait_for "[5/5] Amdahl's law"
wait_for "your answer" 3
send "83.47x" Enter
wait_for "Right." 2
wait_for "[Enter] next" 3
send Enter
wait_for "Lesson 04 done. Score: 1 of 4 questions right at the first try."
wait_for "Next: gpulab learn 05"
wait_for "GPULAB-EXITED-0"
"$gpulab" learn --json | grep -q '"done"' || { echo "FAIL: learn does not list the lesson done"; exit 1; }
"$gpulab" learn | grep -q "done, 1/4 first try" || { echo "FAIL: learn does not list the score"; "$gpulab" learn; exit 1; }

# A 16-row screen: the demo is capped so that the question stays in view, and says how to see all.
start LINES=16 -- learn 04 --restart --lang en
wait_for "your answer"
send Enter
wait_for "[Enter] next"
send Enter
wait_for "[2/5] Amdahl's law"
wait_for "to see it all"
wait_for "run \`gpulab amdahl --p 0.95\`"
send q Enter
wait_for "GPULAB-EXITED-0"

# quiz --json on a terminal: the questions are shown (on stderr), the JSON comes at the end.
start -- quiz --json --seed 5 --count 1 --topic amdahl
wait_for "1/1"
send "12345" Enter
wait_for '"score": 0'
wait_for "GPULAB-EXITED-0"
echo "1 passed, 0 failed"
