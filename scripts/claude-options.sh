#!/usr/bin/env bash
# Prints every long option of a Claude Code binary, one a line, sorted: those of `claude --help`
# and of every subcommand's `--help`, recursively (`claude mcp add --help`, ...). The list in
# src/cli/claude_options.cpp is this output for the version scripts/install-test-claude.sh
# installs; tests/integration/test_cli_claude_options.sh compares the two.
# Usage: scripts/claude-options.sh CLAUDE [RUNNER...]   (RUNNER: e.g. setpriv ... for a non-root run)
set -euo pipefail
claude=$1; shift
run() { "$@" "$claude" "${path[@]}" --help </dev/null 2>/dev/null || true; }
declare -A seen=()
walk() { # walk DEPTH SUBCOMMAND...
  local depth=$1; shift
  local path=("$@") help sub
  local key="claude ${path[*]:-}"
  [ -n "${seen[$key]:-}" ] && return
  seen[$key]=1
  help=$(run "${RUNNER[@]}")
  # Option signatures: two spaces, then '-'; every --name on that part of the line.
  printf '%s\n' "$help" | sed -n 's/^  \(-[^ ].*\)$/\1/p' | sed 's/   .*//' |
    grep -oE -- '--[A-Za-z0-9][A-Za-z0-9-]*' || true
  [ "$depth" -ge 3 ] && return
  # Subcommands: the "Commands:" section's first word (aliases after '|'), never "help".
  while read -r sub; do
    [ -z "$sub" ] || [ "$sub" = help ] && continue
    walk $((depth + 1)) "${path[@]}" "$sub"
  done < <(printf '%s\n' "$help" | awk '/^Commands:/{c=1; next} /^[^ ]/{c=0} c && /^  [a-z]/{print $1}' |
           sed 's/|.*//')
}
RUNNER=("$@")
walk 0 | sort -u
