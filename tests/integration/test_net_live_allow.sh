#!/usr/bin/env bash
# `blaude net allow` from another terminal while the agent retries a refused destination, and
# what must not change the running session's allowlist (real blaude and bwrap as uid 65534):
#  - session A's script asks the test's web server again and again; it is refused (the control)
#    and `net log` shows those refusals as they happen;
#  - requests that must change nothing, on the socket itself: unknown words, two patterns, a bad
#    pattern (also through `blaude net allow`, with --allow-domain's words), a line too long, a
#    second request after `log`, and a second `allow` after the first: A stays refused;
#  - another uid: 65533 cannot reach the socket (the 0700 directory), root can but is closed
#    unanswered (SO_PEERCRED), and what it asked is not allowed (control: the owner is answered);
#  - `net allow` makes the next request succeed; `net log` marks the allowed one and the
#    addition; the exit summary names what was allowed from another terminal; `net log` ends
#    with the session and its socket is gone;
#  - inside A, the control directory and the socket's path are not there;
#  - without $XDG_RUNTIME_DIR, session B listens in /run/user/65534 all the same (and its sandbox
#    does not see it); killed with SIGKILL it leaves its socket, which `net sessions` finds dead
#    (the connect is refused), removes, and no longer lists (control: listed while B ran);
#    the rest runs in a runtime dir of the test's own under /run;
#    ended by SIGTERM or SIGHUP, a session removes its socket itself.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
net_start WEB http 0.0.0.0
W="$HOST_IP:$WEB_PORT"
# A runtime dir of this test's own, under /run as blaude requires (every sandbox replaces /run
# with a tmpfs): tests run at once see only their own sessions.
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown 65534:65534 "$RT"
chmod 700 "$RT"
blnet() { as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$RT" "$BLAUDE" net "$@"; }
# One raw request on a session's socket as USER ("nobody", "root" or a uid): prints the answer's
# first line, "closed" when it is closed unanswered, or the connect's error.
raw() {
  local who=$1 sock=$2 req=$3 pre=()
  case $who in
    nobody) pre=(setpriv --reuid=65534 --regid=65534 --clear-groups) ;;
    root) ;;
    *) pre=(setpriv --reuid="$who" --regid="$who" --clear-groups) ;;
  esac
  "${pre[@]}" /usr/bin/python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(type(e).__name__); sys.exit(0)
try:
    s.sendall(sys.argv[2].encode("latin-1").decode("unicode_escape").encode("latin-1"))
    data = b""
    while b"\n" not in data:
        d = s.recv(4096)
        if not d: break
        data += d
    sys.stdout.write((data.split(b"\n")[0].decode("latin-1") if data else "closed") + "\n")
except (BrokenPipeError, ConnectionResetError):
    print("closed")' "$sock" "$req" 2>&1
}
refusals() { grep -c '^403$' "$T_DIR/proj/codes" 2>/dev/null || echo 0; }
# Waits for A to be refused again (its count grows past N): what the requests before it asked
# has been applied or not by then (each is answered before the next starts).
refusals_over() { test "$(refusals)" -gt "$1"; }
refused_again() { local n; n=$(refusals); wait_until refusals_over "$n"; }
# wait_until runs its command again and again: what must be read anew each time is a function.
has_session() { test -n "$("$@" sessions 2>/dev/null)"; }

