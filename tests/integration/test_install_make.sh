#!/usr/bin/env bash
# `make install` for real, as the README says it: into a DESTDIR stage and into a PREFIX, the
# installed binary run from there; what it installs (stripped release binary of at most 6 MB
# with its debug info in a file of its own, the man page, the bash/zsh/fish completions); the
# default PREFIX for a user and for root; `make uninstall` removes exactly what install wrote.
# The completions are tried in the real shells in tmux (the user's terminal), the man page with
# man itself, and both against the real binary's --help.
. "$(dirname "$0")/lib.sh"

: "${BLAUDE_BUILD:?BLAUDE_BUILD must point at the build dir (ctest sets it)}"
for t in make man tmux zsh fish readelf nm; do command -v $t >/dev/null || missing "$t"; done
[ -f /usr/share/bash-completion/bash_completion ] || missing "bash-completion"
mk() { make --no-print-directory -C "$BLAUDE_SRC" BUILD="$BLAUDE_BUILD" "$@"; }

# --- DESTDIR: a staged install, nothing outside the stage ------------------------------------
STAGE="$T_DIR/stage"
mk install DESTDIR="$STAGE" PREFIX=/usr/local >"$T_DIR/install.out" 2>&1 || { fail "make install DESTDIR"; cat "$T_DIR/install.out"; finish; }
P="$STAGE/usr/local"
for f in bin/blaude libexec/blaude/blaude-exec share/man/man1/blaude.1.gz share/bash-completion/completions/blaude \
         share/zsh/site-functions/_blaude share/fish/vendor_completions.d/blaude.fish share/doc/blaude/copyright \
         share/doc/blaude/changelog.gz; do
  check "DESTDIR install: $f" test -f "$P/$f"
done
check_eq "DESTDIR install: nothing outside \$DESTDIR/usr/local" "usr" "$(ls "$STAGE")"
B="$P/bin/blaude"
check "the installed binary is executable" test -x "$B"
size=$(stat -c %s "$B")
log "installed binary: $size bytes (build/blaude: $(stat -c %s "$BLAUDE_BUILD/blaude"))"
# The size budget is the release build's; a sanitizer build (make asan) carries ASan's runtime
# and Debug code, so there the same check would measure something else (said, not skipped silently).
if grep -q '^BLAUDE_SANITIZE:BOOL=ON' "$BLAUDE_BUILD/CMakeCache.txt" 2>/dev/null; then
  log "size budget not checked: $BLAUDE_BUILD is a sanitizer build (the normal suite checks it)"
else
  check "release binary at most 6 MB ($size bytes)" test "$size" -le 6000000
fi
check "... stripped (no symbol table)" not sh -c "readelf -S '$B' | grep -q '\.symtab'"
check "... names its debug file (.gnu_debuglink)" sh -c "readelf -p .gnu_debuglink '$B' | grep -q blaude.debug"
check "the debug file keeps the symbols (main)" sh -c "nm '$BLAUDE_BUILD/release/blaude.debug' | grep -q ' T main$'"
check "... and is not installed by default" test ! -e "$P/bin/.debug/blaude.debug"
# Start-up: no library constructor that probes the CPU with CPUID at every process
# start, blaude's and the exec shim's (libgcc's __cpu_indicator_init behind __builtin_cpu_supports,
# nettle's fat_init): a CPUID traps to the hypervisor in a VM, ~12 us each, ~20 per probe.
cpuid_syms='__cpu_indicator_init|_nettle_cpuid|fat_init'
check "no CPUID probe at start in the binary ($cpuid_syms)" \
  not sh -c "nm '$BLAUDE_BUILD/release/blaude.debug' | grep -Eq ' ($cpuid_syms)\$'"
check "control: the check finds libgcc's in the unit tests (skim_test links it)" \
  sh -c "nm '$BLAUDE_BUILD/tests/unit_tests' | grep -Eq ' ($cpuid_syms)\$'"

# The exec shim (src/shim_main.cpp): stripped, static where the libc has a static archive (no
# loader to map, no libc to relocate at each sandboxed start), and the one the installed blaude
# binds (found in PREFIX/libexec/blaude, sandbox/bwrap/probe/host_facts_seed.cpp).
S="$P/libexec/blaude/blaude-exec"
check "the exec shim is executable" test -x "$S"
check "... stripped" not sh -c "readelf -S '$S' | grep -q '\.symtab'"
if grep -q '^BLAUDE_SANITIZE:BOOL=ON' "$BLAUDE_BUILD/CMakeCache.txt" 2>/dev/null; then
  log "static link not checked: $BLAUDE_BUILD is a sanitizer build (ASan needs the dynamic runtime)"
