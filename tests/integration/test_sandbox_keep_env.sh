#!/usr/bin/env bash
# --keep-env keeps the host environment, except what blaude must always drop: the outer
# session's markers (CLAUDE_CODE_SUBPROCESS_ENV_SCRUB, even =0, forces claude's permission mode
# back to default; the others mislabel the inner session or point at host objects), any
# CLAUDE_CODE_MESSAGING_* variable, and under --remote-control the privacy opt-outs and the two
# keys it promises to drop. The real blaude, the real bwrap, uid 65534, `--exec env` as claude.
#
# On main before the app-layer fix this FAILS (every "--keep-env: ... does not
# arrive" check): main never filled PlanInputs::unset_env, so under --keep-env (no --clearenv)
# bwrap passed the inherited host values through.
# The same for every process visible inside: bwrap's own environment (pid 1 inside, its reaper)
# is readable at /proc/1/environ, so it must not hold them either.
# Controls: a harmless host variable that is on no list does arrive under --keep-env (so the
# inherited environment really reaches the command and an absence means a removal), and a
# forced value (DISABLE_AUTOUPDATER=0 on the host) arrives as blaude's 1.
. "$(dirname "$0")/lib.sh"

need_sandbox

H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$H/.claude" "$WS"
chown -R 65534:65534 "$H" "$WS"

# The promise (src/sandbox/env_policy.cpp kUnset, kPrivacy, kRcAuth), spelled out here so that a
# name dropped from the code fails this test instead of silently leaving it.
UNSET=(CLAUDE_CODE_SUBPROCESS_ENV_SCRUB CLAUDE_CODE_ENTRYPOINT CLAUDE_CODE_EXECPATH
  CLAUDE_CODE_SESSION_ID CLAUDE_CODE_BRIDGE_SESSION_ID CLAUDE_CODE_CHILD_SESSION
  CLAUDE_CODE_TEAM_NAME CLAUDE_CODE_REMOTE CLAUDE_CODE_REMOTE_SESSION_ID CLAUDE_EFFORT
  CLAUDE_PROJECT_DIR CLAUDE_CODE_MESSAGING_SOCKET CLAUDE_CODE_MESSAGING_TOKEN CLAUDE_PID)
# Not in the list by name, but the same class: any messaging variable of the outer session.
MESSAGING_EXTRA=CLAUDE_CODE_MESSAGING_CHANNEL
RC_ALSO=(DO_NOT_TRACK DISABLE_TELEMETRY DISABLE_GROWTHBOOK ANTHROPIC_API_KEY CLAUDE_CODE_OAUTH_TOKEN)
check_eq "the test covers the 14 force-unset names" 14 "${#UNSET[@]}"

HOST_ENV=(HOME="$H" PATH=/usr/bin:/bin TERM=dumb KEEP_ENV_HARMLESS=arrives DISABLE_AUTOUPDATER=0
  "$MESSAGING_EXTRA=/tmp/outer-channel")
for k in "${UNSET[@]}" "${RC_ALSO[@]}"; do HOST_ENV+=("$k=outer-$k"); done
HOST_ENV=("${HOST_ENV[@]/#CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=*/CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=0}")

# inside [blaude options]: the environment `env` sees in the sandbox, run by the real blaude as
# uid 65534 from the workspace, with HOST_ENV as the whole host environment.
inside() {
  (cd "$WS" && env -i "${HOST_ENV[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" "$@" --exec env </dev/null 2>>"$T_DIR/err")
}
arrives() { grep -q "^$1=" <<<"$2"; }
# procs [blaude options]: the environment of every process visible inside (bwrap's pid 1 too).
procs() {
  (cd "$WS" && env -i "${HOST_ENV[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" "$@" --exec sh -c 'cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n"' </dev/null 2>>"$T_DIR/err")
}

for mode in keep rc default; do
  case $mode in
    keep) label="--keep-env"; out=$(inside --keep-env) ;;
    rc) label="--keep-env --remote-control"; out=$(inside --keep-env --remote-control) ;;
    default) label="default (clearenv)"; out=$(inside) ;;
  esac
  check "$label: the sandbox ran env (it printed HOME)" arrives HOME "$out"
  case $mode in keep) seen=$(procs --keep-env) ;; rc) seen=$(procs --keep-env --remote-control) ;; *) seen=$(procs) ;; esac
  banned=("${UNSET[@]}" "$MESSAGING_EXTRA")
  [ $mode = rc ] && banned+=("${RC_ALSO[@]}")
  check "$label: no process inside (bwrap's pid 1 included) holds one of them" \
    not grep -Eq "^($(IFS='|'; echo "${banned[*]}"))=" <<<"$seen"
  [ $mode = default ] || check "$label control: the process scan sees the environment" \
    grep -q "^KEEP_ENV_HARMLESS=arrives" <<<"$seen"
  for k in "${UNSET[@]}" "$MESSAGING_EXTRA"; do
    check "$label: $k does not arrive" not arrives "$k" "$out"
  done
  if [ $mode = rc ]; then
    for k in "${RC_ALSO[@]}"; do check "$label: $k does not arrive" not arrives "$k" "$out"; done
  else
    check_eq "$label: DO_NOT_TRACK is blaude's forced 1" "DO_NOT_TRACK=1" "$(grep '^DO_NOT_TRACK=' <<<"$out")"
  fi
  check_eq "$label control: a forced value overrides the host's" "DISABLE_AUTOUPDATER=1" \
    "$(grep '^DISABLE_AUTOUPDATER=' <<<"$out")"
  if [ $mode = default ]; then
    check "default control: a variable on no list is dropped by --clearenv" not arrives KEEP_ENV_HARMLESS "$out"
  else
    check_eq "$label control: a host variable on no list arrives" "KEEP_ENV_HARMLESS=arrives" \
      "$(grep '^KEEP_ENV_HARMLESS=' <<<"$out")"
  fi
done

finish