cat >"$T_DIR/proj/a.sh" <<SH
i=0; while [ ! -e sockpath ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done
ls "$RT/blaude" >inside.ls 2>&1; echo "ls=\$?" >>inside.ls
python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(type(e).__name__)' "\$(cat sockpath)" >inside.connect 2>&1
i=0
while [ \$i -lt 1200 ] && [ ! -e stop ]; do
  code=\$(curl -sS -o body -w '%{http_code}' http://$W/try 2>/dev/null)
  echo "\$code" >>codes
  [ "\$code" = 200 ] && break
  sleep 0.1; i=\$((i+1))
done
SH
chown 65534:65534 "$T_DIR/proj/a.sh"

BL_ENV="XDG_RUNTIME_DIR=$RT" bl --allow-domain example.com --exec sh a.sh >/dev/null 2>"$T_DIR/a.err" &
A=$!
at_exit "touch '$T_DIR/proj/stop'"
wait_until has_session blnet
APID=$(blnet sessions 2>/dev/null)
SOCK="$RT/blaude/net-$APID.sock"
echo "$SOCK" >"$T_DIR/proj/sockpath"
log "session A: $APID"
check "net sessions lists the one session" test "$(blnet sessions 2>&1 >/dev/null)" = "blaude: 1 blaude session in proxy mode running (in $RT/blaude)"

timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin \
  XDG_RUNTIME_DIR="$RT" "$BLAUDE" net log >"$T_DIR/log.out" 2>"$T_DIR/log.err" &
LOGP=$!
wait_until grep -q "of blaude session $APID follow" "$T_DIR/log.err"
check "control: A is refused the server, again and again" wait_until refusals_over 1
check "net log shows the refusals as they happen" wait_until grep -q "^refused GET $W: " "$T_DIR/log.out"

# What must change nothing.
check_eq "an unknown request: an error" "error: unknown request: frobnicate" "$(raw nobody "$SOCK" 'frobnicate\n')"
check_eq "two patterns: an error" "error: one pattern per request: $W x" "$(raw nobody "$SOCK" "allow $W x\n")"
check_eq "a bad pattern: an error with --allow-domain's words" \
  "error: allow \"http://$W/\": it is a URL, not a host (drop the scheme: write $W)" "$(raw nobody "$SOCK" "allow http://$W/\n")"
check_eq "a line too long: an error" "error: request too long" "$(raw nobody "$SOCK" "allow $(head -c 5000 /dev/zero | tr '\0' a)")"
check "control characters come back escaped" grep -qxF 'error: unknown request: \e[2Jx' <<<"$(raw nobody "$SOCK" '\x1b[2Jx\n')"
check_eq "log, then allow in the same connection: only the log is answered" \
  "ok: refusals (and allowed connections) of blaude session $APID follow" "$(raw nobody "$SOCK" "log\nallow $W\n")"
check_eq "allow, then allow again in the same connection: only the first" \
  "ok: allowed example.org for blaude session $APID" "$(raw nobody "$SOCK" "allow example.org\nallow $W\n")"
set +e
bad=$(blnet allow "http://$W/" --session "$APID" 2>&1); bad_rc=$?
set -e
check_eq "blaude net allow with a bad pattern: exit 2" 2 "$bad_rc"
check "... with --allow-domain's words" grep -qF "net allow \"http://$W/\": it is a URL, not a host (drop the scheme: write $W)" <<<"$bad"

# Other users.
check_eq "uid 65533 cannot reach the socket (its directory is 0700)" PermissionError "$(raw 65533 "$SOCK" "allow $W\n")"
check_eq "root reaches it but is closed unanswered (not the session's uid)" closed "$(raw root "$SOCK" "allow $W\n")"
logged() { net_log | grep -q "$1"; }
check "... and the session's log says why" wait_until logged "control socket: refused a client: pid [0-9]* uid 0"
check_eq "control: the owner is answered" "ok: already allowed example.org for blaude session $APID" \
  "$(raw nobody "$SOCK" "allow example.org\n")"
check "after all that, A is still refused" refused_again
check "... and nothing but example.org was added" \
  test "$(net_log | grep -c 'allowed for the rest of the session (blaude net allow)')" = 1

# The allow.
set +e
allow=$(blnet allow "$W" 2>&1); allow_rc=$?
set -e
check_eq "net allow from another terminal: exit 0" 0 "$allow_rc"
check "... saying what it allowed, for which session" grep -qx "blaude: allowed $W for blaude session $APID" <<<"$allow"
set +e
wait "$A"
set -e
check_eq "A's next request gets through" 200 "$(tail -n 1 "$T_DIR/proj/codes")"
check "... refused before it (the control)" test "$(refusals)" -ge 3
check "net log names the addition" grep -q "^added $W: allowed for the rest of the session from another terminal$" "$T_DIR/log.out"
check "... and marks the allowed request" grep -q "^allowed GET $W -> $HOST_IP (rule $W)$" "$T_DIR/log.out"
check "... only plain text in it" not grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$T_DIR/log.out"
check "A's exit summary names what was allowed from another terminal" \
  grep -qF "blaude: allowed during the session from another terminal (blaude net allow): example.org, $W" "$T_DIR/a.err"
set +e
wait "$LOGP"; log_rc=$?
set -e
check_eq "net log ends with the session (exit 0, not its timeout)" 0 "$log_rc"
check "A's socket is gone" not test -e "$SOCK"
log "inside A: $(tr '\n' ' ' <"$T_DIR/proj/inside.ls") | $(cat "$T_DIR/proj/inside.connect")"
check "inside A, the control directory is not there" grep -q "ls=[12]" "$T_DIR/proj/inside.ls"
check "... nor the socket's path (it was there outside: the control above)" grep -qx FileNotFoundError "$T_DIR/proj/inside.connect"

# Without $XDG_RUNTIME_DIR: /run/user/65534 all the same; a killed session's socket. That
# directory is the user's, not this test's: B is told apart from other sessions there by a rule
# no other session has.
URT=/run/user/65534
if [ ! -d "$URT" ]; then
  made_run_user=$([ -d /run/user ] || echo 1)
  mkdir -p "$URT"
  at_exit_late "rm -rf '$URT'"
  [ -z "$made_run_user" ] || at_exit_late "rmdir /run/user"
fi
chown 65534:65534 "$URT"
chmod 700 "$URT"
cat >"$T_DIR/proj/b.sh" <<SH
ls $URT/blaude >inside-b.ls 2>&1; echo "ls=\$?" >>inside-b.ls
touch b-up
i=0; while [ ! -e stop ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i+1)); done
SH
chown 65534:65534 "$T_DIR/proj/b.sh"
MARK="b-$$.example"
BL_ENV= bl --allow-domain "$MARK" --exec sh b.sh >/dev/null 2>"$T_DIR/b.err" &
B=$!
wait_until test -e "$T_DIR/proj/b-up"
BPID=$(pgrep -u 65534 -f -- "--allow-domain $MARK --exec" | head -n 1 || true)
log "session B: ${BPID:-none}"
nox() { as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin "$BLAUDE" net "$@"; }
lists_b() { nox sessions 2>/dev/null | grep -qx "$BPID"; }
check "without XDG_RUNTIME_DIR, B listens in /run/user/65534" wait_until test -S "$URT/blaude/net-$BPID.sock"
check "... and net sessions finds it there without XDG_RUNTIME_DIR too" lists_b
check "... where its sandbox sees no control directory" grep -q "ls=[12]" "$T_DIR/proj/inside-b.ls"
kill -KILL "$BPID"
set +e
wait "$B"
set -e
check "B killed with SIGKILL left its socket" test -S "$URT/blaude/net-$BPID.sock"
check "net sessions no longer lists it" not lists_b
check "... and removed the dead one's socket" not test -e "$URT/blaude/net-$BPID.sock"

# The other ways a session ends: its socket goes with it (SIGKILL above is the control).
for sig in TERM HUP; do
  rm -f "$T_DIR/proj/b-up"
  BL_ENV="XDG_RUNTIME_DIR=$RT" bl --allow-domain example.com --exec sh b.sh >/dev/null 2>&1 &
  C=$!
  wait_until test -e "$T_DIR/proj/b-up"
  wait_until has_session blnet
  CPID=$(blnet sessions 2>/dev/null)
  kill -"$sig" "$CPID"
  set +e
  wait "$C"
  set -e
  check "a session ended by SIG$sig removed its socket" not test -e "$RT/blaude/net-$CPID.sock"
done
touch "$T_DIR/proj/stop"
finish
