#!/usr/bin/env bash
# Job control through blaude, with tmux as the user's terminal and the real sandbox (bwrap as uid
# 65534): when the command stops (Ctrl-Z in a cooked child, a raw-mode child that stops itself on
# its Ctrl-Z as vi or Claude Code do, kill -STOP of the direct child), blaude stops with it: the
# user's shell gets the terminal back (prompt, `jobs` lists blaude) with the terminal's modes as
# before blaude and the child's modes (mouse reporting) off; `fg` puts them back and continues the
# command, which then gets the keys. The terminal's modes after the end equal those before.
# Control: the same command under a relay without job control (python's pty.spawn, with the
# command in a group of its own below an init-like parent, as in the sandbox): the command stops,
# the prompt does not come back.
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v python3 >/dev/null || missing "python3 is not installed"
[ "$(id -u)" = 0 ] || host_lacks "needs root (setpriv to uid 65534 from the pane's shell)"

NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$H" "$WS" "$T_DIR/state"
chown -R $NOBODY:$NOBODY "$H" "$WS" "$T_DIR/state"
AS="cd $WS && env -i HOME=$H PATH=/usr/bin:/bin TERM=xterm XDG_STATE_HOME=$T_DIR/state setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups"
LOG="$T_DIR/state/blaude/blaude.log"

# A raw-mode child: mouse reporting on, each key echoed as KEY[hex]; on Ctrl-Z it puts its
# termios back and stops its group with SIGTSTP (as vi, less or Claude Code do), and on SIGCONT
# goes raw again; q ends it with status 5.
cat >"$WS/rawchild.py" <<'PY'
import os, signal, sys, termios, tty
tag = sys.argv[1]
saved = termios.tcgetattr(0)
def raw():
    tty.setraw(0)
    os.write(1, b"\x1b[?1000h")
def say(s):
    os.write(1, (s + "\r\n").encode())
raw()
say("RAW-READY-" + tag)
while True:
    b = os.read(0, 1)
    if not b or b == b"q":
        break
    if b == b"\x1a":
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
        say("SUSPENDING-" + tag)
        os.kill(0, signal.SIGTSTP)
        raw()
        say("RESUMED-" + tag)
    else:
        say("KEY[%s]-%s" % (b.hex(), tag))
os.write(1, b"\x1b[?1000l")
termios.tcsetattr(0, termios.TCSADRAIN, saved)
sys.exit(5)
PY
# For the control: what the sandbox's init and exec shim do (the command in a group of its own,
# in the foreground, below a parent that waits for it without WUNTRACED).
cat >"$WS/mid.py" <<'PY'
import os, signal, sys
c = os.fork()
if c == 0:
    os.setpgid(0, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, os.getpgrp())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execvp(sys.argv[1], sys.argv[1:])
_, st = os.waitpid(c, 0)
sys.exit(os.waitstatus_to_exitcode(st))
PY
chmod 644 "$WS/rawchild.py" "$WS/mid.py"

