#!/usr/bin/env bash
# blaude under tmux (the user's terminal): exit codes, resize, Ctrl-C, job control inside, and
# the outer terminal's modes byte-identical after every exit path.
. "$(dirname "$0")/lib.sh"
B="$BLAUDE --no-sandbox --exec"

tm_start 100 30
tm_wait '^\$ $'
tm_run "stty -g > $T_DIR/stty.before; echo SAVED"
tm_wait '^SAVED'

# run_case NAME EXPECTED_CODE COMMAND...: runs blaude in the pane, waits for it to end, compares
# its exit code and the terminal's modes with the saved ones.
n=0
run_case() {
  local name=$1 want=$2; shift 2
  n=$((n+1))
  tm_run "$*; echo \"RC$n=\$?\"; stty -g > $T_DIR/stty.$n"
  if tm_wait "^RC$n=" 20; then
    local got
    got=$(tm_screen | sed -n "s/^RC$n=\([0-9]*\).*/\1/p" | tail -n1)
    check_eq "$name: exit code" "$want" "$got"
    wait_until test -s "$T_DIR/stty.$n" || true
    check "$name: terminal modes restored" cmp -s "$T_DIR/stty.before" "$T_DIR/stty.$n"
  else
    fail "$name: blaude did not finish"
  fi
}

# blaude_pid: blaude running in the pane's shell
blaude_pid() { pgrep -P "$(tm_pane_pid)" -f -- '--no-sandbox' | head -n1; }
# running_in_fg PID: the process runs (is not stopped) in the foreground group of its terminal,
# so that a key like Ctrl-Z or Ctrl-C typed now reaches it and not the shell that started it.
running_in_fg() { local s; s=$(ps -o stat= -p "$1") && [[ $s == *+* && $s != T* ]]; }
# gone PID: the process has exited (or is a zombie nobody reaped yet)
gone() { local s; s=$(ps -o stat= -p "$1") || return 0; [[ $s == Z* ]]; }

run_case "exit 0" 0 "$B true"
run_case "exit 3" 3 "$B sh -c 'exit 3'"
run_case "child killed by SIGKILL" 137 "$B sh -c 'kill -KILL \$\$'"
run_case "child crash (SIGSEGV)" 139 "$B sh -c 'kill -SEGV \$\$'"
run_case "command not found" 127 "$B no-such-command-xyz"
run_case "not executable" 126 "$B /etc/hostname"

# Signals sent to blaude from outside reach the child, whose death decides the code.
for sig in TERM HUP INT QUIT USR1; do
  num=$(kill -l "$sig")
  tm_run "$B sh -c 'echo WAITING$sig; exec sleep 60'; echo \"SIG$sig=\$?\"; stty -g > $T_DIR/stty.$sig"
  tm_wait "^WAITING$sig" 10 || true
  bp=""; wait_until eval 'bp=$(blaude_pid); [ -n "$bp" ]' || true
  if [ -n "$bp" ]; then
    kill -"$sig" "$bp"
    if tm_wait "^SIG$sig=" 10; then
      got=$(tm_screen | sed -n "s/^SIG$sig=\([0-9]*\).*/\1/p" | tail -n1)
      check_eq "SIG$sig to blaude: child dies of it" "$((128 + num))" "$got"
      wait_until test -s "$T_DIR/stty.$sig" || true
      check "SIG$sig to blaude: terminal modes restored" cmp -s "$T_DIR/stty.before" "$T_DIR/stty.$sig"
    else
      fail "SIG$sig to blaude: blaude did not finish"
    fi
  else
    fail "SIG$sig: could not find blaude's pid"
  fi
done

# Ctrl-C is a byte in raw mode and arrives at the child's pty as SIGINT.
tm_run "$B sh -c 'trap \"echo GOT-SIGINT; exit 5\" INT; echo READY-INT; while :; do sleep 0.1; done'; echo \"CC=\$?\""
tm_wait '^READY-INT'
tm send-keys -t t C-c
tm_wait 'GOT-SIGINT' && pass "Ctrl-C delivered SIGINT to the child" || fail "Ctrl-C did not reach the child"
tm_wait '^CC=5' && pass "exit code after Ctrl-C handler" || fail "wrong exit code after Ctrl-C"

# Ctrl-\ (SIGQUIT) likewise.
tm_run "$B sh -c 'trap \"echo GOT-SIGQUIT; exit 6\" QUIT; echo READY-QUIT; while :; do sleep 0.1; done'; echo \"CQ=\$?\""
tm_wait '^READY-QUIT'
tm send-keys -t t 'C-\'
tm_wait 'GOT-SIGQUIT' && pass "Ctrl-\\ delivered SIGQUIT to the child" || fail "Ctrl-\\ did not reach the child"
tm_wait '^CQ=6' && pass "exit code after the Ctrl-\\ handler" || fail "wrong exit code after Ctrl-\\"

# Resize: the child sees the new size at once, and the initial size is copied.
tm_run "$B env PS1='in\$ ' bash --norc --noprofile -i"
tm_wait '^in\$ '
tm_run 'echo SIZE1=$(stty size)'
tm_wait '^SIZE1=30 100' && pass "initial size copied" || fail "initial size wrong"
# Resize only once the shell has run the trap command (TRAP-SET is printed after it): a SIGWINCH
# that comes before the trap exists is reported by no terminal, blaude or not (under load the
# typed line can still be queued when tmux resizes: the test's race, seen as "resize not seen").
tm_run "trap 'echo WINCH=\$(stty size)' WINCH; echo TRAP-SET"
tm_wait '^TRAP-SET'
tm_resize 120 40
if tm_wait 'WINCH=40 120'; then
  pass "resize reaches the child (SIGWINCH + new size)"
