#!/usr/bin/env bash
# `blaude fix-apparmor` as a normal user, through the real blaude, on a host made to look like
# Ubuntu 24.04 inside a private mount namespace (root, unshare -m): /sys/module/apparmor and the
# apparmor_restrict_unprivileged_userns sysctl on tmpfs, /etc and /usr/sbin as private overlays
# (the host's own are never written), an apparmor_parser stand-in that records its arguments.
# blaude (installed in ~/.local/bin, with the user's own bwrap there too) must run the root step
# through sudo by absolute paths, and without sudo print a command that works as printed: run
# under sudo's secure_path as root, either one writes the profile for the user's bwrap.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || host_lacks "needs root for a private mount namespace"
command -v unshare >/dev/null || missing "unshare (util-linux)"
NOBODY=65534
H="$T_DIR/home"
mkdir -p "$H/.local/bin" "$T_DIR/fakesudo" "$T_DIR/etc-up" "$T_DIR/etc-work" "$T_DIR/sbin-up" "$T_DIR/sbin-work"
cp "$BLAUDE" "$H/.local/bin/blaude"
cp "$(command -v bwrap)" "$H/.local/bin/bwrap"
chown -R $NOBODY:$NOBODY "$H"
chmod 755 "$T_DIR/fakesudo"
# sudo's stand-in: records what it was asked to run; the test then runs that as root.
cat >"$T_DIR/fakesudo/sudo" <<EOF2
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done >"$T_DIR/sudo.argv"
EOF2
chmod 755 "$T_DIR/fakesudo/sudo"
touch "$T_DIR/sudo.argv" "$T_DIR/parser.log" && chmod 666 "$T_DIR/sudo.argv" "$T_DIR/parser.log"
SECURE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

unshare -m --propagation private bash -s "$T_DIR" "$H" "$SECURE_PATH" >"$T_DIR/ns.out" 2>&1 <<'NS'
set -u
T=$1 H=$2 SECURE=$3
mount -t tmpfs blaude-test /sys/module && mkdir /sys/module/apparmor
mount -t tmpfs blaude-test /proc/sys/kernel && echo 1 >/proc/sys/kernel/apparmor_restrict_unprivileged_userns
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$T/etc-up,workdir=$T/etc-work" /etc
mount -t overlay overlay -o "lowerdir=/usr/sbin,upperdir=$T/sbin-up,workdir=$T/sbin-work" /usr/sbin
mkdir -p /etc/apparmor.d
rm -f /etc/apparmor.d/bwrap
printf '#!/bin/sh\necho "$@" >>%s/parser.log\n' "$T" >/usr/sbin/apparmor_parser
chmod 755 /usr/sbin/apparmor_parser
# A real sudo on the host would be found by blaude: hide it for the no-sudo case.
for s in /usr/bin/sudo /bin/sudo; do [ -e "$s" ] && mount --bind /dev/null "$s"; done
user() { env -i HOME="$H" PATH="$1" setpriv --reuid=65534 --regid=65534 --clear-groups blaude fix-apparmor </dev/null; }
as_root() { env -i PATH="$SECURE" "$@" </dev/null; }

echo "== user, sudo on PATH"
user "$H/.local/bin:$T/fakesudo:/usr/bin:/bin" 2>"$T/user.err"; echo "user_rc=$?"
echo "== what sudo was asked to run, as root under secure_path"
mapfile -t cmd <"$T/sudo.argv"
as_root "${cmd[@]}" >"$T/root.out" 2>&1; echo "root_rc=$?"
cp /etc/apparmor.d/bwrap "$T/profile.sudo" 2>/dev/null
echo "== control: the old hint 'sudo blaude fix-apparmor' under secure_path"
as_root blaude fix-apparmor >"$T/control.out" 2>&1; echo "control_rc=$?"
echo "== again as root: idempotent"
as_root "${cmd[@]}" >"$T/again.out" 2>&1; echo "again_rc=$?"
echo "== user, no sudo anywhere"
rm -f /etc/apparmor.d/bwrap
user "$H/.local/bin:/usr/bin:/bin" 2>"$T/nosudo.err"; echo "nosudo_rc=$?"
printed=$(sed -n 's/^Run as root: //p' "$T/nosudo.err")
echo "printed=$printed"
as_root sh -c "$printed" >"$T/printed.out" 2>&1; echo "printed_rc=$?"
cp /etc/apparmor.d/bwrap "$T/profile.printed" 2>/dev/null
true
NS
rc_of() { sed -n "s/^$1_rc=//p" "$T_DIR/ns.out"; }
U="$H/.local/bin/blaude"
B="$H/.local/bin/bwrap"

check_eq "user run: exits as sudo did (0)" 0 "$(rc_of user)"
check "user run: says it runs the root step through sudo" grep -qF "fix-apparmor needs root; running: $T_DIR/fakesudo/sudo $U fix-apparmor $B" "$T_DIR/user.err"
check_eq "sudo was asked for absolute paths (blaude and the user's bwrap)" "$U|fix-apparmor|$B" "$(paste -sd'|' "$T_DIR/sudo.argv")"
check_eq "that command, as root under secure_path: exit 0" 0 "$(rc_of root)"
check "... installs the profile" grep -q 'AppArmor bwrap profile installed' "$T_DIR/root.out"
check "... for the user's bwrap, not /usr/bin/bwrap" grep -qF "profile bwrap $B flags=(unconfined)" "$T_DIR/profile.sudo"
check "... and loads it" grep -qx -- "-r /etc/apparmor.d/bwrap" "$T_DIR/parser.log"
check "control: 'blaude' by name is not found under secure_path" test "$(rc_of control)" = 127
check_eq "again: idempotent, exit 0" 0 "$(rc_of again)"
check "again: already installed" grep -q 'already installed' "$T_DIR/again.out"
check_eq "no sudo: exit 1" 1 "$(rc_of nosudo)"
check "no sudo: prints a command with absolute paths" grep -qF "Run as root: $U fix-apparmor $B" "$T_DIR/nosudo.err"
check_eq "the printed command, run as printed as root: exit 0" 0 "$(rc_of printed)"
check "... installs the profile for the user's bwrap" grep -qF "profile bwrap $B flags=(unconfined)" "$T_DIR/profile.printed"
check "the host's /etc/apparmor.d was never touched" test ! -e /etc/apparmor.d/bwrap
[ "$T_FAILS" = 0 ] || cat "$T_DIR/ns.out" "$T_DIR/user.err" "$T_DIR/root.out" 2>/dev/null

finish
