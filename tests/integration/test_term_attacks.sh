#!/usr/bin/env bash
# Attacks on the terminal layer from inside the real sandbox (bwrap as uid 65534), through the
# real blaude, with tmux as the user's terminal:
#  1. an OSC 52 read request with no clipboard tool (no DISPLAY): tmux with set-clipboard on
#     would answer it with its paste buffer (the user's copies) into the sandbox;
#  2. kill(0, SIGSTOP) inside: it stopped bwrap too, which froze the session (now the command's
#     own group stops, and blaude stops with it as a job: fg continues both); ptrace of the
#     sandbox's init (which could then stop bwrap, or hold the session open forever);
#  3. a stopped foreground process group that is not bwrap: Ctrl-C must still reach it;
#  4. O_NONBLOCK left on the user's terminal when blaude is SIGKILLed after it could not reopen
#     the terminal (the pts belongs to another uid, as after su / sudo -u / setpriv).
# Each has a control that shows the attack works where blaude does not stand in the way.
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v python3 >/dev/null || missing "python3 is not installed"
[ "$(id -u)" = 0 ] || host_lacks "needs root (the pane's terminal must belong to another uid than blaude)"

NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$H" "$WS" "$T_DIR/state"
chown -R $NOBODY:$NOBODY "$H" "$WS" "$T_DIR/state"
AS="cd $WS && env -i HOME=$H PATH=/usr/bin:/bin TERM=xterm XDG_STATE_HOME=$T_DIR/state setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups"
LOG="$T_DIR/state/blaude/blaude.log"

tm_start 160 40
n=0
sync() { n=$((n+1)); tm_run "echo SYNC$n"; tm_wait "^SYNC$n\$" 30 >/dev/null; }

# --- 1. OSC 52 read request, no clipboard tool --------------------------------------------------
tm set-option -g set-clipboard on
tm set-buffer "user-secret-$$"
# The child asks, then reads what comes back for 3 s (raw, no echo), and prints it in hex.
cat >"$WS/ask.py" <<'PY'
import os, select, sys, termios, tty
old = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, b"\x1b]52;c;?\x07")
got = b""
while select.select([0], [], [], 3)[0]:
    got += os.read(0, 256)
termios.tcsetattr(0, termios.TCSADRAIN, old)
print("REPLY[%s]" % got.hex())
PY
chmod 644 "$WS/ask.py"
tm_run "$AS python3 ask.py; echo END-ask-direct"
tm_wait '^END-ask-direct' 60 >/dev/null || fail "the direct run of ask.py did not end"
SECRET_HEX=$(printf 'user-secret-%s' $$ | base64 -w0 | od -An -tx1 | tr -d ' \n' | cut -c1-16)
check "control: run directly, the child gets tmux's answer (the paste buffer)" \
  tm_wait "REPLY\\[1b5d3532.*$SECRET_HEX" 5
tm_run "$AS $BLAUDE --exec python3 ask.py; echo END-ask"
tm_wait '^END-ask$' 120 >/dev/null || fail "blaude with ask.py did not end"
check "under blaude (sandboxed, no clipboard tool): no answer reaches the child" tm_wait '^REPLY\[\]' 5
check "... and the log says the read request was removed" grep -q "removed a read request" "$LOG"

# --- 2. kill(0, SIGSTOP) inside the sandbox; ptrace of the sandbox's init --------------------
# The exec shim gives the command its own process group in the foreground of blaude's pty, and a
# Landlock domain nested in bwrap's: bwrap and the init are in a group nothing inside can name,
# and out of ptrace's (and signals') reach. Controls: the same attacks under bare bwrap.
BARE="bwrap --ro-bind / / --dev /dev --proc /proc --unshare-user --unshare-pid --die-with-parent"
tm_run "$AS $BARE sh -c 'kill -STOP 0; echo CONTINUED-direct'; echo END-stop-direct"
check "control: under bare bwrap, kill(0, SIGSTOP) inside stops bwrap (the shell reports it stopped)" \
  tm_wait 'Stopped' 30
