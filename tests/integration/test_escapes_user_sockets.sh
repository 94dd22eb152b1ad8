#!/usr/bin/env bash
# The user's own servers in /tmp, whatever their names. A server that trusts
# its own user (emacs's /tmp/emacsUID/server, nvim's /tmp/nvim.USER/X/nvim.PID.0, zellij, i3,
# screen) runs what a client of that user sends (emacsclient --eval, nvim --remote-send), and
# the sandbox is that user: such a socket in the shared /tmp is host code execution. blaude
# puts /dev/null over every socket of the user in /tmp down to 3 levels (dirs of the user),
# by the protect helper. Real blaude, bwrap 0.8 and the overlay bwrap, as uid 65534; a python
# server stands for emacs/nvim. Controls: the same server 4 levels down (beyond the scan) is
# reached, so the sandbox could reach the others without the shadow; --ssh still reaches its
# agent socket in /tmp (an opt-in is not shadowed). Stability: sockets made and removed while
# 10 sessions start (a shadow whose socket is gone is passed over, not a refusal). Both paths: the
# plan made whole before bwrap starts (BLAUDE_SCAN=sync, as --debug has it) and the default, where
# the socket scan runs after bwrap's spawn and its shadows join the helper's mounts before its fork. A dir of the
# user's that holds sockets only (emacs's server dir, Claude Code's cc-socks) gets one tmpfs, so
# a server started there after the session began is unreachable too; control: in a dir that also
# holds a file (each socket shadowed on its own) such a late server is reached. The scan's
# bound of 256 dirs is shared fairly: big dirs of the user's in /tmp do not leave an agent's or
# an editor's socket beside them reachable (in a private /tmp).
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs
# Top-level dirs of the user, as the servers make them (removed at exit).
E=/tmp/blaude-t-emacs.$$ V=/tmp/blaude-t-nvim.$$ F=/tmp/blaude-t-far.$$ A=/tmp/blaude-t-agent.$$ C=/tmp/blaude-t-churn.$$
M=/tmp/blaude-t-mixed.$$
PIDS=()
at_exit 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$E" "$V" "$F" "$A" "$C" "$M"'
mkdir -p "$E" "$V/x" "$F/a/b/c" "$A" "$C" "$M"
echo notes >"$M/notes.txt"
chown -R $NOBODY:$NOBODY "$E" "$V" "$F" "$A" "$C" "$M"
chmod 700 "$E" "$V" "$F" "$A" "$C" "$M"

serve() {  # serve PATH: a unix server of uid 65534 that answers "HOST" (30 s at most)
  setpriv --reuid=65534 --regid=65534 --clear-groups timeout 30 /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
while True:
    c, _ = s.accept(); c.sendall(b"HOST\n"); c.close()' "$1" >/dev/null 2>&1 &
  PIDS+=($!)
}
serve "$E/server"
serve "$V/x/nvim.1.0"
serve "$F/a/b/c/deep.sock"
serve "$A/agent.sock"
serve "$M/srv"
wait_until test -S "$E/server" -a -S "$V/x/nvim.1.0" -a -S "$F/a/b/c/deep.sock" -a -S "$A/agent.sock" -a -S "$M/srv" ||
  missing "the test servers did not start"

