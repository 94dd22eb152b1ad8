#!/usr/bin/env bash
# The syscall filter, attacked from inside through the real blaude as uid 65534: each call the
# table refuses is made by a Python probe in the sandbox (raw syscall numbers, x86_64), and the
# same probe runs with BLAUDE_SECCOMP=off as the control, where the call gets the kernel's own
# answer (it works, or fails with another errno), so the test would notice a filter that let it
# through. TIOCSTI is tried on the sandbox's own controlling pty with the command's high bits
# set, the form that passed Flatpak's 64-bit compare (CVE-2019-10063). --nested-sandbox lifts
# the namespace rows only: a bwrap inside works with it and not without.
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v python3 >/dev/null || missing python3
command -v strace >/dev/null || missing strace
command -v gdb >/dev/null || missing gdb
[ "$(uname -m)" = x86_64 ] || skip "the probe uses x86_64 syscall numbers"
sandbox_dirs

cat >"$T_DIR/probe.py" <<'EOF'
import ctypes, os, sys, fcntl, termios
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_ulong(a) if isinstance(a, int) else a for a in args])
    return 0 if r >= 0 else ctypes.get_errno()
def put(name, e): print(f"{name}={e}", flush=True)
CLONE_NEWUSER = 0x10000000
put("io_uring_setup", sc(425, 1, 0))
put("userfaultfd_user_mode", sc(323, 1))
put("perf_event_open", sc(298, 0, 0, -1 & 0xffffffffffffffff, -1 & 0xffffffffffffffff, 0))
put("personality_aslr_off", sc(135, (1 << 32) | 0x0040000)); sc(135, 0)
put("personality_query", sc(135, 0xffffffff))
put("socket_tcp", sc(41, 2, 1, 0))
put("request_key", sc(249, ctypes.c_char_p(b"user"), ctypes.c_char_p(b"blaude"), 0, 0))
put("keyctl_user_keyring", sc(250, 0, 0xfffffffffffffffc, 0))
put("clone3", sc(435, 0, 0))
def in_child(f):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try: out = f()
        except Exception as e: out = "error " + repr(e)
        os.write(w, out.encode()); os._exit(0)
    os.close(w); os.waitpid(pid, 0)
    out = os.read(r, 4096).decode(); os.close(r)
    return out
# TIOCSTI on a pty that is this process's controlling terminal, the command's high bits set.
def tiocsti():
    os.setsid()
    m, s = os.openpty()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    c = ctypes.c_char(b"x")
    return "tiocsti_high_bits=%d\n" % sc(16, s, (1 << 32) | termios.TIOCSTI, ctypes.byref(c))
print(in_child(tiocsti), end="", flush=True)
# A user namespace of its own, and what it opens: mounts, raw sockets in a network namespace.
def userns():
    out = "unshare_user=%d\n" % sc(272, CLONE_NEWUSER | 0x00020000 | 0x40000000)
    out += "userns_mount=%d\n" % sc(165, ctypes.c_char_p(b"none"), ctypes.c_char_p(b"/tmp"), ctypes.c_char_p(b"tmpfs"), 0, 0)
    out += "userns_socket_packet=%d\n" % sc(41, 17, 3, 0)
    out += "userns_socket_raw_tcp=%d\n" % sc(41, 2, 3 | 0x80000, 6)
    return out
print(in_child(userns), end="", flush=True)
EOF
chmod 644 "$T_DIR/probe.py"

probe() {  # probe OUT [blaude options]: the probe's lines in OUT
  local out=$1
  shift
  sb_nobody /usr/bin "$@" -- 'python3 "$1"' "$T_DIR/probe.py" >"$out" || { cat "$T_DIR/sb.err"; return 1; }
}
val() { sed -n "s/^$2=//p" "$1"; }

check "the probe runs in the filtered sandbox" probe "$T_DIR/on"
cp "$T_DIR/sb.err" "$T_DIR/on.err"
check "control: with the filter, the start names no missing filter" not grep -q "NO syscall filter" "$T_DIR/sb.err"
# The control runs with nested sandboxes on as well: otherwise the exec shim's Landlock domain
# (which handles a file right) makes the kernel refuse every mount itself.
SB_ENV=(BLAUDE_SECCOMP=off)
check "the probe runs with the filter off (control)" probe "$T_DIR/off" --nested-sandbox
check "BLAUDE_SECCOMP=off says the sandbox has no syscall filter" grep -q "no syscall filter" "$T_DIR/sb.err"
check "... and the layers line at start says it (no --debug needed)" grep -q "^blaude: layers: .*; NO syscall filter;" "$T_DIR/sb.err"
check "the probe runs with the filter off, nested sandboxes off" probe "$T_DIR/off-flat"
SB_ENV=()
check_eq "with no filter and nested sandboxes off, the shim's Landlock domain still refuses a mount" \
  1 "$(val "$T_DIR/off-flat" userns_mount)"
