#!/usr/bin/env bash
# --publish PORT, real blaude + bwrap as uid 65534: a server a program inside starts
# on its own 127.0.0.1:PORT answers from the host at 127.0.0.1:PORT; a port that is not
# published does not (control: that server answers inside). A host port that is taken is an
# error before anything starts; -p stays claude's own; nothing is left listening afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
free_port() { "$NET_PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
P=$(free_port)
Q=$(free_port)
while [ "$Q" = "$P" ]; do Q=$(free_port); done

# Inside: two servers on the sandbox's loopback; the script waits until the host is done.
cat >"$T_DIR/proj/serve.sh" <<SH
mkdir -p www && echo published-page >www/index.html
cd www
python3 -m http.server $P --bind 127.0.0.1 >/dev/null 2>&1 &
python3 -m http.server $Q --bind 127.0.0.1 >/dev/null 2>&1 &
until curl -s --noproxy '*' -o /dev/null http://127.0.0.1:$P/ && curl -s --noproxy '*' -o /dev/null http://127.0.0.1:$Q/; do :; done
echo inside-q:\$(curl -s --noproxy '*' http://127.0.0.1:$Q/index.html)
touch ../ready
until [ -e ../done ]; do sleep 0.1; done
SH
chown 65534:65534 "$T_DIR/proj/serve.sh"
bl --publish "$P" --exec sh serve.sh >"$T_DIR/inside.out" 2>"$T_DIR/inside.err" &
bpid=$!
check "the servers inside are up" wait_until test -e "$T_DIR/proj/ready"
pub=$(curl -s --max-time 5 "http://127.0.0.1:$P/index.html" || true)
unpub=$("$NET_PY" "$BLAUDE_SRC/tests/integration/net_probe.py" tcp 127.0.0.1 "$Q")
touch "$T_DIR/proj/done"
wait $bpid
rc=$?
check_eq "the published port answers from the host" published-page "$pub"
check_eq "an unpublished port does not (nothing listens on the host)" ECONNREFUSED "$unpub"
check_eq "control: that unpublished server does answer inside" "inside-q:published-page" "$(cat "$T_DIR/inside.out")"
check_eq "... and the session ends 0" 0 "$rc"
check_eq "after the session nothing listens on the published port" ECONNREFUSED \
  "$("$NET_PY" "$BLAUDE_SRC/tests/integration/net_probe.py" tcp 127.0.0.1 "$P")"

# A host port that is taken: an error before the sandbox starts, and nothing ran.
"$NET_PY" -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1',$P)); s.listen(1); open('$T_DIR/busy','w').close(); time.sleep(60)" &
busy=$!
at_exit "kill $busy"
wait_until test -e "$T_DIR/busy"
set +e
err=$(bl --publish "$P" --exec touch ran 2>&1); rc=$?
set -e
kill $busy
check_eq "a taken host port: exit 1" 1 "$rc"
check_eq "... with what is wrong and what to do" "blaude: cannot publish port $P: 127.0.0.1:$P: address already in use
Stop what listens there, or publish another port." "$err"
check "... and the command never ran" not test -e "$T_DIR/proj/ran"

# -p is claude's --print, never --publish; bad ports are usage errors.
set +e
mkdir -p "$T_DIR/bin" && printf '#!/bin/sh\necho claude "$@"\n' >"$T_DIR/bin/claude" && chmod 755 "$T_DIR/bin" "$T_DIR/bin/claude"
dry=$(BL_ENV="PATH=$T_DIR/bin:/usr/bin:/bin" bl --dry-run -p hello 2>&1)
bad=$(bl --publish 0 --exec true 2>&1); bad_rc=$?
set -e
check "-p goes to claude untouched" grep -q -- "-p hello" <<<"$dry"
check "... and does not switch on proxy mode" not grep -q -- "--unshare-net" <<<"$dry"
check_eq "--publish 0 is a usage error" 2 "$bad_rc"
check "... saying why" grep -q "^blaude: --publish: " <<<"$bad"
finish