probe='for s in "$@"; do /usr/bin/python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print(sys.argv[1], s.recv(8).decode().strip())
except OSError as e:
    print(sys.argv[1], \"refused\")" "$s"; done'
sb() {  # sb BWRAP_DIR [blaude options] -- SOCKETS...: the probe script on them
  local a=()
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  sb_nobody "${a[@]}" -- "$probe" "$@"
}

# Where the protect helper cannot run (its dry run lists no helper mounts: bwrap or the kernel
# lacks what it needs), the sockets stay reachable and the start says so, which is what is
# checked then. (The forced-POSIX build, make posix, does run the helper: it takes the branch below.)
# (Seed-named /tmp entries that other tests make and remove meanwhile are no reason to refuse:
# the probe lists /tmp again where a name changed, and passes over a name that is gone.)
dry=$(sb_nobody /usr/bin --dry-run -- true) || log "the dry run failed: $(head -c 600 "$T_DIR/sb.err")"
if ! grep -q "are not bwrap's" <<<"$dry"; then
  out=$(sb /usr/bin -- "$E/server" || true)
  check "no protect helper: the socket is reachable" grep -qx "$E/server HOST" <<<"$out"
  check "no protect helper: the warning names the sockets left reachable" \
    grep -q "socket(s) of yours in /tmp.*stay reachable" "$T_DIR/sb.err"
  finish
  exit
fi
for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  SB_ENV=(BLAUDE_SCAN=sync)
  out=$(sb "$bw" -- "$E/server" "$V/x/nvim.1.0" "$F/a/b/c/deep.sock" "$A/agent.sock") ||
    log "$label: the session failed: $(head -c 600 "$T_DIR/sb.err")"
  check "$label: an emacs-like server socket is unreachable" grep -qx "$E/server refused" <<<"$out"
  check "$label: an nvim-like socket 3 levels down is unreachable" grep -qx "$V/x/nvim.1.0 refused" <<<"$out"
  check "$label control: the same server 4 levels down is reached" grep -qx "$F/a/b/c/deep.sock HOST" <<<"$out"
  check "$label: an agent socket without --ssh is unreachable" grep -qx "$A/agent.sock refused" <<<"$out"
  SB_ENV=(BLAUDE_SCAN=sync SSH_AUTH_SOCK="$A/agent.sock")
  out=$(sb "$bw" --ssh -- "$A/agent.sock") || log "$label --ssh: the session failed: $(head -c 600 "$T_DIR/sb.err")"
  SB_ENV=()
  check "$label control: --ssh still reaches its agent socket" grep -qx "$A/agent.sock HOST" <<<"$out"
done
# The default, late path: the scan for the user's sockets runs after bwrap's spawn, and its
# shadows join the helper's mounts before its fork (sandbox/bwrap/plan/deferred.hpp), even where the
# workspace scan is done before the plan (this small workspace). Same attacks, same control; and
# the log shows the late path ran.
LOGF="$H/.local/state/blaude/blaude.log"
rm -f "$LOGF"
SB_ENV=(BLAUDE_LOG=info)
out=$(sb /usr/bin -- "$E/server" "$V/x/nvim.1.0" "$F/a/b/c/deep.sock" "$A/agent.sock" || true)
SB_ENV=()
check "late scan: it finished after bwrap's start" grep -q "scan finished after bwrap's start" "$LOGF"
check "late scan: an emacs-like server socket is unreachable" grep -qx "$E/server refused" <<<"$out"
check "late scan: an nvim-like socket 3 levels down is unreachable" grep -qx "$V/x/nvim.1.0 refused" <<<"$out"
check "late scan: an agent socket without --ssh is unreachable" grep -qx "$A/agent.sock refused" <<<"$out"
check "late scan control: the same server 4 levels down is reached" grep -qx "$F/a/b/c/deep.sock HOST" <<<"$out"
SB_ENV=(SSH_AUTH_SOCK="$A/agent.sock")
out=$(sb /usr/bin --ssh -- "$A/agent.sock" || true)
SB_ENV=()
check "late scan control: --ssh still reaches its agent socket" grep -qx "$A/agent.sock HOST" <<<"$out"

# Servers started after the session began: in a dir of sockets only (one tmpfs over it) and,
# as the control, in a dir that also holds a file (its sockets shadowed one by one).
rm -f "$WS/up" "$WS/go"
late='touch up; i=0; while [ ! -e go ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; '"$probe"
sb_nobody /usr/bin -- "$late" "$E/late" "$M/late" "$M/srv" >"$T_DIR/late.out" &
lp=$!
wait_until test -e "$WS/up" || log "the late-server session did not start: $(head -c 300 "$T_DIR/sb.err")"
serve "$E/late"
serve "$M/late"
wait_until test -S "$E/late" -a -S "$M/late" || missing "the late test servers did not start"
touch "$WS/go"
wait "$lp"
out=$(cat "$T_DIR/late.out")
rm -f "$WS/up" "$WS/go"
check "a server started in a dir of sockets only after the start is unreachable" grep -qx "$E/late refused" <<<"$out"
check "a socket in a dir with a file is unreachable (shadowed on its own)" grep -qx "$M/srv refused" <<<"$out"
check "control: a server started after the start in a dir with a file is reached" grep -qx "$M/late HOST" <<<"$out"
check "the sockets-only dir is one tmpfs in the dry run" grep -qF -- "--tmpfs $E " <<<"$dry"

# Where the helper cannot run, it is said (not silently open).
SB_ENV=(BLAUDE_PROTECT_MOUNTS=bwrap-options)
out=$(sb /usr/bin -- "$E/server" || true)
SB_ENV=()
check "bwrap-option form: the warning names the sockets left reachable" grep -q "socket(s) of yours in /tmp.*stay reachable" "$T_DIR/sb.err"

# Sockets made and removed while sessions start: no start is refused.
setpriv --reuid=65534 --regid=65534 --clear-groups timeout 20 /usr/bin/python3 -c '
import socket, os, sys, time
d = sys.argv[1]; i = 0
while True:
    p = "%s/s%d" % (d, i % 50); s = socket.socket(socket.AF_UNIX)
    try: os.unlink(p)
    except OSError: pass
    s.bind(p); s.close(); time.sleep(0.0005); i += 1' "$C" >/dev/null 2>&1 &
PIDS+=($!)
ok=0
for i in $(seq 10); do
  if sb /usr/bin -- >/dev/null; then ok=$((ok+1)); else log "start $i refused: $(head -c 300 "$T_DIR/sb.err")"; fi
done
check_eq "10 sessions start while sockets come and go in /tmp" 10 "$ok"

# Big dirs of the user's in /tmp (a checkout, Claude Code's /tmp/claude-UID with the
# fswatch-probe-* dirs it leaves behind) spend the socket scan's bound of 256 dirs; the sockets
# of an agent and of an editor beside them must still be shadowed, whatever order /tmp lists
# them in. Two such dirs, made first and last (depth-first in listing order, either order
# reached one of them first: the agent and the editor stayed reachable). In a private /tmp, in
# a mount namespace of this test's own: 600 dirs of uid 65534 in the shared /tmp would make the
# start of every test running beside this one print the bound's warning. Controls: the warning
# says the bound was reached; the socket 4 levels down is reached.
cat >"$T_DIR/litter.sh" <<'EOS'
set -eu
T_DIR=$1 BLAUDE=$2 H=$3 WS=$4
hold=$(mktemp -d /run/blaude-t-hold.XXXXXX)
mount --bind "$T_DIR" "$hold"
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p "$T_DIR"
mount --bind "$hold" "$T_DIR"
umount "$hold" && rmdir "$hold"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
nobody mkdir -p /tmp/litter-a
nobody sh -c 'cd /tmp/litter-a && for i in $(seq 300); do mkdir "fswatch-probe-$i"; done'
nobody mkdir -p /tmp/agent.x /tmp/nvim.u/x /tmp/far/a/b
nobody mkdir -p /tmp/litter-z
nobody sh -c 'cd /tmp/litter-z && for i in $(seq 300); do mkdir "d$i"; done'
for s in /tmp/agent.x/agent.sock /tmp/nvim.u/x/nvim.1.0 /tmp/far/a/b/deep.sock; do
  nobody timeout 30 /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
while True:
    c, _ = s.accept(); c.sendall(b"HOST\n"); c.close()' "$s" >/dev/null 2>&1 &
done
for i in $(seq 100); do
  [ -S /tmp/agent.x/agent.sock ] && [ -S /tmp/nvim.u/x/nvim.1.0 ] && [ -S /tmp/far/a/b/deep.sock ] && break
  sleep 0.05
done
ls -U /tmp >"$T_DIR/litter.order"
probe=$(cat "$T_DIR/probe.sh")
for mode in sync default; do
  scan=; [ "$mode" = sync ] && scan=BLAUDE_SCAN=sync
  (cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb $scan \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard --exec sh -c "$probe" sh /tmp/agent.x/agent.sock /tmp/nvim.u/x/nvim.1.0 \
    /tmp/far/a/b/deep.sock </dev/null >"$T_DIR/litter.$mode.out" 2>"$T_DIR/litter.$mode.err") || true
done
kill $(jobs -p) 2>/dev/null || true
EOS
printf '%s' "$probe" >"$T_DIR/probe.sh"
# The private /tmp hides whatever the shared one held: a checkout or build dir under /tmp among
# them. blaude and its exec shim run from copies in $T_DIR, which is carried over.
mkdir -p "$T_DIR/.litter-bin"
cp "$BLAUDE" "$T_DIR/.litter-bin/blaude"
[ -e "$(dirname "$BLAUDE")/blaude-exec" ] && cp "$(dirname "$BLAUDE")/blaude-exec" "$T_DIR/.litter-bin/"
chmod -R a+rX "$T_DIR/.litter-bin"
unshare -m --propagation private bash "$T_DIR/litter.sh" "$T_DIR" "$T_DIR/.litter-bin/blaude" "$H" "$WS" ||
  fail "the private /tmp could not be set up"
log "the private /tmp listed: $(tr '\n' ' ' <"$T_DIR/litter.order" 2>/dev/null)"
for mode in sync default; do
  out=$(cat "$T_DIR/litter.$mode.out" 2>/dev/null)
  [ -n "$out" ] || log "litter ($mode): the session failed: $(head -c 600 "$T_DIR/litter.$mode.err")"
  check "litter ($mode): the agent socket beside 600 dirs of the user's is unreachable" \
    grep -qx "/tmp/agent.x/agent.sock refused" <<<"$out"
  check "litter ($mode): the nvim-like socket 3 levels down beside them is unreachable" \
    grep -qx "/tmp/nvim.u/x/nvim.1.0 refused" <<<"$out"
  check "litter ($mode) control: the scan's bound was reached, and said" \
    grep -q "the scan for your own sockets in /tmp stopped after 256 dirs" "$T_DIR/litter.$mode.err"
  check "litter ($mode) control: the socket 4 levels down is reached" \
    grep -qx "/tmp/far/a/b/deep.sock HOST" <<<"$out"
done
finish
