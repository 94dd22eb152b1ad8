#!/usr/bin/env bash
# `make deb` and `make rpm` for real: the .deb's control fields (Depends bubblewrap, Recommends
# xclip | xsel | wl-clipboard, passt), lintian without errors or warnings (and controls: the same package
# with the unstripped binary, which lintian must reject, and without blaude-exec's override), then
# `dpkg -i` of it and `blaude --version` and `blaude doctor` from the installed /usr/bin/blaude.
# dpkg runs on a copy-on-write overlay of this machine's / (root, in a private mount namespace,
# pivot_root into it), so the host's dpkg database and /usr are never changed; doctor's bwrap
# check then runs there as uid 65534.
. "$(dirname "$0")/lib.sh"

: "${BLAUDE_BUILD:?BLAUDE_BUILD must point at the build dir (ctest sets it)}"
[ "$(id -u)" = 0 ] || host_lacks "needs root (dpkg -i on an overlay of /)"
for t in make dpkg-deb lintian unshare pivot_root rpmbuild rpm; do command -v $t >/dev/null || missing "$t"; done
need_sandbox
mk() { make --no-print-directory -C "$BLAUDE_SRC" BUILD="$BLAUDE_BUILD" "$@"; }

mk deb >"$T_DIR/deb.out" 2>&1 || { fail "make deb"; cat "$T_DIR/deb.out"; finish; }
DEB=$(ls "$BLAUDE_BUILD"/packages/blaude_*_amd64.deb 2>/dev/null | head -1)
check "make deb wrote build/packages/blaude_<version>_amd64.deb" test -f "$DEB"
cp "$DEB" "$T_DIR/blaude.deb"
DEB="$T_DIR/blaude.deb"
dpkg-deb -f "$DEB" >"$T_DIR/control"
check "Depends names bubblewrap" grep -Eq '^Depends: (.*, )?bubblewrap(,|$)' "$T_DIR/control"
check "... and libc6 (from dpkg-shlibdeps; nothing else is linked dynamically)" grep -Eq '^Depends: .*libc6' "$T_DIR/control"
check "Recommends: xclip | xsel | wl-clipboard, passt" grep -qx 'Recommends: xclip | xsel | wl-clipboard, passt' "$T_DIR/control"
dpkg-deb -c "$DEB" | awk '{print $6}' >"$T_DIR/files"
for f in ./usr/bin/blaude ./usr/libexec/blaude/blaude-exec ./usr/share/man/man1/blaude.1.gz ./usr/share/bash-completion/completions/blaude \
         ./usr/share/zsh/vendor-completions/_blaude ./usr/share/fish/vendor_completions.d/blaude.fish \
         ./usr/share/doc/blaude/copyright ./usr/share/doc/blaude/changelog.gz; do
  check "the .deb holds $f" grep -qx -- "$f" "$T_DIR/files"
done

# blaude-exec is linked -static-pie in a release build (ET_DYN, no DT_NEEDED), which lintian takes
# for a library lacking prerequisites: the package carries an override. A sanitizer build packages
# non-PIE binaries (lintian: hardening-no-pie), so "no warning at all" holds for PIE builds only.
dpkg-deb -R "$DEB" "$T_DIR/unpacked"
pie=no
readelf -h "$T_DIR/unpacked/usr/libexec/blaude/blaude-exec" 2>/dev/null | grep -q 'Type: *DYN' && pie=yes
lintian --no-cfg --fail-on "$([ $pie = yes ] && echo error,warning || echo error)" --tag-display-limit 0 "$DEB" \
  >"$T_DIR/lintian.out" 2>&1 && rc=0 || rc=$?
if [ $pie = yes ]; then
  check_eq "lintian reports no errors and no warnings" 0 "$rc"
else
  check_eq "lintian reports no errors (this build's binaries are not PIE: its warnings allowed)" 0 "$rc"