tm_run "kill -9 %1; wait %1; echo JOB-GONE"
tm_wait '^JOB-GONE' 20 >/dev/null || fail "the stopped job of the control did not go"
: >"$LOG"
tm_run "$AS $BLAUDE --exec sh -c 'echo STOPPING; kill -STOP 0; echo CONTINUED; exit 7'; echo END-stop=\$?"
tm_wait '^STOPPING' 120 >/dev/null || fail "the kill(0, SIGSTOP) child did not start under blaude"
bp=$(pgrep -P "$(tm_pane_pid)" | head -n1)
bw=$(pgrep -P "$bp" -x bwrap | head -n1)
[ -n "$bw" ] || fail "no bwrap under blaude ($bp)"
inner_stopped() {  # a process of this command line in state T (the sh inside, if it worked)
  local p
  for p in $(pgrep -f 'echo STOPPING; kill -STOP 0'); do
    case "$(ps -o stat= -p "$p")" in T*) return 0 ;; esac
  done
  return 1
}
check "under blaude: the command stopped itself (its own group)" wait_until inner_stopped
check_eq "... and bwrap did not stop (state S, not T)" S "$(ps -o stat= -p "$bw" | cut -c1)"
check "... nor did blaude see its child stop" not grep -q "was stopped by signal" "$LOG"
# The command's own group stopped: blaude stops with it as a job of the pane's shell (job
# control, test_pty_job_control) when it looks (after a key), and `fg` continues both. The shell
# goes on with its command line at the stop (END-stop=148: blaude stopped with SIGTSTP).
tm_enter
check "a key typed: blaude stops with the stopped command, the shell has the terminal" tm_wait '^END-stop=148' 30
check "... the log says so" grep -q "the command's process group .* stopped; stopping blaude with it" "$LOG"
tm_run "fg; echo END-fg=\$?"
check "fg continues the command, and it goes on" tm_wait '^CONTINUED' 30
check "... with its exit status" tm_wait '^END-fg=7' 60
sync

cat >"$WS/ptr.py" <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.ptrace(0x4206, 1, 0, 0)  # PTRACE_SEIZE the sandbox's init (pid 1)
print("SEIZE-%s" % ("ok" if r == 0 else os.strerror(ctypes.get_errno()).replace(" ", "-")), flush=True)
PY
chmod 644 "$WS/ptr.py"
tm_run "$AS $BARE python3 ptr.py; echo END-ptr-direct"
check "control: under bare bwrap, the command can ptrace the sandbox's init" tm_wait '^SEIZE-ok' 60
tm_wait '^END-ptr-direct' 60 >/dev/null || fail "bare bwrap with ptr.py did not end"
tm_run "$AS $BLAUDE --exec python3 ptr.py; echo END-ptr"
check "under blaude: ptrace of the sandbox's init is refused" tm_wait '^SEIZE-Operation-not-permitted' 120
tm_wait '^END-ptr$' 60 >/dev/null || fail "blaude with ptr.py did not end"

# --- 3. a stopped foreground group that is not bwrap; Ctrl-C ------------------------------------
# The child puts a grandchild in its own process group in the foreground, which stops itself;
# the child waits for it (not for stops). Ctrl-C then only queues SIGINT for a stopped process.
cat >"$WS/fg.py" <<'PY'
import os, signal, sys, time
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, os.getpgrp())
    tag = sys.argv[1]
    signal.signal(signal.SIGINT, lambda *a: (print("GOT-INT-" + tag, flush=True), os._exit(5)))
    print("STOPPING-%s pid=%d" % (tag, os.getpid()), flush=True)
    os.kill(0, signal.SIGSTOP)
    time.sleep(30)
    os._exit(0)
_, st = os.waitpid(pid, 0)
print("CHILD-STATUS-" + sys.argv[1], os.waitstatus_to_exitcode(st), flush=True)
PY
chmod 644 "$WS/fg.py"
tm_run "$AS python3 fg.py direct; echo END-fg-direct"
tm_wait '^STOPPING-direct' 60 >/dev/null || fail "the direct run of fg.py did not start"
tm send-keys -t t C-c
check "control: run directly, Ctrl-C does nothing to the stopped group (3 s)" \
  not tm_wait 'GOT-INT-direct' 3
