#!/usr/bin/env bash
# The workspace at its host path (the default) and the seed's layout (--workspace-path=seed),
# through the real blaude as uid 65534: the working directory inside is the host path, and
# /workspaces/<dir> leads to the same files; protected files are refused through both paths (a
# file beside them is writable through both: the control); a venv made on the host runs inside;
# two projects named `app` get two working directories (two Claude Code history keys), a project
# reached through a symlinked parent is at its real path; a linked
# worktree's own admin dir survives `git worktree prune` inside (in the seed's layout, with the
# host path hidden, it does not: the control); the seed's layout has its working directory at
# /workspaces/<dir> and no host path; a project in a dir the sandbox mounts itself is refused
# with the way out named; the one-time note on conversations kept under /workspaces/<dir>.
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v git >/dev/null || missing "git is not installed"
python3 -c 'import venv' 2>/dev/null || missing "python3-venv (python3 -m venv)"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
sandbox_dirs
# A path with a blank in it, below the host's /tmp (the sandbox's rw /tmp shows its parents).
WS="$T_DIR/my ws"
mkdir -p "$WS"
(cd "$WS" && git -c init.defaultBranch=main init -q . && echo one >file && git add file && git commit -qm one)
echo free >"$WS/free.txt"
chown -R 65534:65534 "$WS"
# A venv made on the host: its scripts name the host path. Without pip (ensurepip takes ~20 s
# here); a console script as pip writes it for a path with a blank in it (a shebang line cannot
# hold one: /bin/sh execs the venv's python by its host path).
as_nobody env HOME="$H" python3 -m venv --without-pip "$WS/.venv" >"$T_DIR/venv.out" 2>&1 || { fail "python3 -m venv on the host"; cat "$T_DIR/venv.out"; }
cat >"$WS/.venv/bin/tool" <<TOOL
#!/bin/sh
'''exec' "$WS/.venv/bin/python" "\$0" "\$@"
' '''
import sys
print("tool-runs " + sys.prefix)
TOOL
chmod 755 "$WS/.venv/bin/tool" && chown 65534:65534 "$WS/.venv/bin/tool"
SEED=/workspaces/my_ws