tm_start 160 40
tm_wait '^\$ $' 10 >/dev/null
n=0
# shell_answers: the pane's shell reads what is typed and runs it (blaude no longer holds the keys)
shell_answers() { n=$((n+1)); tm_run "echo SYNC$n"; tm_wait "^SYNC$n\$" 30 >/dev/null; }
sync() { shell_answers || fail "the shell did not answer (SYNC$n)"; }
mouse() { tm display-message -p -t t '#{mouse_any_flag}'; }
# running_raw: blaude runs (continued by fg) and the pane's terminal is in raw mode: blaude has it
# again (readline's own non-canonical mode ends before bash runs fg, while blaude is stopped)
running_raw() { ! blaude_stopped && stty -a -F "$(tm display-message -p -t t '#{pane_tty}')" | grep -q -- '-icanon'; }
tm_run "stty -g > $T_DIR/stty.before; echo SAVED"
tm_wait '^SAVED' 10 >/dev/null
# stty_now NAME: the pane's modes now, in $T_DIR/stty.NAME (run from the pane's shell)
stty_now() { tm_run "stty -g > $T_DIR/stty.$1; echo STTY-$1"; tm_wait "^STTY-$1\$" 30 >/dev/null; }
# modes_as_before NAME: the pane's modes, taken by the shell, equal those before blaude
modes_as_before() { stty_now "$1" && cmp -s "$T_DIR/stty.before" "$T_DIR/stty.$1"; }
# stopped_modes NAME: blaude is stopped, and the pane's modes are as before it
stopped_modes() { blaude_stopped && modes_as_before "$1" && blaude_stopped; }
# An interactive bash goes on with the rest of a command line when its job stops: `blaude ...;
# echo END-x-stop=$?` prints the stop's status (128 + the signal) at the stop, and the final
# status comes from `fg; echo END-x=$?`.
# stopped_job NAME TAG: `jobs` in the pane's shell lists a stopped blaude job whose command line has TAG
stopped_job() {
  tm_run "jobs > $T_DIR/jobs.$1 2>&1; echo JOBS-$1"
  tm_wait "^JOBS-$1\$" 30 >/dev/null || return 1
  grep -qE "Stopped.*blaude.*$2" "$T_DIR/jobs.$1"
}
# blaude (the pane shell's child) and whether it is stopped
blaude_pid() { pgrep -P "$(tm_pane_pid)" | head -n1 || true; }
blaude_stopped() { [ -n "$bp" ] && [[ $(ps -o stat= -p "$bp") == T* ]]; }
# group_stopped PATTERN: a process whose command line matches PATTERN is stopped (state T)
group_stopped() {
  local p
  for p in $(pgrep -f -- "$1"); do
    case "$(ps -o stat= -p "$p")" in T*) return 0 ;; esac
  done
  return 1
}

# --- control: a relay without job control --------------------------------------------------------
tm_run "python3 -c 'import pty, sys; pty.spawn(sys.argv[1:])' python3 $WS/mid.py sh -c 'echo CTL-READY; read x; echo CTL-GOT=\$x'; echo END-ctl"
tm_wait '^CTL-READY' 30 >/dev/null || fail "the control did not start"
tm send-keys -t t C-z
check "control: Ctrl-Z stops the command under the plain relay" wait_until group_stopped 'echo CTL-READY; read x'
check "control: ... and the shell's prompt does not come back (5 s)" not tm_wait 'Stopped' 5
for p in $(pgrep -f 'echo CTL-READY; read x'); do kill -CONT "$p"; done
tm_type "ctl"; tm_enter
tm_wait '^CTL-GOT=ctl' 30 >/dev/null || fail "the control's command did not go on after SIGCONT"
tm_wait '^END-ctl' 30 >/dev/null || fail "the control did not end"
sync

# --- 1. a cooked child in the sandbox: Ctrl-Z ----------------------------------------------------
: >"$LOG" 2>/dev/null || true
tm_run "$AS $BLAUDE --exec sh -c 'echo COOKED-READY; read x; echo COOKED-GOT=\$x; sleep 30; exit 4'; echo END-cooked-stop=\$?"
tm_wait '^COOKED-READY' 120 >/dev/null || fail "the cooked child did not start under blaude"
bp=$(blaude_pid)
tm send-keys -t t C-z
check "cooked: Ctrl-Z gives the shell the terminal back (blaude reported stopped)" tm_wait 'Stopped.*COOKED-READY' 30
check "cooked: ... blaude stopped with SIGTSTP (status 148)" tm_wait '^END-cooked-stop=148' 30
check "cooked: the shell reads the keys again" shell_answers
check "cooked: jobs lists blaude, stopped" stopped_job cooked1 COOKED-READY
check "cooked: the command inside is stopped" group_stopped 'echo COOKED-READY; read x'
check "cooked: while stopped the terminal's modes are the shell's" stopped_modes cooked-stopped
tm_run "fg"
check "cooked: after fg the command runs again (not stopped)" wait_until not group_stopped 'echo COOKED-READY; read x'
tm_type "hello"; tm_enter
check "cooked: after fg the keys reach the command" tm_wait '^COOKED-GOT=hello' 30
# Ctrl-Z again, now while sleep runs in the command's group, then fg and Ctrl-C.
tm send-keys -t t C-z
check "cooked: a second Ctrl-Z (sleep running) stops blaude again" wait_until blaude_stopped
check "cooked: ... jobs lists it" stopped_job cooked2 COOKED-READY
tm_run "fg; echo END-cooked=\$?"
check "cooked: after the second fg the command runs again" wait_until not group_stopped 'echo COOKED-READY; read x'
tm send-keys -t t C-c
check "cooked: Ctrl-C after fg reaches the command (exit 130)" tm_wait 'END-cooked=130$' 60
check "cooked: the terminal's modes after the end are as before" modes_as_before cooked-after
check "cooked: the log says blaude stopped with the command" grep -q "stopped; stopping blaude with it" "$LOG"

