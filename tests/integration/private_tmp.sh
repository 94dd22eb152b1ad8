# Source FIRST in a test that makes and removes entries under the seed's /tmp names (dbus-*,
# ssh-*, tmux-*, .X11-unix): the test re-runs itself in a PRIVATE /tmp (a tmpfs in a mount
# namespace of its own, made as root), so what it makes there never reaches the machine's /tmp,
# where every other test's blaude lists those names. (Where the protect helper cannot run, as
# in `make posix`, bwrap stops a start whose shadowed /tmp name is removed before its mount: a
# test's cleanup in the shared /tmp could fail another test's start.)
# What the test itself needs from the machine's /tmp (a checkout or build dir there, as a CI
# clone may be: the script, lib.sh, the binary) is bound back at the same paths, from a
# descriptor of the machine's /tmp opened before the tmpfs covers it.
if [ -z "${BLAUDE_PRIVATE_TMP:-}" ]; then
  exec env BLAUDE_PRIVATE_TMP=1 unshare --mount --propagation private bash -c '
    set -e
    exec 3</tmp
    mount -t tmpfs -o mode=1777 blaude-private-tmp /tmp
    for p in "$@"; do
      case "$p" in /tmp/?*) ;; *) continue ;; esac
      top=${p#/tmp/}; top=${top%%/*}
      [ -e "/proc/self/fd/3/$top" ] && ! mountpoint -q "/tmp/$top" || continue
      if [ -d "/proc/self/fd/3/$top" ]; then mkdir "/tmp/$top"; else : >"/tmp/$top"; fi
      mount --no-canonicalize --bind "/proc/self/fd/3/$top" "/tmp/$top"  # not the path /tmp/… again
    done
    exec 3<&-
    exec bash "$0"' "$(readlink -f "$0")" "$(readlink -f "$0")" "${BLAUDE:-}" "${BLAUDE_SRC:-}" "${BLAUDE_BUILD:-}"
fi
[ "$(findmnt -n -o SOURCE /tmp)" = blaude-private-tmp ] || { echo "FAIL: no private /tmp"; exit 1; }
