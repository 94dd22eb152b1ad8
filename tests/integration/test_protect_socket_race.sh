#!/usr/bin/env bash
# The shadows over the seed's /tmp socket names (dbus-launch's bare
# /tmp/dbus-XXXX) against probe-then-mount. While real blaude sessions start, another process of
# the same user keeps exchanging the socket with a symlink to a decoy file, both under seed names
# (renameat2 RENAME_EXCHANGE: a name is always there). Two races:
# - the probe's: /tmp listed, then each name stat'ed in turn: a flip between two stats showed two
#   symlinks and no socket, and nothing was shadowed (3 of 10 launches on main 37db5e1). Now one
#   getdents64 of a held /tmp descriptor (one state of the dir: the kernel lists it under the lock
#   a rename takes) and each name's identity from fstatat on that descriptor, checked against the
#   listed inode (a flip in between: the launch refuses);
# - the mount's: a shadow mounted by PATH follows the symlink if the swap lands between the probe
#   and the mount. The protect helper mounts the shadow on the object it opened with no symlink on
#   the way and checked against the probe's (dev, ino); the bwrap-option form binds /dev/null from
#   a held descriptor and bwrap checks where it landed. Each launch either starts with the socket
#   shadowed (a mount follows its dentry through later swaps) or refuses, saying why.
# Fixed launch count, with bwrap 0.8 and the overlay bwrap, in both forms of the protections.
# The whole test runs in a PRIVATE /tmp (private_tmp.sh): its flipping never touches the
# machine's /tmp, where every other blaude's probe would see it and refuse. So it is in `make test`.
# The control: the same flipping against a plain bwrap path shadow (what blaude did before) does
# reach the socket (tried until it does, at most 20 times the launch count); bwrap 0.10+ refuses
# a mount onto a symlink itself, which is checked instead.
. "$(dirname "$0")/private_tmp.sh"
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v python3 >/dev/null || missing python3
LAUNCHES=${BLAUDE_RACE_LAUNCHES:-15}
OVERLAY=${BLAUDE_BWRAP_OVERLAY:-/var/cache/blaude-test/bwrap-overlay/bin/bwrap}
BWRAPS=(/usr/bin/bwrap)
[ -x "$OVERLAY" ] && BWRAPS+=("$OVERLAY")
[ "${CI:-}" = true ] && [ ! -x "$OVERLAY" ] && { fail "CI: the overlay bwrap is missing ($OVERLAY)"; finish; exit 1; }

H="$T_DIR/home"
W="$T_DIR/proj"
mkdir -p "$H/.claude" "$W"
chown -R 65534:65534 "$H" "$W"
TAG="guard-$$-$RANDOM"
A="/tmp/dbus-$TAG-a"   # the socket at start
B="/tmp/dbus-$TAG-b"   # a symlink to the decoy at start
D="/tmp/decoy-$TAG"
at_exit "rm -f '$A' '$B' '$D'"

cat >"$T_DIR/srv.py" <<'EOF'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(64)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept(); c.sendall(b"HELLO\n"); c.close()
EOF
# Inside: tries both names a number of times (the flipper keeps moving the socket between them).
cat >"$T_DIR/cli.py" <<'EOF'
import socket, sys
hit = 0
for i in range(60):
    for name in sys.argv[1:]:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(name)
            if s.recv(6) == b"HELLO\n": hit += 1
        except OSError:
            pass
        s.close()
print("CONNECTED" if hit else "REFUSED")
EOF
chmod 644 "$T_DIR/srv.py" "$T_DIR/cli.py"
# Relative: bwrap resolves a link at a mount's destination inside the new root, as the sandbox will.
touch "$D" && ln -s "decoy-$TAG" "$B" && chown -h 65534:65534 "$D" "$B"
# setpriv execs python: $! is the listener itself (a function would leave it holding ctest's pipe).
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$T_DIR/srv.py" "$A" "$H/ready" >/dev/null 2>&1 &
at_exit "kill $!"
wait_until test -e "$H/ready" || { fail "the listener did not start"; finish; exit 1; }

flip_until() {
  as_nobody /usr/bin/python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (s.encode() for s in sys.argv[1:4])
for i in range(2000000):
    if i % 256 == 0 and os.path.exists(stop):
        break
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
' "$A" "$B" "$T_DIR/stop"
}
# Puts the socket back at A (the flipper stops at either state).
settle() { [ -L "$A" ] && as_nobody /usr/bin/python3 -c 'import ctypes,sys; ctypes.CDLL(None).renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)' "$A" "$B"; true; }

