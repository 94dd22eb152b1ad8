#!/usr/bin/env bash
# `blaude doctor` and `blaude fix-apparmor` on this host (real bwrap, real /proc and /sys).
. "$(dirname "$0")/lib.sh"

mkdir -p "$T_DIR/bin" "$T_DIR/home"
printf '#!/bin/sh\nexit 0\n' >"$T_DIR/bin/claude"
chmod 755 "$T_DIR/bin/claude" "$T_DIR/home"
export HOME="$T_DIR/home"

set +e
out=$(PATH="$T_DIR/bin:$PATH" "$BLAUDE" doctor 2>&1); rc=$?
set -e
echo "$out"
check_eq "doctor: exit 0 when blaude can run here" 0 "$rc"
for what in 'bwrap' 'bwrap overlays' 'user namespaces' 'AppArmor' 'claude' 'clipboard' 'asciinema' \
            'dev.tty.legacy_tiocsti' 'log'; do
  check "doctor: a line for $what" grep -qE "^(OK  |FIX |NOTE) $what: " <<<"$out"
done
check "doctor: names the real bwrap" grep -q "bwrap: $(command -v bwrap) " <<<"$out"
check "doctor: the sandbox really started" grep -q '^OK   user namespaces' <<<"$out"
check "doctor: legacy_tiocsti matches /proc" \
  grep -q "dev.tty.legacy_tiocsti: $(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 'not present')" <<<"$out"

# As an unprivileged user the userns check is a real attempt, not a formality.
set +e
nout=$(as_nobody env HOME="$T_DIR/home" PATH="$T_DIR/bin:$PATH" "$BLAUDE" doctor 2>&1); nrc=$?
set -e
echo "$nout" | grep 'user namespaces'
if grep -q '^OK   user namespaces' <<<"$nout"; then
  check_eq "doctor as nobody: exit 0 with working userns" 0 "$nrc"
else
  check_eq "doctor as nobody: exit 1 with broken userns" 1 "$nrc"
fi

# Control: without claude, doctor says what to do and fails.
set +e
out=$(PATH="/usr/bin:/bin" "$BLAUDE" doctor 2>&1); rc=$?
set -e
check_eq "doctor: exit 1 without claude" 1 "$rc"
check "doctor: says how to install claude" grep -q '^FIX  claude: not found' <<<"$out"

# fix-apparmor: this host has no AppArmor restriction, so it says nothing is needed.
set +e
out=$("$BLAUDE" fix-apparmor 2>&1); rc=$?
out2=$("$BLAUDE" --debug fix-apparmor 2>&1); rc2=$?
set -e
echo "$out"
check_eq "fix-apparmor: exit 0" 0 "$rc"
if [ -d /sys/module/apparmor ] && [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null)" = 1 ]; then
  check "fix-apparmor on a restricted host reports the profile" grep -q 'profile' <<<"$out"
else
  check "fix-apparmor: nothing needed here" grep -qE 'No fix needed\.$' <<<"$out"
fi
check_eq "fix-apparmor after a blaude flag works too" "$out" "$out2"
check_eq "fix-apparmor changed nothing" 0 "$rc2"
check "no profile written" bash -c '[ -d /sys/module/apparmor ] || [ ! -e /etc/apparmor.d/bwrap ]'

finish
