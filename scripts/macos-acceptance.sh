#!/bin/bash
# The macOS backend's acceptance checks, for a user on a Mac to run once (about 5 minutes).
# blaude's Seatbelt backend is built and tested on Linux by generating its profile and forcing
# the POSIX fallbacks; it has never run on a Mac. This script runs the checks of the review
# (../shared/reference/seatbelt-review.md §F) and the issue's list through the real blaude,
# and prints PASS, FAIL, INFO (a fact to report, no verdict) or SKIP (and why) per item.
#
#   scripts/macos-acceptance.sh [path/to/blaude]      (default: build/blaude, then PATH)
#   ACCEPT_CLAUDE=1   also run claude itself (two short requests: costs tokens)
#   ACCEPT_GUI=1      also try the escapes that open apps (Terminal, System Events); macOS may
#                     show a permission prompt: answer "Don't Allow"
#
# Nothing outside a fresh temporary directory is changed, except a keychain item named
# blaude-acceptance that item 15 creates and removes. Please send the whole output back.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BLAUDE=${1:-}
if [ -z "$BLAUDE" ]; then
  if [ -x "$here/build/blaude" ]; then BLAUDE="$here/build/blaude"; else BLAUDE=$(command -v blaude || true); fi
fi

pass=0 fail=0 n=0
say() { n=$((n + 1)); printf '%-5s %2d. %s\n' "$1" "$n" "$2"; }
ok() { pass=$((pass + 1)); say PASS "$1"; }
no() { fail=$((fail + 1)); say FAIL "$1${2:+ -- $2}"; }
info() { say INFO "$1"; }
skip() { say SKIP "$1 -- $2"; }
check() { # check "what" command...: PASS when the command succeeds
  local what=$1; shift
  if out=$("$@" 2>&1); then ok "$what"; else no "$what" "$(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"; fi
}
denied() { # denied "what" command...: PASS when the command fails (the sandbox said no)
  local what=$1; shift
  if out=$("$@" 2>&1); then no "$what" "it succeeded: $(printf '%s' "$out" | tail -n 1)"; else ok "$what"; fi
}

if [ "$(uname -s)" != Darwin ]; then echo "this script is for macOS (uname says $(uname -s))" >&2; exit 2; fi
if [ -z "$BLAUDE" ] || [ ! -x "$BLAUDE" ]; then echo "no blaude binary: give its path" >&2; exit 2; fi
echo "blaude: $BLAUDE ($("$BLAUDE" --version 2>&1)); macOS $(sw_vers -productVersion 2>/dev/null) $(uname -m)"

T=$(mktemp -d "${TMPDIR:-/tmp}/blaude-accept.XXXXXX") || exit 2
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"; security delete-generic-password -s blaude-acceptance >/dev/null 2>&1' EXIT
P="$T/project"
mkdir -p "$P" && cd "$P" || exit 2
git init -q . && git commit -q --allow-empty -m init 2>/dev/null
mkdir -p sub && (cd sub && git init -q . && git commit -q --allow-empty -m init) 2>/dev/null
git -c protocol.file.allow=always submodule -q add ./sub mod 2>/dev/null
git worktree add -q "$T/wt" 2>/dev/null
echo secret >.env
mkdir -p nested/inner && (cd nested/inner && git init -q .)
SRC="$T/src.git" && git init -q --bare "$SRC"

# In the sandbox, on pipes (stdin is not a terminal): what a script sees.
in_box() { "$BLAUDE" --exec /bin/bash -c "$1" </dev/null; }
in_box_at() { (cd "$1" && "$BLAUDE" --exec /bin/bash -c "$2" </dev/null); }

echo "== the profile"
dry=$("$BLAUDE" --dry-run --exec /usr/bin/true 2>/dev/null)
PROFILE=
eval "$(printf '%s\n' "$dry" | sed '$d')" 2>/dev/null
if [ -n "$PROFILE" ]; then ok "--dry-run prints a profile ($(printf '%s' "$PROFILE" | wc -l | tr -d ' ') lines)"; else no "--dry-run prints a profile"; fi
check "sandbox-exec -p accepts it (review B: the regexes, unix-socket filters)" /usr/bin/sandbox-exec -p "$PROFILE" /usr/bin/true
printf '%s' "$PROFILE" >"$T/profile.sb"
check "sandbox-exec -f accepts it" /usr/bin/sandbox-exec -f "$T/profile.sb" /usr/bin/true
check "blaude doctor is all OK" "$BLAUDE" doctor
check "the runnable --dry-run command runs /usr/bin/true as printed" bash -c "$dry"

