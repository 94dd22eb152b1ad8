#!/usr/bin/env bash
# Host /etc as other programs configure it, with the real bwrap as uid 65534: /etc/resolv.conf
# as a relative (Ubuntu) or absolute link, and --dry-run's printed command run in sh; managed
# settings' helper dirs. /etc is changed only inside a private mount namespace (an overlay on
# /etc), never on the host. --clear-tmp keeps the test dir (under /tmp) out of the sandbox, so
# anything of it seen inside arrived through the mount under test.
. "$(dirname "$0")/lib.sh"

need_sandbox

NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$H" "$WS"
chown -R $NOBODY:$NOBODY "$H" "$WS"
# nob_etc UPPER CMD...: CMD as uid 65534 from the workspace with a clean environment, in a
# private mount namespace whose /etc has UPPER laid over it.
nob_etc() {
  local up=$1; shift
  mkdir -p "$up" "$up.work"
  (cd "$WS" && unshare -m --propagation private sh -c \
    'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0,workdir=$0.work" /etc && exec "$@"' "$up" \
    env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@" </dev/null)
}
# sb UPPER [blaude options] -- SCRIPT: the real blaude runs SCRIPT in sh inside the sandbox
sb() {
  local up=$1 opts=(); shift
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  nob_etc "$up" "$BLAUDE" "${opts[@]}" --exec sh -c "$2" 2>>"$T_DIR/sb.err"
}

# --- /etc/resolv.conf as a link into a dir the sandbox does not otherwise see ----------------
nob_etc "$T_DIR/probe-etc" true 2>"$T_DIR/ns.err" ||
  host_lacks "cannot overlay /etc in a private mount namespace (needs root): $(cat "$T_DIR/ns.err")"
mkdir -p "$T_DIR/run-rel" "$T_DIR/run-abs" "$T_DIR/etc-rel" "$T_DIR/etc-abs/claude-code"
echo "nameserver 192.0.2.1" >"$T_DIR/run-rel/resolv.conf"
echo "nameserver 192.0.2.2" >"$T_DIR/run-abs/resolv.conf"
ln -s "..$T_DIR/run-rel/resolv.conf" "$T_DIR/etc-rel/resolv.conf"  # Ubuntu's form: relative
ln -s "$T_DIR/run-abs/resolv.conf" "$T_DIR/etc-abs/resolv.conf"
for form in rel abs; do
  want="nameserver 192.0.2.$([ $form = rel ] && echo 1 || echo 2)"
  got=$(nob_etc "$T_DIR/etc-$form" "$BLAUDE" --clear-tmp --exec cat /etc/resolv.conf 2>>"$T_DIR/sb.err")
  check_eq "$form resolv.conf link resolves in the sandbox" "$want" "$got"
  printed=$(nob_etc "$T_DIR/etc-$form" "$BLAUDE" --clear-tmp --dry-run --exec cat /etc/resolv.conf 2>/dev/null)
  check "$form: --dry-run feeds the data through a here-document" grep -q "^  -- $SHIM cat /etc/resolv.conf 3<<'BLAUDE_DATA_3'\$" <<<"$printed"
  check "$form: no unresolved placeholder is printed" not grep -q '@fd:' <<<"$printed"
  ran=$(nob_etc "$T_DIR/etc-$form" sh -c "$printed" 2>&1)
  check_eq "$form: the printed command runs in sh as printed" "$want" "$ran"
  # Control: the same command without the resolv mount shows the dangling link.
  ctl=$(nob_etc "$T_DIR/etc-$form" sh -c "$(grep -v -- '--ro-bind-data' <<<"$printed")" 2>&1 || true)
  check "$form control: without the data bind resolv.conf dangles" not grep -q "$want" <<<"$ctl"
done

# --- managed settings: root-owned helper dirs are mounted, others are not ------------------
mkdir -p "$T_DIR/corp/bin" "$T_DIR/userbin"
printf '#!/bin/sh\necho corp-helper\n' >"$T_DIR/corp/bin/helper"
printf '#!/bin/sh\necho user-helper\n' >"$T_DIR/userbin/x"
chmod 755 "$T_DIR/corp" "$T_DIR/corp/bin" "$T_DIR/corp/bin/helper" "$T_DIR/userbin/x"
chown -R $NOBODY:$NOBODY "$T_DIR/userbin"
cat >"$T_DIR/etc-abs/claude-code/managed-settings.json" <<JSON
{"apiKeyHelper": "$T_DIR/corp/bin/helper --json",
 "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "'$T_DIR/userbin/x'"}]}]}}
JSON
chmod 644 "$T_DIR/etc-abs/claude-code/managed-settings.json"
look="'$T_DIR/corp/bin/helper' 2>&1; test -e '$T_DIR/userbin/x' && echo USERBIN-VISIBLE; true"
: >"$T_DIR/sb.err"
out=$(sb "$T_DIR/etc-abs" --clear-tmp -- "$look")
check "managed settings: the root-owned helper dir is mounted and runs" grep -q '^corp-helper$' <<<"$out"
check "managed settings: a user-owned dir is not mounted" not grep -q USERBIN-VISIBLE <<<"$out"
check "managed settings: the user-owned dir is reported" grep -q "not mounting managed path $T_DIR/userbin" "$T_DIR/sb.err"
out=$(sb "$T_DIR/etc-rel" --clear-tmp -- "$look")
check "control: without managed settings the helper is not there" not grep -q corp-helper <<<"$out"

finish