fi
check "... nor shared-library-lacks-prerequisites on blaude-exec" not grep -q 'shared-library-lacks-prerequisites' "$T_DIR/lintian.out"
check "... blaude-exec's override is in the package (usr/share/lintian/overrides/blaude)" \
  grep -qx './usr/share/lintian/overrides/blaude' "$T_DIR/files"
grep -E '^[EW]:' "$T_DIR/lintian.out" | head -20 || true
# Control: the same package with the unstripped build/blaude in it must be an error to lintian.
dpkg-deb -R "$DEB" "$T_DIR/bad"
cp "$BLAUDE_BUILD/blaude" "$T_DIR/bad/usr/bin/blaude"
sed -i '/^Installed-Size:/d' "$T_DIR/bad/DEBIAN/control"
dpkg-deb --root-owner-group -b "$T_DIR/bad" "$T_DIR/bad.deb" >/dev/null
lintian --no-cfg --fail-on error --tags unstripped-binary-or-object "$T_DIR/bad.deb" >"$T_DIR/lintian-bad.out" 2>&1 && rc=0 || rc=$?
check "control: lintian fails an unstripped binary (the check can fail)" test "$rc" -ne 0
check "... as unstripped-binary-or-object" grep -q 'E: blaude: unstripped-binary-or-object' "$T_DIR/lintian-bad.out"
# Control: without the override, lintian warns about a PIE blaude-exec (the override is what
# silences it). A non-PIE one gives lintian nothing to warn about: no control there.
if [ $pie = yes ]; then
  rm "$T_DIR/unpacked/usr/share/lintian/overrides/blaude"
  sed -i '/^Installed-Size:/d' "$T_DIR/unpacked/DEBIAN/control"
  sed -i '/usr\/share\/lintian\/overrides\/blaude$/d' "$T_DIR/unpacked/DEBIAN/md5sums"
  dpkg-deb --root-owner-group -b "$T_DIR/unpacked" "$T_DIR/noovr.deb" >/dev/null
  lintian --no-cfg --fail-on warning --tags shared-library-lacks-prerequisites "$T_DIR/noovr.deb" >"$T_DIR/lintian-noovr.out" 2>&1 && rc=0 || rc=$?
  check "control: without the override lintian warns (the check can fail)" test "$rc" -ne 0
  check "... shared-library-lacks-prerequisites on blaude-exec" \
    grep -q 'W: blaude: shared-library-lacks-prerequisites .*usr/libexec/blaude/blaude-exec' "$T_DIR/lintian-noovr.out"
else
  log "no control for the override: this build's blaude-exec is not PIE (a sanitizer build), lintian has no such warning"
fi

# --- dpkg -i on an overlay of this machine, then the installed blaude ---------------------------
mkdir -p "$T_DIR/ovl"
cp "$DEB" "$T_DIR/ovl/blaude.deb"
claude_tmp_cleanup_at_exit
# doctor checks for claude too: the test's own install of it (on this machine's /, so in the overlay).
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
unshare -m --propagation private bash -s "$T_DIR/ovl" "$(dirname "$CLAUDE_BIN")" >"$T_DIR/dpkg.out" 2>&1 <<'NS'
set -u
O=$1 CLAUDE_DIR=$2
R=$O/r
mkdir "$R"
mount -t tmpfs blaude-test "$R"
mkdir "$R/upper" "$R/work" "$R/root"
cp "$O/blaude.deb" "$R/upper/blaude.deb"
mount -t overlay overlay -o "lowerdir=/,upperdir=$R/upper,workdir=$R/work" "$R/root"
for d in proc dev sys; do mount --rbind /$d "$R/root/$d"; done
mount -t tmpfs blaude-test "$R/root/tmp"
mount -t tmpfs blaude-test "$R/root/run"
mkdir "$R/root/run/old"
cd "$R/root"
pivot_root . run/old || { echo "pivot_root failed"; exit 1; }
umount -l /run/old
echo "host-blaude-before=$(test -e /usr/bin/blaude && echo yes || echo no)"
dpkg -i /blaude.deb; echo "dpkg_rc=$?"
echo "status=$(dpkg-query -W -f='${Status}' blaude)"
/usr/bin/blaude --version; echo "version_rc=$?"
mkdir -p /tmp/h && chown 65534:65534 /tmp/h
cd /tmp/h && env -i HOME=/tmp/h PATH="$CLAUDE_DIR:/usr/bin:/bin" setpriv --reuid=65534 --regid=65534 --clear-groups \
  blaude doctor; echo "doctor_rc=$?"