echo "== claude's own needs"
if security find-generic-password -s "Claude Code-credentials" >/dev/null 2>&1; then
  check "the keychain login is readable inside (security find-generic-password)" \
    in_box 'security find-generic-password -s "Claude Code-credentials" -w >/dev/null'
  noc=$(printf '%s\n' "$PROFILE" | grep -v '/C")$' | grep -v '/C"))$')
  if /usr/bin/sandbox-exec -p "$noc" /usr/bin/security find-generic-password -s "Claude Code-credentials" -w >/dev/null 2>&1; then
    info "without the per-user cache dir (…/C) the login is readable too (C4: the C grant may be unneeded)"
  else
    info "without the per-user cache dir (…/C) the login is NOT readable (C4: the C grant is needed)"
  fi
else
  skip "the keychain login inside" "no 'Claude Code-credentials' item on this Mac"
fi
if security add-generic-password -a "$USER" -s blaude-acceptance -w x -U >/dev/null 2>&1 &&
   in_box 'security add-generic-password -a "$USER" -s blaude-acceptance -w changed -U' >/dev/null 2>&1 &&
   [ "$(security find-generic-password -s blaude-acceptance -w 2>/dev/null)" = changed ]; then
  info "a keychain item can be updated from inside (token refreshes persist without --keyring)"
else
  info "a keychain item can NOT be updated from inside (token refreshes need --keyring)"
fi
if [ "${ACCEPT_CLAUDE:-}" = 1 ]; then
  check "claude -p answers" bash -c "'$BLAUDE' -p 'Reply with the single word ok.' </dev/null | grep -qi ok"
  check "claude's Bash tool runs a command" \
    bash -c "'$BLAUDE' -p 'Run the shell command: echo blaude-acceptance-ok. Then reply with its output only.' </dev/null | grep -q blaude-acceptance-ok"
else
  skip "claude -p and its Bash tool" "set ACCEPT_CLAUDE=1 (two short requests)"
fi
if [ -e /usr/bin/script ]; then
  out=$(cd "$P" && script -q /dev/null "$BLAUDE" --exec /bin/sh -c 'stty -a >/dev/null && tty' </dev/null 2>&1 | tr -d '\r')
  case $out in *"/dev/ttys"*) ok "on its own pty: raw-mode ioctls work, the session's tty is allowed ($(printf '%s' "$out" | grep /dev/ttys | tail -n 1))" ;;
    *) no "on its own pty: stty and tty work" "$(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')" ;; esac
fi

echo "== workflows that must work (review C1-C5)"
check "Apple's /usr/bin/git (an xcrun shim) runs" in_box '/usr/bin/git --version'
check "git clone into /tmp" in_box "git clone -q '$SRC' /tmp/blaude-accept-clone.\$\$ && rm -rf /tmp/blaude-accept-clone.\$\$"
check "git init in \$TMPDIR" in_box 'd=$(mktemp -d) && git init -q "$d" && rm -rf "$d"'
check "git worktree add outside the project (in /tmp)" in_box "git worktree add -q /tmp/blaude-accept-wt.\$\$ && git worktree remove --force /tmp/blaude-accept-wt.\$\$"
check "git commit in a linked worktree" in_box_at "$T/wt" 'git -c user.name=t -c user.email=t@t commit -q --allow-empty -m wt'
check ".env.example can be created" in_box 'echo x > .env.example && rm .env.example'
check "echo x >/dev/stderr, tee /dev/stdout, >(…)" in_box 'echo x >/dev/stderr && echo y | tee /dev/stdout >/dev/null && cat <(echo z) >/dev/null'
check "make, clang, python3 from /usr/bin" in_box 'for t in make clang python3; do /usr/bin/$t --version >/dev/null || exit 1; done'
if command -v node >/dev/null; then check "node on PATH ($(command -v node))" in_box 'node -e 0'; fi
if command -v claude >/dev/null; then check "claude --version on PATH ($(command -v claude))" in_box 'claude --version'; fi

