#!/usr/bin/env bash
# Provides a bubblewrap with overlay support (--overlay-src/--tmp-overlay, bwrap >= 0.9) for the
# overlay tests, and prints the path of its binary. Debian 12 ships bwrap 0.8, which has none.
#
# Only Debian's registry is used, through apt with a private, temporary configuration (its own
# sources list, lists and cache in a temp dir): the system's apt state is not changed and nothing
# is installed system-wide. Routes, in order:
#   1. the system's bwrap, if it already has overlays (Debian 13, Ubuntu 24.04, Fedora);
#   2. the cache dir below, if an earlier run filled it;
#   3. trixie's bubblewrap .deb, unpacked, if it runs here (it needs glibc >= 2.38, so on
#      Debian 12 it does not: __isoc23_strtol and friends@GLIBC_2.38 are missing);
#   4. trixie's bubblewrap source package, hash-checked against the signed Sources index and
#      built with meson (needs meson, ninja-build, libcap-dev, pkg-config, gcc: deps.sh test).
#
# Usage: scripts/get-bwrap-overlay.sh          prints e.g. /var/cache/blaude-test/bwrap-overlay/bin/bwrap
# Env:   BLAUDE_BWRAP_OVERLAY_DIR              cache dir (default /var/cache/blaude-test/bwrap-overlay)
#        BLAUDE_BWRAP_SUITE                    Debian suite to take bubblewrap from (default trixie)
set -euo pipefail

DIR=${BLAUDE_BWRAP_OVERLAY_DIR:-/var/cache/blaude-test/bwrap-overlay}
SUITE=${BLAUDE_BWRAP_SUITE:-trixie}
MIRROR=http://deb.debian.org/debian

die() {
  echo "get-bwrap-overlay: $1" >&2
  [ -n "${2:-}" ] && echo "  hint: $2" >&2
  exit 1
}
# The feature test blaude itself uses: bwrap parses every option before --version acts.
has_overlay() { "$1" --overlay-src / --tmp-overlay / --version >/dev/null 2>&1; }

sys=$(command -v bwrap || true)
if [ -n "$sys" ] && has_overlay "$sys"; then
  echo "$sys"
  exit 0
fi
if has_overlay "$DIR/bin/bwrap"; then
  echo "$DIR/bin/bwrap"
  exit 0
fi

command -v apt-get >/dev/null || die "no apt-get here and the system bwrap (${sys:-none}) has no overlays" \
  "install bubblewrap >= 0.9 from your distribution"
mkdir -p "$DIR" 2>/dev/null && [ -w "$DIR" ] || die "cannot write $DIR" \
  "run as root once (make test does), or set BLAUDE_BWRAP_OVERLAY_DIR to a writable dir"

# One fetcher at a time; a second caller waits, then finds the result.
exec 9>"$DIR/.lock"
flock 9
if has_overlay "$DIR/bin/bwrap"; then
  echo "$DIR/bin/bwrap"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/get-bwrap-overlay.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl" "$work/src"
printf 'deb %s %s main\ndeb-src %s %s main\n' "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" >"$work/sources.list"
: >"$work/status"
# The system's trusted keys are used (debian-archive-keyring), everything else is private.
apt_opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=/dev/null
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
          -o "Dir::State::status=$work/status" -o APT::Sandbox::User=root -q)

if ! apt-get "${apt_opts[@]}" update >"$work/update.log" 2>&1 ||
   grep -Eq '^E:|^W: (Failed to fetch|GPG error)' "$work/update.log"; then
  cat "$work/update.log" >&2
  die "could not read Debian's $SUITE index from $MIRROR" "is deb.debian.org reachable?"
fi