else
  check "... static: no program interpreter" not sh -c "readelf -lW '$S' | grep -q 'INTERP'"
  check "control: blaude itself has one (the check sees it)" sh -c "readelf -lW '$B' | grep -q 'INTERP'"
fi
mkdir -p "$T_DIR/ws"
(cd "$T_DIR/ws" && "$B" --dry-run --exec true) >"$T_DIR/dry" 2>&1 || true
check "the installed blaude binds the installed shim" grep -qF -- "--ro-bind $S /run/blaude/exec" "$T_DIR/dry"
check "... and starts the command through it" grep -qF -- "-- $SHIM true" "$T_DIR/dry"

# --- --version: the version and the git revision it was built from ---------------------------
rev=$(git -C "$BLAUDE_SRC" rev-parse --short=12 HEAD)
"$B" --version >"$T_DIR/version" 2>&1
check "installed blaude --version names the revision ($rev)" grep -Eq "^blaude [0-9]+\.[0-9]+\.[0-9]+ \(git $rev(-dirty)?\)$" "$T_DIR/version"
cat "$T_DIR/version"

# --- the man page: renders, and lists every option of the real --help --------------------------
MANWIDTH=200 man -l "$P/share/man/man1/blaude.1.gz" 2>"$T_DIR/man.err" | col -b >"$T_DIR/man.txt"
check "man renders blaude.1 without complaint" test ! -s "$T_DIR/man.err"
check "... with a NAME section" grep -q '^NAME' "$T_DIR/man.txt"
"$B" --help >"$T_DIR/help.txt"
opts=$(grep -oE -- '(^|[ ,])--[a-z][a-z-]+' "$T_DIR/help.txt" | tr -d ' ,' | sort -u)
check "--help lists options (sanity)" test "$(printf '%s\n' "$opts" | wc -l)" -ge 20
missing_in_man=$(for o in $opts; do grep -qF -- "$o" "$T_DIR/man.txt" || echo "$o"; done)
check_eq "every option of --help is in the man page" "" "$missing_in_man"
check "control: the check sees a missing option" not grep -qF -- "--not-a-blaude-option" "$T_DIR/man.txt"

# --- completions, in the real shells (tmux is the terminal) ----------------------------------
# new_tmux: a tmux server of its own for the next shell (kill-server returns before the old
# server is gone, so reusing its socket would race with its exit).
BASE_SOCK=$T_SOCK
N_SOCK=0
new_tmux() {
  tm kill-server >/dev/null 2>&1 || true
  N_SOCK=$((N_SOCK + 1))
  T_SOCK="$BASE_SOCK-$N_SOCK"
}
# shell_in CMD SETUP: the shell CMD in tmux, SETUP typed at its first prompt.
shell_in() {
  new_tmux
  tm_start 200 20 "$1"
  tm_wait '^\$ ' 10 || fail "no prompt from: $1"
  tm_run "$2"
  tm_wait '^\$ $' 10 || fail "setup: $2"
}
BASHC="$P/share/bash-completion/completions/blaude"
shell_in "env -i HOME=$T_DIR TERM=xterm PATH=/usr/bin:/bin PS1='\$ ' bash --norc --noprofile -i" \
  ". /usr/share/bash-completion/bash_completion; . $BASHC; clear"
tm_type "blaude --git --no-netw"; tm send-keys -t t Tab
check "bash: --no-netw<Tab> gives --no-network" tm_wait '^\$ blaude --git --no-network ' 5
tm send-keys -t t C-u; tm_type "blaude --git --permission-m"; tm send-keys -t t Tab
check "bash: a claude option (--permission-m<Tab>) completes to claude's --permission-mode" tm_wait '^\$ blaude --git --permission-mode ' 5
tm send-keys -t t C-u; tm_type "blaude fix-app"; tm send-keys -t t Tab
check "bash: a command (fix-app<Tab>)" tm_wait '^\$ blaude fix-apparmor ' 5
# A claude with a completion of its own: blaude hands claude's words to it.
tm send-keys -t t C-u; tm_run "_fake_claude() { COMPREPLY=(fromclaudecompletion); }; complete -F _fake_claude claude; clear"
tm_wait '^\$ $' 5 || true
tm_type "blaude --git fromc"; tm send-keys -t t Tab
check "bash: claude's own completion gets claude's words" tm_wait '^\$ blaude --git fromclaudecompletion ' 5

shell_in "env -i HOME=$T_DIR TERM=xterm PATH=/usr/bin:/bin PS1='\$ ' zsh -f -i" \
  "fpath=($P/share/zsh/site-functions \$fpath); autoload -Uz compinit; compinit -u -D; clear"