echo "== attacks that must fail (review D1-D6), each with a control on the host"
touch "$P/probe" && ok "control: the host itself can write in the project"
denied "write .git/hooks/pre-commit" in_box 'echo evil > .git/hooks/pre-commit'
denied "write .git/config" in_box 'echo evil >> .git/config'
denied "write .git/modules/mod/config (a submodule's gitdir)" in_box 'echo evil >> .git/modules/mod/config'
denied "write .git/modules/mod/hooks/post-checkout" in_box 'echo evil > .git/modules/mod/hooks/post-checkout'
denied "rewrite the worktree's .git file" in_box_at "$T/wt" 'echo "gitdir: ./evil" > .git'
denied "write the main checkout's hooks through a worktree" in_box_at "$T/wt" "echo evil > '$P/.git/hooks/post-checkout'"
denied "write nested/inner/.git/config (a nested repository)" in_box 'echo evil >> nested/inner/.git/config'
denied "rename a dir above a protected path (mv nested x)" in_box 'mv nested x'
denied "rename .git" in_box 'mv .git g'
denied "overwrite .env" in_box 'echo x > .env'
if in_box 'echo evil > .GIT/HOOKS/t' >/dev/null 2>&1; then no "write .GIT/HOOKS/t (APFS is case-insensitive, D5)"; rm -f .git/hooks/t; else ok "write .GIT/HOOKS/t (APFS is case-insensitive, D5)"; fi
denied "write ~/.claude/hooks/ (Claude Code runs its hooks on the host)" in_box 'mkdir -p ~/.claude/hooks && echo evil > ~/.claude/hooks/blaude-accept.sh'
rm -f ~/.claude/hooks/blaude-accept.sh
denied "write ~/.claude/plugins/ (installed plugins' hooks run on the host)" in_box 'mkdir -p ~/.claude/plugins && echo evil > ~/.claude/plugins/blaude-accept'
rm -f ~/.claude/plugins/blaude-accept
check "control: the rest of ~/.claude stays writable (claude's sessions and settings)" in_box 'touch ~/.claude/.blaude-accept && rm ~/.claude/.blaude-accept'
denied "read ~/.ssh (or any file outside the allowlist)" in_box 'cat ~/.ssh/* ~/Documents/* ~/.zsh_history 2>/dev/null | head -c1 | grep -q .'
denied "run a program copied to \$TMPDIR" in_box 'cp /bin/echo "$TMPDIR/e.$$" && "$TMPDIR/e.$$" hi'
# A unix socket on the host (what Docker's is): the sandbox must not connect to it.
sock="$T/host.sock"
python3 -c "import socket,os,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(5); os.write(1,b'r'); [s.accept()[0].close() for _ in range(3)]" "$sock" >/dev/null 2>&1 &
spid=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -S "$sock" ] && break; sleep 0.2; done
if python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])" "$sock" 2>/dev/null; then
  ok "control: the host connects to a unix socket"
  denied "connect to a host unix socket (D2)" in_box "python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('$sock')\""
else
  skip "unix socket check" "the host could not connect to its own test socket"
fi
kill $spid 2>/dev/null
for d in "$HOME/.docker/run/docker.sock" /var/run/docker.sock "$HOME/.orbstack/run/docker.sock"; do
  if [ -S "$d" ]; then denied "curl --unix-socket $d (Docker, D2)" in_box "curl -s --max-time 3 --unix-socket '$d' http://x/_ping"; fi
done
# The ssh agent: reachable only behind --ssh (ssh-add -l exits 2 when it cannot reach the agent).
if [ -S "${SSH_AUTH_SOCK:-}" ]; then
  "$BLAUDE" --exec /usr/bin/ssh-add -l </dev/null >/dev/null 2>&1
  if [ $? -eq 2 ]; then ok "the ssh agent is unreachable without --ssh"; else no "the ssh agent is unreachable without --ssh"; fi
  "$BLAUDE" --ssh --exec /usr/bin/ssh-add -l </dev/null >/dev/null 2>&1
  if [ $? -ne 2 ]; then ok "--ssh reaches the ssh agent (its socket allowed by path-literal)"; else no "--ssh reaches the ssh agent"; fi
else
  skip "the ssh agent checks" "SSH_AUTH_SOCK is not a socket here"
fi
rm -f /tmp/blaude-accept-escaped
in_box 'launchctl submit -l blaude-accept -- /usr/bin/touch /tmp/blaude-accept-escaped' >/dev/null 2>&1
sleep 2
if [ -e /tmp/blaude-accept-escaped ]; then no "launchctl submit runs nothing outside (D6)"; else ok "launchctl submit runs nothing outside (D6)"; fi
launchctl remove blaude-accept >/dev/null 2>&1; rm -f /tmp/blaude-accept-escaped
if [ "${ACCEPT_GUI:-}" = 1 ]; then
  in_box 'osascript -e "tell application \"System Events\" to do shell script \"touch /tmp/blaude-accept-ae\""' >/dev/null 2>&1
  sleep 2
  if [ -e /tmp/blaude-accept-ae ]; then no "osascript to System Events runs nothing outside (D6)"; else ok "osascript to System Events runs nothing outside (D6)"; fi
  printf '#!/bin/sh\ntouch /tmp/blaude-accept-open\n' >"$P/x.command" && chmod +x "$P/x.command"
  in_box 'open -g x.command' >/dev/null 2>&1
  sleep 3
  if [ -e /tmp/blaude-accept-open ]; then no "open x.command runs nothing outside (D6)"; else ok "open x.command runs nothing outside (D6)"; fi
  rm -f /tmp/blaude-accept-ae /tmp/blaude-accept-open