install_bin() {  # install_bin SOURCE VERSION-NOTE
  mkdir -p "$DIR/bin"
  cp "$1" "$DIR/bin/bwrap.tmp"
  chmod 755 "$DIR/bin/bwrap.tmp"
  mv -f "$DIR/bin/bwrap.tmp" "$DIR/bin/bwrap"
  echo "$2" >"$DIR/SOURCE"
  has_overlay "$DIR/bin/bwrap" || die "$DIR/bin/bwrap was installed but has no overlay support"
  echo "$DIR/bin/bwrap"
  exit 0
}

# Route 3: the binary package, if this system's libraries are new enough for it.
if (cd "$work/dl" && apt-get "${apt_opts[@]}" download bubblewrap >"$work/download.log" 2>&1); then
  deb=$(ls "$work/dl"/bubblewrap_*.deb)
  dpkg-deb -x "$deb" "$work/root"
  if has_overlay "$work/root/usr/bin/bwrap"; then
    install_bin "$work/root/usr/bin/bwrap" "binary package $(basename "$deb") from $SUITE"
  fi
  echo "get-bwrap-overlay: $SUITE's binary does not run here ($("$work/root/usr/bin/bwrap" --version 2>&1 | head -n1));" \
    "building it from the source package" >&2
else
  cat "$work/download.log" >&2
  echo "get-bwrap-overlay: could not download $SUITE's bubblewrap .deb; trying the source package" >&2
fi

# Route 4: the source package. The .dsc is not needed (and may be unreachable through a proxy):
# each tarball's SHA256 comes from the Sources index, which apt verified against the signed
# Release file, and apt-helper checks the download against it.
for t in meson ninja gcc pkg-config; do
  command -v $t >/dev/null || die "building bubblewrap needs $t" "run: scripts/deps.sh test"
done
pkg-config --exists libcap || die "building bubblewrap needs libcap's headers" "run: scripts/deps.sh test"
apt-get "${apt_opts[@]}" source --print-uris bubblewrap >"$work/uris" 2>"$work/uris.err" ||
  { cat "$work/uris.err" >&2; die "apt found no bubblewrap source package in $SUITE"; }
fetched=0
while read -r uri file _size hash; do
  uri=${uri//\'/}
  case $file in *.dsc) continue ;; esac
  case $hash in SHA256:*) ;; *) die "no SHA256 for $file in the Sources index (got '$hash')" ;; esac
  /usr/lib/apt/apt-helper download-file "$uri" "$work/src/$file" "$hash" >"$work/fetch.log" 2>&1 ||
    { cat "$work/fetch.log" >&2; die "could not download $uri"; }
  fetched=$((fetched + 1))
done < <(grep "^'" "$work/uris")
orig=$(ls "$work/src"/bubblewrap_*.orig.tar.* 2>/dev/null | head -n1)
[ "$fetched" -ge 1 ] && [ -n "$orig" ] || die "the source package listed no upstream tarball"
tar -xf "$orig" -C "$work/src"
srcdir=$(ls -d "$work/src"/bubblewrap-*/ | head -n1)
# Debian's own patches, when the package carries any (series applied in order).
deb_tar=$(ls "$work/src"/bubblewrap_*.debian.tar.* 2>/dev/null | head -n1)
if [ -n "$deb_tar" ]; then
  tar -xf "$deb_tar" -C "$srcdir"
  if [ -f "$srcdir/debian/patches/series" ]; then
    while read -r p _; do
      case $p in '' | '#'*) continue ;; esac
      patch -d "$srcdir" -p1 --quiet <"$srcdir/debian/patches/$p" || die "Debian patch $p does not apply"
    done <"$srcdir/debian/patches/series"
  fi
fi
if ! (cd "$srcdir" && meson setup _build -Dselinux=disabled -Dman=disabled -Dtests=false \
        -Dbash_completion=disabled -Dzsh_completion=disabled && ninja -C _build -j 2) >"$work/build.log" 2>&1; then
  tail -n 30 "$work/build.log" >&2
  die "building bubblewrap from source failed"
fi
install_bin "$srcdir/_build/bwrap" "built from source $(basename "$orig") ($SUITE) with meson"