else  # tells "no signal" from "no size": the child's size now
  tm_run 'echo SIZE2=$(stty size)'
  tm_wait '^SIZE2=' 5 || true
  fail "resize not seen (the child's size now: $(tm_screen | sed -n 's/^SIZE2=//p' | tail -n1))"
fi

# Job control in the inner shell: a job, Ctrl-Z, jobs, fg, Ctrl-C.
# The keys go in only once sleep is in the foreground: earlier, the shell would get them.
inner=$(pgrep -P "$(blaude_pid)" -x bash) || true
tm_run 'sleep 300'
sp=""; wait_until eval 'sp=$(pgrep -P "$inner" -x sleep) && running_in_fg "$sp"' || true
tm send-keys -t t C-z
tm_wait 'Stopped +sleep 300' && pass "Ctrl-Z stops the inner job" || fail "Ctrl-Z did not stop the job"
tm_run 'jobs -l | sed "s/^/JOBS:/"'
tm_wait '^JOBS:.*Stopped' && pass "inner shell lists the stopped job" || fail "jobs output missing"
tm_run 'fg'
tm_wait '^sleep 300$'
wait_until running_in_fg "$sp" || true  # bash prints the job before it continues it
tm send-keys -t t C-c
tm_run 'echo AFTERFG=$?'
tm_wait '^AFTERFG=130' && pass "fg then Ctrl-C ends the job with 130" || fail "fg/Ctrl-C failed"
tm_run 'exit 4'
wait_until eval '[ -z "$(blaude_pid)" ]' || true
tm_run 'echo "SHELL=$?"; stty -g > '"$T_DIR/stty.shell"
tm_wait '^SHELL=4' && pass "inner shell's exit code returned" || fail "inner shell exit code"
wait_until test -s "$T_DIR/stty.shell" || true
tm_resize 100 30
check "modes restored after the inner shell" cmp -s "$T_DIR/stty.before" "$T_DIR/stty.shell"

# Ctrl-Z of blaude itself (SIGTSTP from outside): the terminal is restored while it is stopped,
# raw again after fg, and the size is re-synced.
tm_run "$B sh -c 'echo READY-TSTP; read x; echo GOT=\$x; stty size; exit 8'"
tm_wait '^READY-TSTP'
bp=""; wait_until eval 'bp=$(blaude_pid); [ -n "$bp" ]' || true
kill -TSTP "$bp"
tm_wait 'Stopped +.*echo READY-TSTP' && pass "blaude stops on SIGTSTP" || fail "blaude did not stop"
tm_run "stty -g > $T_DIR/stty.stopped; echo STOPPED-SAVED"
tm_wait '^STOPPED-SAVED'
check "modes restored while blaude is stopped" cmp -s "$T_DIR/stty.before" "$T_DIR/stty.stopped"
tm_resize 90 25
tm_run "fg"
wait_until running_in_fg "$bp" || true
tm_run "hello"
tm_wait '^GOT=hello' && pass "input reaches the child after fg" || fail "input lost after fg"
tm_wait '^25 90' && pass "size re-synced after fg" || fail "size not re-synced after fg"
# Typed only once blaude is gone: what is typed while its reply fence runs is dropped.
wait_until gone "$bp" || true
tm_run "echo TSTP=\$?; stty -g > $T_DIR/stty.tstp; echo T2"
tm_wait '^TSTP=8' && pass "child's exit code after suspend/resume" || fail "exit code after suspend/resume"
tm_wait '^T2'
check "modes restored after suspend/resume" cmp -s "$T_DIR/stty.before" "$T_DIR/stty.tstp"

# SIGKILL of blaude cannot be caught: the watchdog restores the terminal's modes (within a
# moment: it races the shell that waits for blaude, which may print one line first).
# (Under sh -c, not the interactive shell: bash itself restores the tty after a job dies of a signal.)
# The shell reads the modes once the test says go, after the watchdog (blaude's child that stays
# "blaude", while the command's child has exec'd sleep) has exited.
mkfifo "$T_DIR/go"
cat > "$T_DIR/kill.sh" <<SH
$B sh -c 'echo READY-KILL; exec sleep 60'
echo KILLED=\$?
read go < $T_DIR/go
stty -g > $T_DIR/stty.kill
SH
tm_run "sh $T_DIR/kill.sh"
tm_wait '^READY-KILL'
bp=""; wait_until eval 'bp=$(pgrep -P "$(pgrep -P "$(tm_pane_pid)" -x sh)" -f -- --no-sandbox); [ -n "$bp" ]' || true
wd=$(pgrep -P "$bp" -x blaude) || true
kill -KILL "$bp"
tm_wait 'KILLED=137' && pass "blaude killed with SIGKILL" || fail "no exit after SIGKILL"
check "the watchdog ran and exited" eval '[ -n "$wd" ] && wait_until gone "$wd"'
timeout 10 sh -c "echo go > '$T_DIR/go'" || true
wait_until test -s "$T_DIR/stty.kill" || true
check "modes restored after SIGKILL of blaude (watchdog)" cmp -s "$T_DIR/stty.before" "$T_DIR/stty.kill"

# Control: a terminal left raw is noticed by the comparison.
tm_run "stty raw; stty -g > $T_DIR/stty.raw; stty sane; echo RAWCTL"
tm_wait 'RAWCTL'
check "control: raw modes differ from the saved ones" not cmp -s "$T_DIR/stty.before" "$T_DIR/stty.raw"
finish
