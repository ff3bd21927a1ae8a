# Shared by the *_tmux.sh tests: a real terminal under tmux, on a tmux server of the test's own
# (tests run side by side, and one ending its server must not end another's), a work folder, and
# waits on what the screen shows. Source it after setting `name`; it sets `server`, `session` and
# `work`. A test that needs a second terminal starts a second session on the same server rather
# than killing the first: a server left with no session exits, and a client that reaches its socket
# while it does fails with "server exited unexpectedly".
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed (scripts/install-deps.sh installs it)"; exit 1; }
work=$(mktemp -d)
server="gpulab-$name-$$"
session=$server
# Ending the server hangs up on the programs in its sessions, which may still be saving their state
# while the work folder is removed: the removal is tried until they are gone.
cleanup() {
  tmux -L "$server" kill-server 2>/dev/null || true
  for _ in $(seq 1 50); do rm -rf "$work" 2>/dev/null && return 0; sleep 0.1; done
  rm -rf "$work"
}
trap cleanup EXIT

tm() { tmux -L "$server" "$@"; }
# The whole scrollback; SCREEN_JOIN=1 joins the lines the terminal had to wrap.
screen() { if [ "${SCREEN_JOIN:-0}" = 1 ]; then tm capture-pane -p -J -S - -t "$session"; else tm capture-pane -p -S - -t "$session"; fi; }
fail_with_screen() { echo "FAIL: $1"; echo "----- screen -----"; screen; exit 1; }
# Waits until the text $1 has appeared at least $2 times (at most WAIT_SECONDS, default 30).
wait_for() {
  local want=${2:-1}
  for _ in $(seq 1 $((${WAIT_SECONDS:-30} * 10))); do
    if [ "$(screen | grep -cF -- "$1" || true)" -ge "$want" ]; then return 0; fi
    sleep 0.1
  done
  fail_with_screen "the screen never showed '$1' $want time(s)"
}
# Waits until the screen matches the extended regular expression $1.
wait_for_re() {
  for _ in $(seq 1 $((${WAIT_SECONDS:-30} * 10))); do
    if screen | grep -qE -- "$1"; then return 0; fi
    sleep 0.1
  done
  fail_with_screen "the screen never showed '$1'"
}
never() { if screen | grep -qF -- "$1"; then fail_with_screen "the screen showed '$1'"; fi; }
