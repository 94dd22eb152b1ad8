#!/usr/bin/env bash
# The macOS backend's decision through the real blaude, on Linux: BLAUDE_TEST_BACKEND=seatbelt
# makes blaude plan the Seatbelt launch it would make on a Mac (host probe, workspace scan,
# trust gate, environment, profile, sandbox-exec command) and print it with --dry-run. Nothing
# here runs sandbox-exec (there is none on Linux): scripts/macos-acceptance.sh does, on a Mac.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || missing "git is not installed"

H="$T_DIR/home"
WS="$T_DIR/work/my app"
mkdir -p "$H/.config" "$WS" "$T_DIR/bin" "$T_DIR/npm/lib/node_modules/cc" "$T_DIR/npm/bin"
git -C "$WS" init -q
git -C "$WS" config core.hooksPath .husky/_
mkdir -p "$WS/.husky/_" "$WS/packages/api"
git -C "$WS/packages/api" init -q
echo SECRET=1 >"$WS/.env"
echo SECRET= >"$WS/.env.example"
# claude as npm installs it: a #!/usr/bin/env node script in a package dir, linked from bin/.
printf '#!/usr/bin/env node\n' >"$T_DIR/npm/lib/node_modules/cc/cli.js"
printf '#!/bin/sh\nexit 0\n' >"$T_DIR/npm/bin/node"
chmod 755 "$T_DIR/npm/lib/node_modules/cc/cli.js" "$T_DIR/npm/bin/node"
ln -s ../lib/node_modules/cc/cli.js "$T_DIR/npm/bin/claude"
# An existing .xclaude naming xclaude's toolchains blaude lacked before.
printf 'tool node\ntool chrome\ntool seshi\ntool cmux\ntool playwright\ntool playwright-chromium\n' >"$WS/.xclaude"

B() { (cd "$WS" && env -i HOME="$H" PATH="$T_DIR/npm/bin:/usr/bin:/bin" TMPDIR="${SB_TMPDIR:-}" \
  BLAUDE_TEST_BACKEND=seatbelt "$BLAUDE" "$@" </dev/null); }
state() { find "$H" "$WS" -printf '%p %s %T@\n' | sort; }

before=$(state)
out=$(B --dry-run -p hi 2>"$T_DIR/err") && rc=0 || rc=$?
after=$(state)
check_eq "--dry-run of the Seatbelt plan: exit 0" 0 "$rc"
check_eq "--dry-run changes nothing in HOME or the workspace" "$before" "$after"
check "the start line says the backend never ran on a Mac" grep -q "has not yet been run on a Mac" "$T_DIR/err"
check "the .xclaude with chrome/seshi/cmux/playwright is accepted" not grep -q "unknown tool" "$T_DIR/err"

# The printed text is a shell script: the profile in a here-document, then the command.
PROFILE=
eval "$(sed '$d' <<<"$out")"
check "the profile is printed whole" grep -q '^(deny file-write-unlink' <<<"$PROFILE"
check_eq "the profile starts with the version" "(version 1)" "$(head -n 1 <<<"$PROFILE")"
last=$(tail -n 1 <<<"$out")
check "the command enters the project and clears the environment" \
  grep -q "^cd '$WS' && env -i HOME=$H " <<<"$last"
check "the command runs claude under sandbox-exec with the profile inline" \
  grep -q ' /usr/bin/sandbox-exec -p "$PROFILE" -- claude --dangerously-skip-permissions -p hi$' <<<"$last"