inside="python3 $T_DIR/cli.py $A $B; echo END"
check_eq "control: the socket answers on the host" CONNECTED "$(as_nobody /usr/bin/python3 "$T_DIR/cli.py" "$A" "$B")"
for mode in helper bwrap-options; do
  pm=""
  [ "$mode" = bwrap-options ] && pm=bwrap-options
  for bw in "${BWRAPS[@]}"; do
    v="$("$bw" --version | awk '{print $2}') ($mode)"
    rm -f "$T_DIR/stop"
    flip_until &
    fpid=$!
    started=0 refused=0 leaked=0 silent=0
    for i in $(seq 1 "$LAUNCHES"); do
      out=$(cd "$W" && env -i HOME="$H" PATH="$(dirname "$bw"):/usr/bin:/bin" TERM=dumb BLAUDE_PROTECT_MOUNTS="$pm" \
        setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$BLAUDE" --no-clipboard --exec sh -c "$inside" </dev/null 2>"$T_DIR/err") || true
      grep -q CONNECTED <<<"$out" && leaked=$((leaked + 1))
      if grep -q END <<<"$out"; then started=$((started + 1)); else refused=$((refused + 1)); fi
      if ! grep -q END <<<"$out" && ! grep -q "changed while the sandbox was starting\|changed while blaude was starting\|bwrap stopped while making its mounts" "$T_DIR/err"; then
        echo "launch $i ended without a word:"; cat "$T_DIR/err"
        silent=$((silent + 1))
      fi
    done
    if ! kill -0 "$fpid" 2>/dev/null; then
      wait "$fpid" || true
      flip_until &
      fpid=$!
    fi
    # Control: a path shadow, as blaude made it before, under the same flipping. bwrap 0.10+
    # refuses any mount onto a symlink by itself, so there the race cannot be won: what is checked
    # instead is that refusal, on a link that stays put.
    ctl=0 tries=0
    maxtries=$((LAUNCHES * 20))
    ctlmsg=""
    if [ "$(printf '%s\n' "${v%% *}" 0.10.0 | sort -V | head -1)" = 0.10.0 ]; then
      maxtries=0
      ln -sfn "decoy-$TAG" "/tmp/dbus-$TAG-fixed"
      at_exit "rm -f '/tmp/dbus-$TAG-fixed'"
      err=$(as_nobody "$bw" --unshare-user --ro-bind / / --bind /tmp /tmp --ro-bind /dev/null "/tmp/dbus-$TAG-fixed" true 2>&1) || true
      grep -q "symlink" <<<"$err" && ctl=1 && ctlmsg="bwrap itself refuses a mount on a symlink ($err)"
    fi
    while [ "$ctl" -eq 0 ] && [ "$tries" -lt "$maxtries" ]; do
      tries=$((tries + 1))
      # The flipper's swaps can run out during the control too (then nothing moves any more).
      if ! kill -0 "$fpid" 2>/dev/null; then
        wait "$fpid" || true
        flip_until &
        fpid=$!
      fi
      out=$(as_nobody "$bw" --unshare-user --ro-bind / / --bind /tmp /tmp --ro-bind /dev/null "$A" \
        python3 "$T_DIR/cli.py" "$A" "$B" 2>/dev/null) || true
      grep -q CONNECTED <<<"$out" && ctl=1
    done
    [ -z "$ctlmsg" ] && ctlmsg="a path shadow was passed after $tries tries"
    touch "$T_DIR/stop"
    wait "$fpid" || true
    settle
    calm=0
    for i in 1 2 3; do
      out=$(cd "$W" && env -i HOME="$H" PATH="$(dirname "$bw"):/usr/bin:/bin" TERM=dumb BLAUDE_PROTECT_MOUNTS="$pm" \
        setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$BLAUDE" --no-clipboard --exec sh -c "$inside" </dev/null 2>"$T_DIR/err") || true
      grep -q END <<<"$out" && grep -q REFUSED <<<"$out" && calm=$((calm + 1))
    done
    log "bwrap $v: $LAUNCHES launches under flipping: $started started, $refused refused, $leaked reached the socket; control: $ctlmsg"
    check_eq "bwrap $v: no launch reaches the shadowed socket" 0 "$leaked"
    check_eq "bwrap $v: every refusal says why" 0 "$silent"
    check_eq "bwrap $v: once the flipping stops, every launch starts with the socket shadowed (3 of 3)" 3 "$calm"
    check "bwrap $v, control: the race is real, or bwrap refuses it itself ($ctlmsg)" test "$ctl" -gt 0
  done
done

# A socket DIR's shadow in the bwrap-option form (setuid bwrap, old kernels) is
# bwrap's --tmpfs by path: bwrap 0.8 follows a symlink swapped in at the name and mounts the
# tmpfs where it leads, while the real dir (under the other seed name, a symlink at the probe, so
# never shadowed) stays reachable. blaude's exec shim now checks from inside that each such tmpfs
# is a tmpfs mounted on the name itself (mount_checks.hpp), and runs nothing otherwise. Control:
# the same launches with that check off (BLAUDE_MOUNT_CHECKS=off) reach the socket on 0.8 (tried
# until one does); bwrap 0.10+ refuses a --tmpfs onto a symlink itself, which is checked instead.
AD="/tmp/ssh-$TAG-a"   # the socket dir at start
BD="/tmp/ssh-$TAG-b"   # a symlink to a decoy dir at start
DD="/tmp/decoyd-$TAG"
mkdir "$AD" "$DD" && ln -s "decoyd-$TAG" "$BD" && chown -h 65534:65534 "$AD" "$DD" "$BD"
at_exit "rm -rf '$AD' '$BD' '$DD' '/tmp/ssh-$TAG-fixed'"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$T_DIR/srv.py" "$AD/agent" "$H/ready-d" >/dev/null 2>&1 &
at_exit "kill $!"
wait_until test -e "$H/ready-d" || { fail "the dir listener did not start"; finish; exit 1; }
inside_d="python3 $T_DIR/cli.py $AD/agent $BD/agent; echo END"
dlaunch() { # dlaunch BWRAP [KNOB]
  (cd "$W" && env -i HOME="$H" PATH="$(dirname "$1"):/usr/bin:/bin" TERM=dumb BLAUDE_PROTECT_MOUNTS=bwrap-options \
    BLAUDE_MOUNT_CHECKS="${2:-}" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard --exec sh -c "$inside_d" </dev/null 2>"$T_DIR/err") || true
}
check_eq "control: the dir's socket answers on the host" CONNECTED "$(as_nobody /usr/bin/python3 "$T_DIR/cli.py" "$AD/agent" "$BD/agent")"
for bw in "${BWRAPS[@]}"; do
  v="$("$bw" --version | awk '{print $2}') (bwrap-options, socket dir)"
  rm -f "$T_DIR/stop"
  A="$AD" B="$BD" flip_until &
  fpid=$!
  started=0 refused=0 leaked=0 silent=0
  for i in $(seq 1 "$LAUNCHES"); do
    out=$(dlaunch "$bw")
    grep -q CONNECTED <<<"$out" && leaked=$((leaked + 1))
    if grep -q END <<<"$out"; then started=$((started + 1)); else refused=$((refused + 1)); fi
    if ! grep -q END <<<"$out" && ! grep -q "changed while the sandbox was starting\|changed while blaude was starting\|bwrap stopped while making its mounts" "$T_DIR/err"; then
      echo "launch $i ended without a word:"; cat "$T_DIR/err"
      silent=$((silent + 1))
    fi
  done
  ctl=0 tries=0 maxtries=$((LAUNCHES * 20)) ctlmsg=""
  if [ "$(printf '%s\n' "${v%% *}" 0.10.0 | sort -V | head -1)" = 0.10.0 ]; then
    maxtries=0
    ln -sfn "decoyd-$TAG" "/tmp/ssh-$TAG-fixed"
    err=$(as_nobody "$bw" --unshare-user --ro-bind / / --bind /tmp /tmp --tmpfs "/tmp/ssh-$TAG-fixed" true 2>&1) || true
    grep -q "symlink" <<<"$err" && ctl=1 && ctlmsg="bwrap itself refuses a tmpfs on a symlink ($err)"
  fi
  while [ "$ctl" -eq 0 ] && [ "$tries" -lt "$maxtries" ]; do
    tries=$((tries + 1))
    if ! kill -0 "$fpid" 2>/dev/null; then
      wait "$fpid" || true
      A="$AD" B="$BD" flip_until &
      fpid=$!
    fi
    grep -q CONNECTED <<<"$(dlaunch "$bw" off)" && ctl=1
  done
  [ -z "$ctlmsg" ] && ctlmsg="blaude with the check off reached the socket after $tries tries"
  touch "$T_DIR/stop"
  wait "$fpid" || true
  [ -L "$AD" ] && as_nobody /usr/bin/python3 -c 'import ctypes,sys; ctypes.CDLL(None).renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)' "$AD" "$BD"
  calm=0
  for i in 1 2 3; do
    out=$(dlaunch "$bw")
    grep -q END <<<"$out" && grep -q REFUSED <<<"$out" && calm=$((calm + 1))
  done
  log "bwrap $v: $LAUNCHES launches under flipping: $started started, $refused refused, $leaked reached the socket; control: $ctlmsg"
  check_eq "bwrap $v: no launch reaches the shadowed socket dir" 0 "$leaked"
  check_eq "bwrap $v: every refusal says why" 0 "$silent"
  check_eq "bwrap $v: once the flipping stops, every launch starts with the dir shadowed (3 of 3)" 3 "$calm"
  check "bwrap $v, control: the race is real, or bwrap refuses it itself ($ctlmsg)" test "$ctl" -gt 0
done
# Seed-named entries made and removed while sessions start (a test suite's or a session bus's
# /tmp/dbus-* sockets, a socket dir of ssh-*): a name gone since the probe's listing, or made
# again, is no reason to refuse a start (it was: 65 of 100 starts refused beside such a process,
# and a ctest run failed on it). Every start must start, in both bwraps, with the helper, and a
# steady seed-named socket beside the churn must stay shadowed in each. Control: the churn is
# live while the sessions run (they see its names in /tmp), and the steady socket answers on
# the host.
S="/tmp/dbus-$TAG-steady"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$T_DIR/srv.py" "$S" "$H/ready-s" >/dev/null 2>&1 &
at_exit "kill $!; rm -f '$S'"
wait_until test -e "$H/ready-s" || { fail "the steady listener did not start"; finish; exit 1; }
check_eq "control: the steady socket answers on the host" CONNECTED "$(as_nobody /usr/bin/python3 "$T_DIR/cli.py" "$S")"
rm -f "$T_DIR/stop"
as_nobody /usr/bin/python3 -c '
import os, socket, sys, time
tag, stop = sys.argv[1], sys.argv[2]
i = 0
while not (i % 64 == 0 and os.path.exists(stop)):
    n = i % 4
    p = "/tmp/dbus-%s-churn%d" % (tag, n)
    d = "/tmp/ssh-%s-churn%d" % (tag, n)
    s = socket.socket(socket.AF_UNIX)
    try: s.bind(p)
    except OSError: pass
    s.close()
    try: os.mkdir(d)
    except OSError: pass
    time.sleep(0.0002)
    for f in (os.unlink, os.rmdir):
        try: f(p if f is os.unlink else d)
        except OSError: pass
    i += 1
' "$TAG" "$T_DIR/stop" &
cpid=$!
at_exit "touch '$T_DIR/stop'; kill $cpid 2>/dev/null; rm -rf /tmp/dbus-$TAG-churn* /tmp/ssh-$TAG-churn*"
inside_c="python3 $T_DIR/cli.py $S; ls /tmp | grep -c -- '-$TAG-churn'; echo END"
for bw in "${BWRAPS[@]}"; do
  v="$("$bw" --version | awk '{print $2}')"
  started=0 shadowed=0 saw=0
  for i in $(seq 1 $((LAUNCHES * 2))); do
    out=$(cd "$W" && env -i HOME="$H" PATH="$(dirname "$bw"):/usr/bin:/bin" TERM=dumb \
      setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$BLAUDE" --no-clipboard --exec sh -c "$inside_c" </dev/null 2>"$T_DIR/err") || true
    if grep -q END <<<"$out"; then started=$((started + 1)); else log "bwrap $v: launch $i refused: $(head -c 300 "$T_DIR/err")"; fi
    grep -qx REFUSED <<<"$out" && shadowed=$((shadowed + 1))
    [ "$(sed -n 2p <<<"$out")" -gt 0 ] 2>/dev/null && saw=$((saw + 1))
  done
  check_eq "bwrap $v: every launch starts while seed-named entries come and go" $((LAUNCHES * 2)) "$started"
  check_eq "bwrap $v: the steady seed socket is shadowed in each" $((LAUNCHES * 2)) "$shadowed"
  check "bwrap $v, control: the sessions saw the churn in /tmp ($saw of $((LAUNCHES * 2)))" test "$saw" -gt 0
done
touch "$T_DIR/stop"
wait "$cpid" || true
finish
