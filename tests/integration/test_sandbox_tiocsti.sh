#!/usr/bin/env bash
# TIOCSTI from inside the sandbox must not reach the user's shell: with stdio not a terminal
# (bwrap --new-session, and the syscall filter) and under blaude's pty. tmux is the user's terminal; its shell runs as
# root, the sandbox as uid 65534, and the injected command would create a file in a root-only
# dir, which only the user's shell can do. Controls: the same injection from a process that
# legitimately shares the terminal succeeds, and so does the sandbox without --new-session.
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v python3 >/dev/null || missing "python3 is not installed"
[ "$(id -u)" = 0 ] || host_lacks "needs root (the user's shell must be able to do what the sandbox cannot)"
legacy=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo "absent (kernel < 6.2: TIOCSTI always allowed)")
log "dev.tty.legacy_tiocsti = $legacy"
# With 0 the kernel itself refuses the attack, so neither it nor its control can run; CI must
# keep the default (1) so that the --new-session protection stays tested.
[ "$legacy" = 0 ] && host_lacks "the kernel refuses TIOCSTI to unprivileged processes (dev.tty.legacy_tiocsti=0): no attack possible"

NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
OUT="$T_DIR/outer"  # only the user's (root) shell can create files here
mkdir -p "$H" "$WS" "$OUT"
chown -R $NOBODY:$NOBODY "$H" "$WS"
chmod 700 "$OUT"
cat >"$T_DIR/sti.py" <<'PY'
import fcntl, sys, termios
for b in (sys.argv[1] + "\n").encode():
    try:
        fcntl.ioctl(0, termios.TIOCSTI, bytes([b]))
    except OSError as e:
        print("TIOCSTI refused for", sys.argv[1].split("/")[-1] + ":", e.strerror)
        break
else:
    print("TIOCSTI injected for", sys.argv[1].split("/")[-1])
PY
chmod 644 "$T_DIR/sti.py"
AS="cd $WS && env -i HOME=$H PATH=/usr/bin:/bin TERM=xterm setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups"
attack() { echo "python3 $T_DIR/sti.py 'touch $OUT/$1'"; }

tm_start 160 40
n=0
# run_case NAME COMMAND: type COMMAND in the user's shell, wait for it and for the shell to
# read anything that was injected meanwhile.
run_case() {
  n=$((n + 1))
  tm_run "$2; echo END-$n"
  tm_wait "^END-$n\$" 60
  tm_run "echo SYNC-$n"
  tm_wait "^SYNC-$n\$" 30
}
injected() { wait_until test -e "$OUT/$1"; }

# Control 1: a process sharing the terminal (uid 65534, no sandbox) can inject.
run_case ctl "$AS $(attack ctl)"
check "control: TIOCSTI on the shared terminal reaches the user's shell" injected ctl

# Stdio not a terminal (stdout piped): blaude runs bwrap on the user's tty, with --new-session.
run_case pipes "$AS $BLAUDE --exec $(attack pipes) | cat"
check "pipes mode: the sandbox's TIOCSTI is refused" tm_wait "^TIOCSTI refused for pipes: Operation not permitted" 5
check "pipes mode: nothing reached the user's shell" test ! -e "$OUT/pipes"

# --new-session on its own, the syscall filter off: still refused.
run_case pipes-nofilter "$AS env BLAUDE_SECCOMP=off $BLAUDE --exec $(attack pipes-nofilter) | cat"
check "pipes mode, no syscall filter: --new-session alone refuses TIOCSTI" \
  tm_wait "^TIOCSTI refused for pipes-nofilter: Operation not permitted" 5
check "pipes mode, no syscall filter: nothing reached the user's shell" test ! -e "$OUT/pipes-nofilter"

# Control 2: the same sandbox without --new-session (nor the syscall filter, which --dry-run's
# command does not carry) does reach the shell.
(cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
  "$BLAUDE" --dry-run --exec sh -c "$(attack nosession)" </dev/null 2>/dev/null) >"$T_DIR/plan.sh"
check "the plan for non-terminal stdio has --new-session" grep -q '^  --new-session \\$' "$T_DIR/plan.sh"
grep -v -- '^  --new-session \\$' "$T_DIR/plan.sh" >"$T_DIR/nosession.sh"
chmod 644 "$T_DIR/nosession.sh"
run_case nosession "$AS sh $T_DIR/nosession.sh | cat"
check "control: without --new-session the sandbox's TIOCSTI reaches the user's shell" injected nosession

# Under blaude's pty: the syscall filter refuses TIOCSTI there too; without it the injection
# lands in the sandbox's own terminal, never the user's.
run_case pty "$AS $BLAUDE --exec $(attack pty)"
check "pty mode: the syscall filter refuses TIOCSTI" tm_wait "^TIOCSTI refused for pty: Operation not permitted" 5
check "pty mode: nothing reached the user's shell" test ! -e "$OUT/pty"
run_case pty-nofilter "$AS env BLAUDE_SECCOMP=off $BLAUDE --exec $(attack pty-nofilter)"
check "pty mode, no syscall filter: TIOCSTI works on the sandbox's own pty (the attacker's terminal)" \
  tm_wait "^TIOCSTI injected for pty-nofilter\$" 5
check "pty mode, no syscall filter: nothing reached the user's shell" test ! -e "$OUT/pty-nofilter"

finish