# --- the default layout: one start, every check inside ---------------------------------------
out=$(sb_nobody /usr/bin -- '
  printf "pwd=%s\n" "$(pwd)"
  cat "/workspaces/my_ws/file" | sed "s/^/seed-read=/"
  for p in "$(pwd)" /workspaces/my_ws; do
    (echo x >>"$p/.git/config") 2>/dev/null && echo "config-written-at=$p"
    (echo x >"$p/.git/hooks/pre-commit") 2>/dev/null && echo "hook-written-at=$p"
    (echo y >>"$p/free.txt") 2>/dev/null && echo "free-written-at=$p"
  done
  echo new >/workspaces/my_ws/via-seed.txt && echo wrote-via-seed
  .venv/bin/python -c "import sys; print(\"venv-prefix=\" + sys.prefix)"
  .venv/bin/tool
  echo END' || true)
check_eq "default: the working directory inside is the host path" "pwd=$WS" "$(grep '^pwd=' <<<"$out")"
check "default: $SEED leads to the same files" grep -qx 'seed-read=one' <<<"$out"
check "default: a file written through $SEED is in the project" test -f "$WS/via-seed.txt"
check "default: .git/config refused at the host path" not grep -qx "config-written-at=$WS" <<<"$out"
check "default: .git/config refused at $SEED" not grep -qx "config-written-at=$SEED" <<<"$out"
check "default: .git/hooks refused at the host path" not grep -qx "hook-written-at=$WS" <<<"$out"
check "default: .git/hooks refused at $SEED" not grep -qx "hook-written-at=$SEED" <<<"$out"
check "control: a file beside them is writable at the host path" grep -qx "free-written-at=$WS" <<<"$out"
check "control: ... and at $SEED" grep -qx "free-written-at=$SEED" <<<"$out"
check "default: the host's .git/config is unchanged" not grep -qx x "$WS/.git/config"
check "default: no hook landed on the host" test ! -e "$WS/.git/hooks/pre-commit"
check_eq "default: a venv made on the host runs inside" "venv-prefix=$WS/.venv" "$(grep '^venv-prefix=' <<<"$out")"
check_eq "default: ... and its console script (naming the host path)" "tool-runs $WS/.venv" "$(grep "^tool-runs" <<<"$out")"
check "default: the session ran to its end" grep -qx END <<<"$out"

# --- the seed's layout, with the host's /tmp hidden (--clear-tmp): no host path inside --------
out=$(sb_nobody /usr/bin --workspace-path=seed --clear-tmp -- '
  printf "pwd=%s\n" "$(pwd)"
  test -e "$1" && echo host-path-exists
  (echo x >>.git/config) 2>/dev/null && echo config-written
  (echo z >>free.txt) 2>/dev/null && echo free-written
  echo END' "$WS" || true)
check_eq "seed: the working directory is $SEED" "pwd=$SEED" "$(grep '^pwd=' <<<"$out")"
check "seed: the host path does not exist inside" not grep -qx host-path-exists <<<"$out"
check "seed: .git/config refused" not grep -qx config-written <<<"$out"
check "control: seed: a file beside it is writable" grep -qx free-written <<<"$out"

# --- two projects named app: two working directories (Claude Code keys its history by them) ---
mkdir -p "$T_DIR/one/app" "$T_DIR/two/app"
chown -R 65534:65534 "$T_DIR/one" "$T_DIR/two"
pwd1=$(WS="$T_DIR/one/app"; sb_nobody /usr/bin -- pwd || true)
pwd2=$(WS="$T_DIR/two/app"; sb_nobody /usr/bin -- pwd || true)
check_eq "two projects named app: the first at its own path" "$T_DIR/one/app" "$pwd1"
check_eq "... the second at its own" "$T_DIR/two/app" "$pwd2"
# Reached through a symlinked parent: at its real path (pwd -P), where the host's tools see it too.
ln -s "$T_DIR/one" "$T_DIR/via-link"
pwd3=$(cd "$T_DIR/via-link/app" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb \
  setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --exec pwd </dev/null 2>/dev/null || true)
check_eq "a project reached through a symlinked parent: at its real path" "$T_DIR/one/app" "$pwd3"

# --- a linked worktree: its own admin dir survives `git worktree prune` inside ----------------
# Under $HOME (a tmpfs inside), so that the seed's layout hides the worktree's host path.
R="$H/repos"
mkdir -p "$R"
git -c init.defaultBranch=main init -q "$R/main"
(cd "$R/main" && echo one >f && git add f && git commit -qm one && git worktree add -q -b feat "$R/feat" 2>/dev/null)
chown -R 65534:65534 "$R"
prune() { (WS="$R/feat"; sb_nobody /usr/bin "$@" -- 'git worktree prune -v -n 2>&1; git worktree prune; git status --short >/dev/null && echo git-ok' || true); }
out=$(prune)
check "worktree: git works inside" grep -qx git-ok <<<"$out"
check "worktree: git inside does not count it prunable" not grep -q "worktrees/feat" <<<"$out"
check "worktree: its admin dir survives git worktree prune inside" test -f "$R/main/.git/worktrees/feat/HEAD"
check "worktree: the host's git still knows it" grep -q "$R/feat" <<<"$(git -c safe.directory='*' -C "$R/main" worktree list)"
# The control: with the host path hidden, git inside counts this very worktree prunable (only the
# read-only pointers in its admin dir stop the removal).
out=$(prune --workspace-path=seed)
check "control: seed (host path hidden): git inside counts it prunable" grep -q "Removing worktrees/feat" <<<"$out"

# --- refused: a project inside a path the sandbox keeps read-only (Claude Code's skills) --------
mkdir -p "$H/.claude/skills/myskill"
chown -R 65534:65534 "$H/.claude"
if (WS="$H/.claude/skills/myskill"; sb_nobody /usr/bin -- true >/dev/null); then
  fail "a project inside ~/.claude/skills (read-only in the sandbox) was not refused"
else
  check "refused: a project inside a read-only path, the seed's layout named" grep -q -- "--workspace-path=seed" "$T_DIR/sb.err"
fi
out=$(WS="$H/.claude/skills/myskill"; sb_nobody /usr/bin --workspace-path=seed -- pwd || true)
check_eq "control: the seed's layout takes it, at /workspaces/myskill" "/workspaces/myskill" "$out"

# --- conversations under /workspaces/<dir>: said once, nothing moved ---------------------------
# A stand-in claude (the note is for Claude Code's sessions only), found on the host's PATH.
mkdir -p "$H/.local/bin" "$H/.claude/projects/-workspaces-app/s" "$T_DIR/three/app"
printf '#!/bin/sh\npwd\n' >"$H/.local/bin/claude" && chmod 755 "$H/.local/bin/claude"
chown -R 65534:65534 "$H" "$T_DIR/three"
note() { (cd "$T_DIR/three/app" && env -i HOME="$H" PATH="$H/.local/bin:/usr/bin:/bin" TERM=dumb \
  setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --exec claude </dev/null 2>&1 || true); }
out=$(note)
check "history: the first start says where the old conversations are" grep -q "conversations held at /workspaces/app" <<<"$out"
check "history: ... and how to reach them" grep -q -- "blaude --workspace-path=seed -c" <<<"$out"
check "history: nothing was moved" test -d "$H/.claude/projects/-workspaces-app/s"
check "history: claude ran at the host path" grep -qx "$T_DIR/three/app" <<<"$out"
out=$(note)
check "history: said once" not grep -q "conversations held at" <<<"$out"

finish
