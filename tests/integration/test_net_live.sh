#!/usr/bin/env bash
# `blaude net log` and `blaude net allow` from another process, against running sessions in
# proxy mode (real blaude and bwrap as uid 65534, XDG_RUNTIME_DIR a directory of the test under /run):
#  - with no session, with two, with a --session that is none: clear errors;
#  - session A is refused a web server (the control: without `net allow` it is not reached),
#    `net log` shows the refusal as it happens, `net allow` adds it, and A's next request gets
#    through; the exit summary names the addition;
#  - from inside A, the control socket is not there: `blaude net allow` (the binary is at
#    /run/blaude/blaude inside) finds no session and a connect to the socket's host path fails,
#    and the destination it asked for stays refused. The control for that: the same request
#    from outside, on the same path, worked. A client of the same user in another user
#    namespace (a sandbox's) that could see the socket is closed unanswered (control: the same
#    client outside one is answered).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
net_start WEB http 0.0.0.0
net_start WEB2 http 0.0.0.0
W="$HOST_IP:$WEB_PORT" W2="$HOST_IP:$WEB2_PORT"
# A runtime dir of this test's own, under /run as blaude requires (every sandbox replaces /run
# with a tmpfs): tests run at once see only their own sessions.
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown 65534:65534 "$RT"
chmod 700 "$RT"
export BL_ENV="XDG_RUNTIME_DIR=$RT"
blnet() { as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$RT" "$BLAUDE" net "$@"; }
sessions() { ls "$RT/blaude" 2>/dev/null | sed -n 's/^net-\([0-9]*\)\.sock$/\1/p'; }

set +e
none=$(blnet allow example.com 2>&1); none_rc=$?
set -e
check_eq "no session: exit 1" 1 "$none_rc"
check "... saying none is running" grep -q "no blaude session in proxy mode is running" <<<"$none"

cat >"$T_DIR/proj/a.sh" <<SH
touch a-up
i=0; while [ ! -e go ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done
curl -sS -o /dev/null -w '%{http_code}' http://$W/before >before.code 2>&1
touch refused
i=0; while [ ! -e allowed ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done
curl -sS http://$W/after >after.out 2>&1
ls "$RT/blaude" >inside.ls 2>&1; echo "ls=\$?" >>inside.ls
XDG_RUNTIME_DIR=$RT /run/blaude/blaude net allow $W2 >inside.allow 2>&1; echo "rc=\$?" >>inside.allow
python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(type(e).__name__)' "\$(cat sockpath)" >inside.connect 2>&1
curl -sS -o /dev/null -w '%{http_code}' http://$W2/inside >inside.code 2>&1
SH
cat >"$T_DIR/proj/b.sh" <<'SH'
touch b-up
i=0; while [ ! -e b-stop ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
SH
chown 65534:65534 "$T_DIR/proj/a.sh" "$T_DIR/proj/b.sh"

bl --allow-domain example.com --exec sh a.sh >/dev/null 2>"$T_DIR/a.err" &
A=$!
wait_until test -e "$T_DIR/proj/a-up"
wait_until test -n "$(sessions)"
APID=$(sessions)
bl --allow-domain example.com --exec sh b.sh >/dev/null 2>/dev/null &
B=$!
wait_until test -e "$T_DIR/proj/b-up"
wait_until test "$(sessions | wc -l)" = 2
log "sessions: $(sessions | tr '\n' ' ')(A is $APID)"
check "the control socket's directory is the user's only (0700)" test "$(stat -c %a "$RT/blaude")" = 700
check "... the socket too (0600)" test "$(stat -c %a "$RT/blaude/net-$APID.sock")" = 600

set +e
two=$(blnet allow example.org 2>&1); two_rc=$?
bad=$(blnet allow example.org --session 1 2>&1); bad_rc=$?
set -e
check_eq "two sessions and no --session: exit 1" 1 "$two_rc"
check "... naming both and the way to choose" grep -q "2 blaude sessions in proxy mode are running (pids .*); say which with --session PID" <<<"$two"
check_eq "--session of no session: exit 1" 1 "$bad_rc"
check "... saying so" grep -q "no blaude session in proxy mode has pid 1" <<<"$bad"
# The second line of defence: a process of the same user in another user namespace (as every
# sandbox is) that could see the socket is closed unanswered. Control: the same client without
# the namespace is answered.
BPID=$(sessions | grep -vx "$APID")
ask() { as_nobody "$@" /usr/bin/python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
try:
    s.sendall(b"allow example.net\n"); print(s.recv(4096).decode().strip() or "closed")
except (BrokenPipeError, ConnectionResetError):
    print("closed")' "$RT/blaude/net-$BPID.sock" 2>&1; }
check_eq "a same-user client in another user namespace is closed unanswered" closed "$(ask unshare -U)"
check "control: the same client in blaude's own namespace is answered" grep -q "^ok: allowed example.net" <<<"$(ask)"
touch "$T_DIR/proj/b-stop"
wait $B || true

# The refusals as they happen, then the allow, from processes outside the session.
timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin \
  XDG_RUNTIME_DIR="$RT" "$BLAUDE" net log --session "$APID" >"$T_DIR/log.out" 2>"$T_DIR/log.err" &
LOGP=$!
wait_until grep -q "of blaude session $APID follow" "$T_DIR/log.err"
echo "$RT/blaude/net-$APID.sock" >"$T_DIR/proj/sockpath"
touch "$T_DIR/proj/go"
wait_until test -e "$T_DIR/proj/refused"
check_eq "control: before net allow, A is refused the server" 403 "$(cat "$T_DIR/proj/before.code")"
check "net log shows the refusal as it happens" wait_until grep -q "^refused GET $W: " "$T_DIR/log.out"
set +e
allow=$(blnet allow "$W" --session "$APID" 2>&1); allow_rc=$?
set -e
check_eq "net allow from another process: exit 0" 0 "$allow_rc"
check "... saying what it allowed, for which session" grep -q "allowed $W for blaude session $APID" <<<"$allow"
touch "$T_DIR/proj/allowed"
wait $A || true
check "after net allow, A reaches the server" grep -q "body:/after" "$T_DIR/proj/after.out"
check "A's exit summary names the addition" grep -q "allowed during the session from another terminal (blaude net allow): $W" "$T_DIR/a.err"
check "... and the log names it" grep -q "allowed for the rest of the session (blaude net allow): $W" <(net_log)
set +e
wait $LOGP; log_rc=$?
set -e
check_eq "net log ends with the session (exit 0, not the test's timeout)" 0 "$log_rc"
check "... and its socket is gone" not test -e "$RT/blaude/net-$APID.sock"

log "inside: $(tr '\n' ' ' <"$T_DIR/proj/inside.ls") | $(tr '\n' ' ' <"$T_DIR/proj/inside.allow") | $(cat "$T_DIR/proj/inside.connect")"
check "inside A, the control directory is not there" grep -q "ls=[12]" "$T_DIR/proj/inside.ls"
check "... blaude net allow finds no session" grep -q "no blaude session in proxy mode is running" "$T_DIR/proj/inside.allow"
check "... and fails" grep -q "rc=1" "$T_DIR/proj/inside.allow"
check "... a connect to the socket's host path fails (it worked from outside: the control)" \
  grep -qx "FileNotFoundError" "$T_DIR/proj/inside.connect"
check_eq "... and what it asked for stays refused" 403 "$(cat "$T_DIR/proj/inside.code")"
finish