EPERM=1 ENOSYS=38
# bpf, fsopen, setns and raw sockets in the host's network namespace are the kernel's to refuse
# to uid 65534 here (sysctls, no capabilities), so only the unit test, as root, shows the
# filter's own answer for them; here they are reached the way an attack would: through a user
# namespace of the sandbox's own.
for call in userfaultfd_user_mode perf_event_open personality_aslr_off request_key keyctl_user_keyring \
            tiocsti_high_bits unshare_user; do
  check_eq "$call is refused with EPERM" "$EPERM" "$(val "$T_DIR/on" "$call")"
  check "control: without the filter $call gets the kernel's answer ($(val "$T_DIR/off" "$call"))" \
    test "$(val "$T_DIR/off" "$call")" != "$EPERM"
done
for call in io_uring_setup clone3; do
  check_eq "$call is refused with ENOSYS (callers probe it and fall back)" "$ENOSYS" "$(val "$T_DIR/on" "$call")"
  check "control: without the filter $call gets the kernel's answer ($(val "$T_DIR/off" "$call"))" \
    test "$(val "$T_DIR/off" "$call")" != "$ENOSYS"
done
for call in tiocsti_high_bits unshare_user userns_mount userns_socket_packet userns_socket_raw_tcp personality_aslr_off \
            userfaultfd_user_mode; do
  check_eq "control: without the filter $call works" 0 "$(val "$T_DIR/off" "$call")"
done
for call in personality_query socket_tcp; do
  check_eq "$call still works under the filter" 0 "$(val "$T_DIR/on" "$call")"
done

# Nested sandboxes: a bwrap inside (what Claude Code's /sandbox runs) needs a user namespace and
# mounts of its own.
nested='bwrap --ro-bind / / --dev /dev true && echo NESTED-OK'
out=$(sb_nobody /usr/bin -- "$nested") || true
check "a bwrap inside fails without --nested-sandbox" test "$out" != NESTED-OK
# blaude itself refuses the user namespace (the exec shim's filter hands the call over), so its
# exit line can name the program and the setting.
refusal='^blaude: the sandbox refused [0-9]* request(s) for a user namespace of its own'
check "... and blaude's exit line names bwrap and --nested-sandbox" \
  grep -q "$refusal (from bwrap):.*--nested-sandbox" "$T_DIR/sb.err"
check "the probe's refused unshare is named in its run's exit line" grep -q "$refusal (from python3)" "$T_DIR/on.err"
# A program that names itself with an escape sequence: named, escaped.
sb_nobody /usr/bin -- 'cp /usr/bin/unshare "/tmp/$(printf "x\033]2;pwn\a")" && "/tmp/$(printf "x\033]2;pwn\a")" -U true' || true
check "a program's chosen name is shown escaped in the exit line" grep -q "$refusal (from x\\\\e\]2;pwn\\\\x07)" "$T_DIR/sb.err"
# (unshare's own error message, which is the command's output, names itself raw: only blaude's line counts)
check "... never raw" not grep -q "$(printf '\033]2;pwn')" <(grep '^blaude: the sandbox refused' "$T_DIR/sb.err")
out=$(sb_nobody /usr/bin --nested-sandbox -- "$nested") || { cat "$T_DIR/sb.err"; true; }
check_eq "a bwrap inside works with --nested-sandbox" NESTED-OK "$out"
check "control: with --nested-sandbox nothing is refused or reported" not grep -q "user namespace of its own" "$T_DIR/sb.err"
probe "$T_DIR/nested" --nested-sandbox
check_eq "--nested-sandbox keeps TIOCSTI refused" "$EPERM" "$(val "$T_DIR/nested" tiocsti_high_bits)"
check_eq "--nested-sandbox allows a user namespace" 0 "$(val "$T_DIR/nested" unshare_user)"
check_eq "--nested-sandbox allows mounts in it" 0 "$(val "$T_DIR/nested" userns_mount)"
check_eq "--nested-sandbox keeps AF_PACKET refused, even in a namespace of its own" "$EPERM" "$(val "$T_DIR/nested" userns_socket_packet)"
check_eq "--nested-sandbox keeps raw TCP refused, even in a namespace of its own" "$EPERM" "$(val "$T_DIR/nested" userns_socket_raw_tcp)"

# Debuggers on the agent's own programs keep working: ptrace is allowed, the pid namespace
# holding nothing but the sandbox's own tree. (gdb's ASLR switch is a personality flag the
# filter refuses: it warns and runs the program with ASLR on, as under Docker's default filter.)
out=$(sb_nobody /usr/bin -- 'strace -f -e trace=execve sh -c "/bin/true; exit 0" 2>&1 | grep -c "^\[pid *[0-9]*\] execve(\"/bin/true\"\|^execve(\"/bin/true\""') || true
check_eq "strace -f follows a child under the filter" 1 "$out"
out=$(sb_nobody /usr/bin -- 'gdb -nx -batch -ex run -ex "info inferiors" --args /bin/sh -c "exit 3" 2>&1') || true
check "gdb runs a program under the filter" grep -q "exited with code 03" <<<"$out"

# --dry-run prints the table, one row a line.
(cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$BLAUDE" --dry-run --exec true >"$T_DIR/dry" 2>&1) || true
check "--dry-run prints the TIOCSTI row" grep -q '^#   ioctl (TIOCSTI): EPERM' "$T_DIR/dry"
check "--dry-run prints the io_uring rows" grep -q '^#   io_uring_setup, io_uring_enter, io_uring_register: ENOSYS' "$T_DIR/dry"
finish