man -w blaude; echo "man_rc=$?"
# The packaged exec shim: the installed blaude binds it, and a command runs through it.
mkdir -p /tmp/w && chown 65534:65534 /tmp/w
cd /tmp/w && env -i HOME=/tmp/h PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups \
  blaude --no-clipboard --dry-run --exec true 2>&1 | grep -qF -- '--ro-bind /usr/libexec/blaude/blaude-exec /run/blaude/exec' &&
  echo "shim-bound=yes"
cd /tmp/w && env -i HOME=/tmp/h PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups \
  blaude --no-clipboard --exec sh -c 'echo "sandboxed-run=$((40+2))"' </dev/null; echo "run_rc=$?"
dpkg -r blaude >/dev/null; echo "remove_rc=$?"
echo "after-remove=$(test -e /usr/bin/blaude && echo yes || echo no)"
NS
cat "$T_DIR/dpkg.out"
val() { sed -n "s/^$1=//p" "$T_DIR/dpkg.out"; }
check_eq "the overlay started without blaude installed" no "$(val host-blaude-before)"
check_eq "dpkg -i: exit 0 (its dependencies are met)" 0 "$(val dpkg_rc)"
check_eq "... the package is installed" "install ok installed" "$(val status)"
check_eq "installed blaude --version: exit 0" 0 "$(val version_rc)"
check "... names the version and the revision" grep -Eq '^blaude [0-9.]+ \(git [0-9a-f]{12}(-dirty)?\)$' "$T_DIR/dpkg.out"
check_eq "installed blaude doctor: exit 0" 0 "$(val doctor_rc)"
check "... found bwrap" grep -q '^OK   bwrap: ' "$T_DIR/dpkg.out"
check "... and bwrap can create a sandbox as the user" grep -q '^OK   user namespaces' "$T_DIR/dpkg.out"
check_eq "the installed blaude binds the packaged shim (/usr/libexec/blaude/blaude-exec)" yes "$(val shim-bound)"
check_eq "... and a sandboxed command runs through it" "0 42" "$(val run_rc) $(val sandboxed-run)"
check "man finds the installed page" grep -qx '/usr/share/man/man1/blaude.1.gz' "$T_DIR/dpkg.out"
check_eq "dpkg -r: exit 0, and /usr/bin/blaude is gone" "0 no" "$(val remove_rc) $(val after-remove)"
check "the host's own dpkg database was never changed" not sh -c 'dpkg-query -W blaude >/dev/null 2>&1'
check "... nor its /usr/bin" test ! -e /usr/bin/blaude

# --- make rpm: a package rpm can read, with its requirement ------------------------------------
mk rpm >"$T_DIR/rpm.out" 2>&1 || { fail "make rpm"; tail -20 "$T_DIR/rpm.out"; }
RPM=$(ls "$BLAUDE_BUILD"/packages/blaude-*.rpm 2>/dev/null | head -1)
check "make rpm wrote build/packages/blaude-<version>.x86_64.rpm" test -f "$RPM"
rpm -qpR "$RPM" >"$T_DIR/rpm.req" 2>/dev/null || true
check "the .rpm requires bubblewrap" grep -qx 'bubblewrap' "$T_DIR/rpm.req"
rpm -qpl "$RPM" >"$T_DIR/rpm.files" 2>/dev/null || true
check "the .rpm holds /usr/bin/blaude and the man page" grep -qx '/usr/share/man/man1/blaude.1.gz' "$T_DIR/rpm.files"
check "... and not Debian's lintian override" not grep -q lintian "$T_DIR/rpm.files"

finish