else
  skip "osascript / open escapes" "set ACCEPT_GUI=1 (may open Terminal or ask for permission)"
fi

echo "== the session's processes end with it (no pid namespace on macOS: blaude sweeps the session)"
# On a pty (script), as a user runs it: the sweep is pty mode's (the child leads a session there).
mark=$((900000 + RANDOM))$$
script -q /dev/null "$BLAUDE" --exec /bin/sh -c "(trap '' HUP; exec sleep $mark </dev/null >/dev/null 2>&1 &); exit 0" >/dev/null 2>&1 </dev/null
if pgrep -fx "sleep $mark" >/dev/null; then no "a daemonized grandchild (SIGHUP ignored) is gone when blaude returns"; else ok "a daemonized grandchild (SIGHUP ignored) is gone when blaude returns"; fi
pkill -KILL -fx "sleep $mark" 2>/dev/null
script -q /dev/null "$BLAUDE" --exec /usr/bin/perl -e 'use POSIX; fork and exit; POSIX::setsid(); fork and exit; open STDIN, "</dev/null"; open STDOUT, ">/dev/null"; open STDERR, ">/dev/null"; exec "sleep", "'"$mark"'"' >/dev/null 2>&1 </dev/null
if pgrep -fx "sleep $mark" >/dev/null; then info "a setsid + double-fork daemon survives the session (known gap: no link to the session is left)"; else info "a setsid + double-fork daemon did not survive"; fi
pkill -KILL -fx "sleep $mark" 2>/dev/null

# Pipes mode (stdio not a terminal) with no controlling terminal (scripts, CI, an IDE): the child
# gets a session of its own and the same sweep applies. (perl: macOS has no setsid(1).)
no_ctty() { /usr/bin/perl -e 'use POSIX; my $p = fork; if ($p) { waitpid($p, 0); exit($? >> 8) } POSIX::setsid(); exec @ARGV or exit 127' "$@"; }
no_ctty "$BLAUDE" --exec /bin/sh -c "(trap '' HUP; exec sleep $mark </dev/null >/dev/null 2>&1 &); exit 0" </dev/null >/dev/null 2>&1
if pgrep -fx "sleep $mark" >/dev/null; then no "pipes mode, no controlling terminal: the daemonized grandchild is gone when blaude returns"; else ok "pipes mode, no controlling terminal: the daemonized grandchild is gone when blaude returns"; fi
pkill -KILL -fx "sleep $mark" 2>/dev/null
# Pipes mode ON a controlling terminal (`blaude -p x | less`): the child stays in the user's
# shell's session, which holds the user's other jobs, so nothing is swept (known gap, stated).
"$BLAUDE" --exec /bin/sh -c "(trap '' HUP; exec sleep $mark </dev/null >/dev/null 2>&1 &); exit 0" </dev/null 2>&1 | cat >/dev/null
if pgrep -fx "sleep $mark" >/dev/null; then info "pipes mode on a controlling terminal: the daemon survives (known gap: that session is not swept)"; else info "pipes mode on a controlling terminal: the daemon did not survive"; fi
pkill -KILL -fx "sleep $mark" 2>/dev/null

echo "== facts to report (no verdict)"
if in_box 'python3 -c "import pty; pty.spawn([\"/usr/bin/true\"])"' >/dev/null 2>&1; then info "a nested pty works (python pty)"; else info "a nested pty does not work (python pty, tmux, script inside: by design, C5)"; fi
if in_box 'echo a > hl1 && ln hl1 hl2' >/dev/null 2>&1; then info "hard links work in the project"; else info "hard links are denied in the project (D6: pnpm/uv/bun fall back to copies)"; fi
if in_box 'echo a > cl1 && cp -c cl1 cl2' >/dev/null 2>&1; then info "file clones (cp -c) work in the project"; else info "file clones (cp -c) are denied in the project"; fi
if in_box 'pbpaste >/dev/null'; then info "pbpaste reads the clipboard inside (D6)"; else info "pbpaste cannot read the clipboard inside"; fi

echo
echo "$pass passed, $fail failed (of $n items)"
[ "$fail" -eq 0 ]