gpid=$(tm_screen | sed -n 's/^STOPPING-direct pid=\([0-9]*\)$/\1/p' | tail -n1)
[ -n "$gpid" ] || fail "no pid from the direct run of fg.py"
kill -KILL "$gpid"
tm_wait '^END-fg-direct' 10 >/dev/null || true
sync
: >"$LOG"
tm_run "$AS $BLAUDE --exec python3 fg.py blaude; echo END-fgpy=\$?"
tm_wait '^STOPPING-blaude' 120 >/dev/null || fail "fg.py did not start under blaude"
tm send-keys -t t C-c
check "under blaude: Ctrl-C continues the stopped group and reaches it" tm_wait 'GOT-INT-blaude' 30
check "... the child sees it end" tm_wait '^CHILD-STATUS-blaude 5' 30
check "... the log says so" grep -q "foreground process group .* is stopped; continuing it" "$LOG"
# Typed only once blaude is gone: what is typed while its reply fence runs is dropped.
tm_wait '^END-fgpy=' 30 >/dev/null || fail "blaude with fg.py did not end"
sync

# --- 4. O_NONBLOCK on a terminal blaude could not reopen, then SIGKILL -------------------------
# bash clears O_NONBLOCK on its input itself when a read fails with EAGAIN (other shells and
# programs do not): the flag is read by the next command of the same line, before bash reads
# again. nbcheck waits until no blaude process of this test is left (the watchdog included).
cat >"$T_DIR/nbcheck.py" <<'PY'
import fcntl, os, sys, time
state, exe = sys.argv[1], sys.argv[2]
def ours():
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/exe" % p) != exe:
                continue
            env = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
            if ("XDG_STATE_HOME=" + state).encode() in env:
                return True
        except OSError:
            pass
    return False
deadline = time.time() + 20
while ours() and time.time() < deadline:
    time.sleep(0.02)
print("NB-AFTER=%d" % bool(fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK))
PY
NBCHECK="python3 $T_DIR/nbcheck.py $T_DIR/state $(readlink -f "$BLAUDE")"
check "the pane's terminal belongs to root, not to uid $NOBODY" \
  test "$(stat -c %u "$(tm display-message -p -t t '#{pane_tty}')")" = 0
# Control: a process of another uid that sets O_NONBLOCK on the shared description and dies by
# SIGKILL leaves it set, and the check sees it.
tm_run "setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups /usr/bin/python3 -c 'import fcntl,os,signal; fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK); os.kill(os.getpid(), signal.SIGKILL)'; $NBCHECK"
check "control: a SIGKILLed process leaves O_NONBLOCK on the shared terminal" tm_wait '^NB-AFTER=1' 30
sync
: >"$LOG"
tm_run "$AS $BLAUDE --exec sh -c 'echo READY-NB; exec sleep 60'; $NBCHECK"
tm_wait '^READY-NB' 120 >/dev/null || fail "blaude did not start (O_NONBLOCK case)"
bp=$(pgrep -P "$(tm_pane_pid)" | head -n1)  # env and setpriv exec blaude: the pane's child
check "blaude runs on the shared descriptors (it could not reopen the terminal)" \
  wait_until grep -q "cannot reopen the terminal" "$LOG"
# (fdinfo shows the flags of blaude's own descriptor 0, the description it shares with the shell)
check_eq "... which are non-blocking while it runs" 1 \
  "$(python3 -c 'import os,sys; f=open(sys.argv[1]).read().split("flags:")[1].split()[0]; print(int(bool(int(f, 8) & os.O_NONBLOCK)))' "/proc/$bp/fdinfo/0" 2>/dev/null)"
kill -KILL "$bp"
check "after SIGKILL of blaude: the terminal is blocking again (the watchdog put it back)" \
  tm_wait '^NB-AFTER=0' 60

finish
