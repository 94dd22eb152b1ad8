#!/usr/bin/env bash
# The sandbox's /dev. Where the protect helper runs, bwrap mounts a plain tmpfs at /dev
# and blaude makes in it what bwrap's --dev would: the same six device nodes (each cloned from the
# host's /dev after checking it is that device), links, shm, a devpts instance of its own, and the
# terminal at /dev/console when bwrap's stdout is one. Checked against bare `bwrap --dev` on the
# same host, with both bwraps: the listing, the mount options, a pty made inside, the console
# under a real pty. The control that the helper made it: the sandbox has one user namespace
# (bwrap's --dev needs a second one, mapping uid 0 in between). The attack: a host /dev node that
# is not the device it names (bind-mounted over, in a mount namespace of the test's) refuses the
# launch; bare bwrap passes it through (the control). And BLAUDE_PROTECT_MOUNTS=bwrap-options (the
# fallback, as with a setuid bwrap) gives bwrap's own --dev, the same /dev.
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
command -v python3 >/dev/null || missing "python3 is not installed"
command -v script >/dev/null || missing "script (util-linux) is not installed"
[ "$(id -u)" = 0 ] || host_lacks "needs root (to make a host /dev node lie in a mount namespace of its own)"
sandbox_dirs

# What a program sees of /dev: every entry (type, mode, device numbers, link target), /dev/pts, and
# the mount options of every mount at or below /dev (not ids or host paths). Then a pty made
# inside: its name, and a line through it.
cat >"$T_DIR/devinfo.py" <<'PY'
import os, stat, sys, pty
out = []
for d in ("/dev", "/dev/pts"):
    for n in sorted(os.listdir(d)):
        p = d + "/" + n
        st = os.lstat(p)
        t = stat.S_IFMT(st.st_mode)
        line = "%s %o %o" % (p, t, stat.S_IMODE(st.st_mode))
        if stat.S_ISCHR(t): line += " %d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
        if stat.S_ISLNK(t): line += " -> " + os.readlink(p)
        out.append(line)
for l in open("/proc/self/mountinfo"):
    f = l.split()
    mp = f[4]
    if mp == "/dev" or mp.startswith("/dev/"):
        sep = f.index("-")
        # the console is the caller's terminal: its options, not its number
        out.append("mount %s %s %s %s" % (mp, f[5], f[sep + 1], ",".join(o for o in f[sep + 3].split(",") if not o.startswith("size=") and not o.startswith("nr_inodes="))))
if "--pty" in sys.argv:
    m, s = pty.openpty()
    os.write(m, b"ping\n")
    out.append("pty %s %s" % (os.ttyname(s).rsplit("/", 1)[0], os.read(s, 64).decode().strip()))
text = "\n".join(out) + "\n"
if "--to" in sys.argv:  # under a pty: a file, clear of what the terminal echoes
    open(sys.argv[sys.argv.index("--to") + 1], "w").write(text)
else:
    sys.stdout.write(text)
PY
chmod 644 "$T_DIR/devinfo.py"

# Bare bwrap over a root of its own (a bind of / would list the host's /dev mounts under its --dev).
BARE=(--unshare-user --unshare-pid --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
  --symlink usr/lib64 /lib64 --ro-bind /etc /etc --ro-bind "$T_DIR/devinfo.py" /devinfo.py --dev /dev --proc /proc)