tm_type "blaude --dry"; tm send-keys -t t Tab
check "zsh: --dry<Tab> gives --dry-run" tm_wait '^\$ blaude --dry-run ' 5
tm send-keys -t t C-u; tm_type "blaude --no-sandbox --permission-m"; tm send-keys -t t Tab
check "zsh: claude's --permission-m<Tab> gives --permission-mode" tm_wait '^\$ blaude --no-sandbox --permission-mode ' 5
tm send-keys -t t C-u; tm_run "_fake_claude() { compadd fromclaudecompletion }; compdef _fake_claude claude; clear"
tm_wait '^\$ $' 5 || true
tm_type "blaude --git fromc"; tm send-keys -t t Tab
check "zsh: claude's own completion gets claude's words" tm_wait '^\$ blaude --git fromclaudecompletion ' 5

cat >"$T_DIR/init.fish" <<EOF
function fish_prompt; printf '\$ '; end
source $P/share/fish/vendor_completions.d/blaude.fish
EOF
fish_start="env -i HOME=$T_DIR TERM=xterm PATH=/usr/bin:/bin fish --no-config -i -C 'source $T_DIR/init.fish'"
new_tmux
tm_start 200 20 "$fish_start"
tm_wait '^\$ ' 10 || fail "fish: no prompt"
tm_type "blaude --no-netw"; tm send-keys -t t Tab
check "fish: --no-netw<Tab> gives --no-network" tm_wait '^\$ blaude --no-network ' 5
tm send-keys -t t C-u; tm_type "blaude --permission-m"; tm send-keys -t t Tab
check "fish: claude's --permission-m<Tab> gives --permission-mode" tm_wait '^\$ blaude --permission-mode ' 5
tm send-keys -t t C-u; tm_run "complete -c claude -f -a fromclaudecompletion; clear"
tm_wait '^\$ $' 5 || true
tm_type "blaude --git fromc"; tm send-keys -t t Tab
check "fish: claude's own completion gets claude's words" tm_wait '^\$ blaude --git fromclaudecompletion ' 5
tm kill-server >/dev/null 2>&1 || true

# --- the default PREFIX: ~/.local for a user, /usr/local for root ----------------------------
mkdir -p "$T_DIR/uhome" && chown 65534:65534 "$T_DIR/uhome"
# (the Makefile from a copy the user can read: a checkout may sit under a 0700 dir, as CI's does)
mkdir -p "$T_DIR/mk" && cp "$BLAUDE_SRC/Makefile" "$T_DIR/mk/" && chmod -R a+rX "$T_DIR/mk"
as_nobody env -i HOME="$T_DIR/uhome" PATH=/usr/bin:/bin make --no-print-directory -n -C "$T_DIR/mk" \
  BUILD="$BLAUDE_BUILD" install >"$T_DIR/user.n" 2>&1 || true
check "a user's make install goes to ~/.local" grep -qF -- "--prefix \"$T_DIR/uhome/.local\"" "$T_DIR/user.n"
mk -n install >"$T_DIR/root.n" 2>&1 || true
check "root's make install goes to /usr/local" grep -qF -- '--prefix "/usr/local"' "$T_DIR/root.n"

# --- PREFIX, then make uninstall: exactly what install wrote ------------------------------------
PFX="$T_DIR/prefix"
mkdir -p "$PFX/bin" "$PFX/share/man/man1"
echo mine >"$PFX/bin/other-tool"
echo mine >"$PFX/share/man/man1/other.1"
(cd "$PFX" && find . -type f | sort) >"$T_DIR/before"
mk install PREFIX="$PFX" >"$T_DIR/install2.out" 2>&1 || { fail "make install PREFIX"; cat "$T_DIR/install2.out"; }
check_eq "PREFIX install: the binary runs from there" "$(cat "$T_DIR/version")" "$("$PFX/bin/blaude" --version 2>&1)"
check "... and the completions are there" test -f "$PFX/share/fish/vendor_completions.d/blaude.fish"
mk uninstall >"$T_DIR/uninstall.out" 2>&1 || { fail "make uninstall"; cat "$T_DIR/uninstall.out"; }
check_eq "make uninstall removed 8 files" 1 "$(grep -c 'uninstalled 8 files' "$T_DIR/uninstall.out")"
(cd "$PFX" && find . -type f | sort) >"$T_DIR/after"
check_eq "after uninstall exactly the files that were there before remain" "$(cat "$T_DIR/before")" "$(cat "$T_DIR/after")"
check "... the user's own files in the prefix are untouched" grep -qx mine "$PFX/bin/other-tool"
check "... blaude is gone" test ! -e "$PFX/bin/blaude"
mk uninstall >"$T_DIR/uninstall2.out" 2>&1 && rc=0 || rc=$?
check "uninstall again: refused, nothing to remove" test "$rc" -ne 0
check "... saying why" grep -q 'nothing to uninstall' "$T_DIR/uninstall2.out"

finish