# --- 2. a raw-mode child in the sandbox that stops itself on Ctrl-Z -------------------------------
tm_run "$AS $BLAUDE --exec python3 rawchild.py sb; echo END-raw-stop=\$?"
tm_wait '^RAW-READY-sb' 120 >/dev/null || fail "the raw child did not start under blaude"
bp=$(blaude_pid)
tm_type "a"
check "raw: a key reaches the raw child" tm_wait '^KEY\[61\]-sb' 30
check_eq "raw: the child turned mouse reporting on" 1 "$(mouse)"
tm send-keys -t t C-z
check "raw: the child stops itself on Ctrl-Z" tm_wait '^SUSPENDING-sb' 30
check "raw: ... and the shell gets the terminal back" tm_wait 'Stopped.*rawchild.py sb' 30
check "raw: ... blaude stopped with SIGTSTP (status 148)" tm_wait '^END-raw-stop=148' 30
check "raw: the shell reads the keys again" shell_answers
check "raw: jobs lists blaude, stopped" stopped_job raw1 'rawchild.py sb'
check_eq "raw: while stopped, mouse reporting is off" 0 "$(mouse)"
check "raw: while stopped the terminal's modes are the shell's" stopped_modes raw-stopped
tm_run "fg"
check "raw: after fg the child runs again (it says so)" tm_wait '^RESUMED-sb' 30
check_eq "raw: after fg, mouse reporting is on again" 1 "$(mouse)"
tm_type "b"
check "raw: after fg the keys reach the child, one at a time (raw)" tm_wait '^KEY\[62\]-sb' 30
# SIGTSTP sent to blaude itself: the same, and the child was never stopped.
kill -TSTP "$bp"
check "raw: kill -TSTP stops blaude" wait_until blaude_stopped
check "raw: kill -TSTP of blaude gives the shell the terminal back" shell_answers
check "raw: ... jobs lists blaude, stopped" stopped_job raw2 'rawchild.py sb'
check_eq "raw: ... mouse reporting off while stopped" 0 "$(mouse)"
check "raw: ... the terminal's modes are the shell's while stopped" stopped_modes raw-tstp
tm_run "fg; echo END-raw=\$?"
# Keys typed before blaude has raw mode back are echoed by the pane's terminal: wait for it.
check "raw: ... after fg blaude has raw mode again" wait_until running_raw
tm_type "c"
check "raw: ... after fg the keys reach the child" tm_wait '^KEY\[63\]-sb' 30
tm_type "q"
check "raw: the child's exit status comes through" tm_wait '^END-raw=5' 60
check "raw: the terminal's modes after the end are as before" modes_as_before raw-after
check_eq "raw: mouse reporting off after the end" 0 "$(mouse)"

# --- 3. the direct child stops (--no-sandbox: blaude's child is the command; SIGSTOP) ------------
tm_run "$BLAUDE --no-sandbox --exec sh -c 'echo DIRECT-READY; kill -STOP \$\$; read x; echo DIRECT-GOT=\$x; exit 6'; echo END-direct-stop=\$?"
check "direct: the command's SIGSTOP gives the shell the terminal back" tm_wait 'Stopped.*DIRECT-READY' 60
bp=$(blaude_pid)
check "direct: ... blaude stopped with SIGSTOP (status 147)" tm_wait '^END-direct-stop=147' 30
check "direct: the shell reads the keys again" shell_answers
check "direct: jobs lists blaude, stopped" stopped_job direct DIRECT-READY
check "direct: while stopped the terminal's modes are the shell's" stopped_modes direct-stopped
tm_run "fg; echo END-direct=\$?"
check "direct: after fg the command runs again" wait_until not group_stopped 'echo DIRECT-READY; kill'
tm_type "there"; tm_enter
check "direct: after fg the keys reach it, and its status comes through" tm_wait '^END-direct=6' 60
check "direct: ... having read them" tm_wait '^DIRECT-GOT=there' 5
check "direct: the terminal's modes after the end are as before" modes_as_before direct-after

finish