has() { grep -qF -- "$1" <<<"$PROFILE"; }
check "the nested repository's config is protected" has "(literal \"$WS/packages/api/.git/config\")"
check "the nested repository's hooks are protected" has "(subpath \"$WS/packages/api/.git/hooks\")"
check "the core.hooksPath tree is protected" has "(subpath \"$WS/.husky\")"
check "the existing .env is protected" has "(literal \"$WS/.env\")"
check "a rename of the nested repo's dir is denied" has "(literal \"$WS/packages/api\")"
check "control: .env.example is not protected" not has "$WS/.env.example"
check "control: git/.env denials are not global regexes" not has '#"/\.git/hooks'
check "claude's package dir is executable (npm global, review C2)" has "(subpath \"$T_DIR/npm/lib/node_modules/cc\")"
check "its interpreter's dir is executable" has "(subpath \"$T_DIR/npm/bin\")"
check "tool chrome: the app bundle is executable" has '(subpath "/Applications/Google Chrome.app")'
check "tool chrome: not the user's Chrome profile" not has "Application Support/Google/Chrome\")"
check "tool seshi: its data dir is writable" has "$H/.local/share/seshi"
check "unix-socket connects are denied by default" has '(deny network-outbound (remote unix-socket))'
# stdin is not a terminal: pipes mode, so neither a pty nor /dev/tty (the user's own terminal).
check "without a terminal of its own the profile names no tty" not has '@BLAUDE_PTY@'
check "without a terminal of its own no /dev/tty" not has '(literal "/dev/tty")' 
check "no TMPDIR: a warning says only /private/tmp is writable" grep -q "per-user temporary dir is unknown" "$T_DIR/err"

# The printed command runs as printed: with a stand-in for sandbox-exec (there is none here)
# that records the profile it gets and runs the command after `--`.
cat >"$T_DIR/bin/sandbox-exec" <<EOF
#!/bin/sh
[ "\$1" = -p ] && [ "\$3" = -- ] || exit 64
printf '%s' "\$2" >"$T_DIR/got-profile"
shift 3
exec "\$@"
EOF
chmod 755 "$T_DIR/bin/sandbox-exec"
ran=$(bash -c "$(sed "s|/usr/bin/sandbox-exec|$T_DIR/bin/sandbox-exec|" <<<"$out")" 2>&1) && rc=0 || rc=$?
check_eq "the printed command runs in a shell (claude stand-in exits 0)" "0" "$rc"
check_eq "sandbox-exec would get exactly the printed profile" "$PROFILE" "$(cat "$T_DIR/got-profile")"

# A run (not --dry-run) with the test backend is refused: it never starts anything.
B --exec true 2>"$T_DIR/err2" && rc=0 || rc=$?
check_eq "a real run with the test backend: usage error" 2 "$rc"
check "it says why" grep -q "cannot run on this host" "$T_DIR/err2"

# doctor checks sandbox-exec and the profile; here there is no sandbox-exec: a FIX and exit 1.
B doctor >"$T_DIR/doc" 2>&1 && rc=0 || rc=$?
check_eq "doctor without sandbox-exec: exit 1" 1 "$rc"
check "doctor names sandbox-exec" grep -q "^FIX  sandbox-exec: not found" "$T_DIR/doc"
check "doctor says the backend has not run on a Mac" grep -q "^NOTE macOS backend: not yet run on a Mac" "$T_DIR/doc"
check "doctor skips the Linux-only checks" not grep -Eq "bwrap|AppArmor|user namespaces" "$T_DIR/doc"

# Bad input: a clear error and nothing changed.
before=$(state)
B --dry-run -m "$T_DIR/nope" --exec true 2>"$T_DIR/err3" && rc=0 || rc=$?
check_eq "-m of a missing path: exit 1" 1 "$rc"
check "-m of a missing path: says so" grep -q "^blaude: mount path does not exist" "$T_DIR/err3"
B --dry-run --clear-tmp --exec true 2>"$T_DIR/err4" && rc=0 || rc=$?
check_eq "--clear-tmp without the per-user temp dir: exit 1" 1 "$rc"
check "--clear-tmp: says why" grep -q "^blaude: --clear-tmp: the per-user temporary dir" "$T_DIR/err4"
check_eq "bad input changes nothing" "$before" "$(state)"

# --tmp: no project, the session starts in /private/tmp.
out=$(B --dry-run --tmp --exec true 2>/dev/null)
check "--tmp: the session starts in /private/tmp" grep -q "^cd /private/tmp && " <<<"$(tail -n 1 <<<"$out")"
check "--tmp: the project is not granted" not grep -qF "(subpath \"$WS\")" <<<"$out"
# --no-network: loopback only.
out=$(B --dry-run --no-network --exec true 2>/dev/null)
check "--no-network: no (allow network*)" not grep -qF '(allow network*)' <<<"$out"
check "--no-network: loopback" grep -qF '(allow network-outbound (remote ip "localhost:*"))' <<<"$out"

finish