for bw in /usr/bin "$NEW"; do
  v=$("$bw/bwrap" --version)
  sb_nobody "$bw" --no-clipboard -- "python3 $T_DIR/devinfo.py --pty; cat /proc/self/uid_map" >"$T_DIR/blaude.out" || cat "$T_DIR/sb.err"
  as_nobody "$bw/bwrap" "${BARE[@]}" sh -c "python3 /devinfo.py --pty; cat /proc/self/uid_map" </dev/null >"$T_DIR/bare.out" 2>&1
  check "$v: blaude's /dev lists what bwrap's --dev makes (nodes, modes, links, pts, mount options, a pty inside)" \
    diff <(grep -v '^ ' "$T_DIR/bare.out") <(grep -v '^ ' "$T_DIR/blaude.out")
  check "$v: ... a pty made inside works (the sandbox's own devpts)" grep -qx "pty /dev/pts ping" "$T_DIR/blaude.out"
  check "$v: ... and the helper made it: one user namespace (uid_map 65534 -> 65534)" \
    grep -Eq '^ +65534 +65534 +1$' "$T_DIR/blaude.out"
  check "$v: control: bwrap's --dev leaves a second user namespace (uid_map 65534 -> 0)" \
    grep -Eq '^ +65534 +0 +1$' "$T_DIR/bare.out"

  # Under a real pty: bwrap's stdout is a terminal, which --dev binds at /dev/console. The listing
  # goes to a file in the workspace: what script(1) feeds the pty at its stdin's end is echoed
  # into the terminal's output at any moment.
  rm -f "$WS/tty.out" "$WS/tty-bare.out"
  (cd "$WS" && script -qec "env -i HOME=$H PATH=$bw:/usr/bin:/bin TERM=dumb setpriv --reuid=65534 --regid=65534 --clear-groups \
    $BLAUDE --no-clipboard --exec python3 $T_DIR/devinfo.py --to tty.out" /dev/null </dev/null >"$T_DIR/tty.log" 2>&1)
  (cd "$WS" && script -qec "setpriv --reuid=65534 --regid=65534 --clear-groups \
    $bw/bwrap ${BARE[*]} --bind $WS /ws --chdir /ws python3 /devinfo.py --to tty-bare.out" /dev/null </dev/null >>"$T_DIR/tty.log" 2>&1)
  cp "$WS/tty.out" "$T_DIR/tty.out" 2>/dev/null || { echo "no listing from blaude under a pty:"; cat "$T_DIR/tty.log"; }
  cp "$WS/tty-bare.out" "$T_DIR/tty-bare.out" 2>/dev/null || { echo "no listing from bwrap under a pty:"; cat "$T_DIR/tty.log"; }
  check "$v: under a pty, /dev/console is there as with bwrap's --dev" grep -q "^mount /dev/console " "$T_DIR/tty-bare.out"
  check "$v: ... the same listing and mounts as bwrap's (console's device number aside)" \
    diff <(sed -E 's|^(/dev/console [0-9]+ [0-7]+) [0-9]+,[0-9]+|\1|' "$T_DIR/tty-bare.out") \
    <(sed -E 's|^(/dev/console [0-9]+ [0-7]+) [0-9]+,[0-9]+|\1|' "$T_DIR/tty.out")
done

# The fallback: bwrap's own --dev, and the same /dev.
SB_ENV=(BLAUDE_PROTECT_MOUNTS=bwrap-options)
sb_nobody /usr/bin --no-clipboard -- "python3 $T_DIR/devinfo.py --pty; cat /proc/self/uid_map" >"$T_DIR/fallback.out" || cat "$T_DIR/sb.err"
SB_ENV=()
check "without the helper: bwrap's --dev (two user namespaces)" grep -Eq '^ +65534 +0 +1$' "$T_DIR/fallback.out"
check "... and the same /dev" diff <(grep -v '^ ' "$T_DIR/fallback.out") <(grep -v '^ ' "$T_DIR/blaude.out")

# The attack: a host /dev node that is not its device. In a mount namespace of the test's own,
# /dev/full shows /dev/zero; the sandbox must not show it as /dev/full.
lie() { unshare -m --propagation private sh -c 'mount --bind /dev/zero /dev/full && exec "$@"' sh "$@"; }
rc=0
(cd "$WS" && lie env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$BLAUDE" --no-clipboard --exec sh -c 'echo RAN' </dev/null >"$T_DIR/lie.out" 2>"$T_DIR/lie.err") || rc=$?
check "a host /dev/full that is /dev/zero: nothing runs" not grep -q RAN "$T_DIR/lie.out"
check "... a failing exit code" test "$rc" -ne 0
check "... and blaude says which node" grep -q "not the expected device: /dev/full" "$T_DIR/lie.err"
lie setpriv --reuid=65534 --regid=65534 --clear-groups bwrap --unshare-user --ro-bind / / --dev /dev \
  stat -c '%t,%T' /dev/full </dev/null >"$T_DIR/lie-bare.out" 2>&1
check "control: bare bwrap's --dev passes the lie on (its /dev/full is device 1,5, /dev/zero)" \
  grep -qx "1,5" "$T_DIR/lie-bare.out"
check "control: blaude without the lie runs" sh -c "cd '$WS' && env -i HOME='$H' PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups '$BLAUDE' --no-clipboard --exec true </dev/null"
finish
