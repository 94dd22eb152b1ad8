#!/usr/bin/env bash
# --ssh with a real ssh-agent (uid 65534) and the real bwrap: blaude binds the agent's own dir
# when it is a dedicated one, so an agent restarted onto the same socket path mid-session stays
# reachable inside; a dir that also holds other things is never bound (only the socket, which a
# restart loses: the control that shows the test would notice).
# In a private /tmp (private_tmp.sh): the agents' /tmp/ssh-* dirs, made and removed here, never
# reach the machine's /tmp, where other tests' sessions shadow the seed's names.
. "$(dirname "$0")/private_tmp.sh"
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null || missing "ssh-agent/ssh-add (openssh-client)"
NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$H" "$WS"
chown -R $NOBODY:$NOBODY "$H" "$WS"
asn() { env -i HOME="$H" PATH=/usr/bin:/bin "$@"; }
agents=()
agent_dirs=()
# Killed agents leave their /tmp/ssh-XXXXXXXXXX dirs behind: removed too (30 of them piled up in
# /tmp here, and every later start's probe lists the user's dirs in /tmp).
at_exit 'for p in "${agents[@]}"; do kill -9 "$p"; done; for d in "${agent_dirs[@]}"; do rm -rf "$d"; done'

# start_agent [SOCKET]: a real ssh-agent as uid 65534; sets SOCK and PID.
start_agent() {
  local out
  out=$(asn setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups ssh-agent -s ${1:+-a "$1"})
  SOCK=$(printf '%s\n' "$out" | sed -n 's/^SSH_AUTH_SOCK=\([^;]*\);.*/\1/p')
  PID=$(printf '%s\n' "$out" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
  agents+=("$PID")
  [ -n "${1:-}" ] || agent_dirs+=("$(dirname "$SOCK")")
}

# session NAME [blaude options]: blaude --ssh runs `ssh-add -l` (1 = connected, no keys; 2 = no agent) before and
# after the host restarts the agent onto the same socket path; the two codes in $T_DIR/NAME.
session() {
  local name=$1
  shift
  rm -f "$WS/go" && mkfifo "$WS/go" && chown $NOBODY "$WS/go"
  : >"$T_DIR/$name" && chmod 666 "$T_DIR/$name"
  (cd "$WS" && asn SSH_AUTH_SOCK="$SOCK" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
     "$BLAUDE" --ssh "$@" --exec sh -c 'ssh-add -l >/dev/null 2>&1; echo "before=$?"; ls "$(dirname "$SSH_AUTH_SOCK")";
       read x <go; ssh-add -l >/dev/null 2>&1; echo "after=$?"' </dev/null >"$T_DIR/$name" 2>"$T_DIR/$name.err") &
  local bl=$!
  wait_until grep -q '^before=' "$T_DIR/$name" || { fail "$name: the session did not start"; cat "$T_DIR/$name.err"; }
  # The agent dies and a new one takes the same path (a rotated or restarted agent).
  kill -9 "$PID"
  rm -f "$SOCK"
  start_agent "$SOCK"
  echo go >"$WS/go"
  wait "$bl" || true
}

# --- a dedicated dir: ssh-agent's own /tmp/ssh-XXXXXXXXXX ----------------------------------
start_agent
check "ssh-agent made its own dir" test -S "$SOCK"
DIR=$(dirname "$SOCK")
check_eq "... owned by the user, private" "$NOBODY 700" "$(stat -c '%u %a' "$DIR")"
# --clear-tmp: the host /tmp is not in the sandbox, so only the bind under test shows the dir.
session dedicated --clear-tmp
check "dedicated dir: the agent answers inside" grep -qx 'before=1' "$T_DIR/dedicated"
check "dedicated dir: the restarted agent answers inside too" grep -qx 'after=1' "$T_DIR/dedicated"
# With the host /tmp (where /tmp/ssh-* dirs are shadowed): the agent's own dir is bound instead.
session dedicated-tmp
check "host /tmp: the agent answers inside" grep -qx 'before=1' "$T_DIR/dedicated-tmp"
check "host /tmp: the restarted agent answers inside too" grep -qx 'after=1' "$T_DIR/dedicated-tmp"

# --- a shared dir (more than the socket in it): only the socket, never the rest -------------
SHARED="$T_DIR/runtime"
mkdir -p "$SHARED" && chmod 700 "$SHARED"
echo secret >"$SHARED/bus-like-file"
chown -R $NOBODY:$NOBODY "$SHARED"
kill -9 "$PID"
start_agent "$SHARED/ssh-agent.socket"
session shared --clear-tmp
check "shared dir: the agent answers inside" grep -qx 'before=1' "$T_DIR/shared"
check "shared dir: the other file in it is not in the sandbox" not grep -q 'bus-like-file' "$T_DIR/shared"
check "control: socket-only bind loses a restarted agent (the test sees the difference)" grep -qx 'after=2' "$T_DIR/shared"

finish
