// bash, zsh and fish completions, rendered from the option table: blaude's options (with what
// their values are), its commands, --exec's CMD completed as a command line of its own; every
// other word is claude's, handed to the shell's completion for claude when there is one, else
// completed from claude_options() (the options of the pinned Claude Code).
#include <string>

#include "cli/docs.hpp"
#include "cli/option_table.hpp"
#include "cli/suggest.hpp"

namespace blaude::cli {

namespace {

// Words of the table, space-separated: every spelling of the options that match `pick`.
template <class Pick>
std::string words(Pick pick, std::string_view sep = " ") {
  std::string out;
  auto add = [&](std::string_view w) {
    if (!out.empty()) out += sep;
    out += w;
  };
  for (const OptionSpec& s : option_table()) {
    if (!pick(s)) continue;
    add(s.name);
    if (!s.short_name.empty()) add(s.short_name);
  }
  return out;
}

bool any(const OptionSpec&) { return true; }
bool is_flag(const OptionSpec& s) { return s.arg == Arg::None; }
bool is_dir(const OptionSpec& s) { return s.complete == Complete::Dir; }
bool is_env(const OptionSpec& s) { return s.complete == Complete::EnvAssign; }
bool is_valued(const OptionSpec& s) { return s.arg == Arg::Value; }
bool is_rest(const OptionSpec& s) { return s.arg == Arg::Rest; }

std::string commands(std::string_view sep = " ") {
  std::string out;
  for (const CommandSpec& c : command_table()) {
    if (!out.empty()) out += sep;
    out += c.name;
  }
  return out;
}

std::string claude_words() {
  std::string out;
  for (std::string_view o : claude_options()) {
    if (!out.empty()) out += ' ';
    out += o;
  }
  return out;
}

// A single-quoted word: for bash and zsh ' becomes '\''; fish takes \' and \\ inside quotes.
std::string sq(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
std::string fish_sq(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

constexpr const char* kHeader = "blaude completion, generated from blaude's option table; do not edit.\n";

}  // namespace

std::string bash_completion() {
  std::string s = std::string("# bash ") + kHeader;
  s += "_blaude_opts=" + sq(words(any)) + "\n";
  s += "_blaude_cmds=" + sq(commands()) + "\n";
  s += "_blaude_claude_opts=" + sq(claude_words()) + "\n";
  s += R"(
# Completes "$@" (the last word is the one being typed) as claude's own command line: with the
# shell's completion for claude when it has one, else from claude's known options.
_blaude_claude() {
  local spec fn cur=${!#}
  spec=$(complete -p claude 2>/dev/null)
  if [[ -z $spec || $spec == *" -F _minimal "* ]] && declare -F _completion_loader >/dev/null; then
    _completion_loader claude >/dev/null 2>&1
    spec=$(complete -p claude 2>/dev/null)
  fi
  if [[ $spec == *" -F "* && $spec != *" -F _minimal "* ]]; then
    fn=${spec##* -F }
    fn=${fn%% *}
    COMP_WORDS=(claude "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=${COMP_WORDS[*]}
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    "$fn" claude "$cur" "${COMP_WORDS[COMP_CWORD - 1]}"
    return
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$_blaude_claude_opts" -- "$cur")
  else
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}

# COMP_WORDS[$1...] is a command line of its own (after --exec).
_blaude_exec() {
  if declare -F _command_offset >/dev/null; then
    _command_offset "$1"
  elif (($1 == COMP_CWORD)); then
    mapfile -t COMPREPLY < <(compgen -c -- "${COMP_WORDS[COMP_CWORD]}")
  else
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "${COMP_WORDS[COMP_CWORD]}")
  fi
}

_blaude() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local i w dd=0 rest=() mine=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if ((dd)); then
      rest+=("$w")
      continue
    fi
    case $w in
      --) dd=1 ;;
)";
  s += "      " + words(is_rest, "|") + ")\n        _blaude_exec $((i + 1))\n        return\n        ;;\n";
  s += "      " + words(is_valued, "|") +
       ")  # the value follows (bash splits --opt=value at the '=')\n"
       "        if [[ ${COMP_WORDS[i + 1]} == = ]]; then ((i += 2)); else ((i++)); fi ;;\n";
  s += "      " + words(is_flag, "|") + ") ;;\n";
  s += R"(      *) rest+=("$w") ;;
    esac
  done
  if ((!dd)); then
    local opt=$prev
    [[ $prev == = ]] && opt=${COMP_WORDS[COMP_CWORD - 2]}
    [[ $cur == = ]] && { opt=$prev; cur=; }
    case $opt in
)";
  s += "      " + words(is_dir, "|") +
       ")\n        compopt -o filenames 2>/dev/null\n"
       "        mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n        return\n        ;;\n";
  s += "      " + words(is_env, "|") +
       ")\n        compopt -o nospace 2>/dev/null\n"
       "        mapfile -t COMPREPLY < <(compgen -v -S = -- \"$cur\")\n        return\n        ;;\n";
  s += R"(    esac
    if [[ $cur == -* ]]; then
      mapfile -t mine < <(compgen -W "$_blaude_opts" -- "$cur")
      _blaude_claude "${rest[@]}" "$cur"
      COMPREPLY=("${mine[@]}" "${COMPREPLY[@]}")
      return
    fi
    if ((${#rest[@]} == 0)); then
      mapfile -t mine < <(compgen -W "$_blaude_cmds" -- "$cur")
      _blaude_claude "$cur"
      COMPREPLY=("${mine[@]}" "${COMPREPLY[@]}")
      return
    fi
  fi
  _blaude_claude "${rest[@]}" "$cur"
}
complete -F _blaude blaude
)";
  return s;
}

std::string zsh_completion() {
  std::string s = std::string("#compdef blaude\n# zsh ") + kHeader;
  s += "\n_blaude_claude() {\n  # The words after blaude's own, as claude's command line: the shell's completion for\n"
       "  # claude when it has one, else claude's known options.\n";
  s += "  local -a claude_opts\n  claude_opts=(" + claude_words() + ")\n";
  s += R"(  if (( $+_comps[claude] )); then
    words=(claude "$@" "$PREFIX$SUFFIX")
    CURRENT=$#words
    _normal
  elif [[ $PREFIX == -* ]]; then
    compadd -a claude_opts
  else
    _files
  fi
}

_blaude() {
  local -a rest blaude_opts blaude_cmds
  local i w dd=0
)";
  s += "  blaude_opts=(\n";
  for (const OptionSpec& o : option_table()) {
    s += "    " + sq(std::string(o.name) + ":" + std::string(o.help)) + "\n";
    if (!o.short_name.empty()) s += "    " + sq(std::string(o.short_name) + ":" + std::string(o.help)) + "\n";
  }
  s += "  )\n  blaude_cmds=(\n";
  for (const CommandSpec& c : command_table()) s += "    " + sq(std::string(c.name) + ":" + std::string(c.help)) + "\n";
  s += "  )\n";
  s += R"(  for ((i = 2; i < CURRENT; i++)); do
    w=$words[i]
    if ((dd)); then
      rest+=("$w")
      continue
    fi
    case $w in
      --) dd=1 ;;
)";
  s += "      " + words(is_rest, "|") +
       ")\n        shift $i words\n        (( CURRENT -= i ))\n        _normal\n        return\n        ;;\n";
  s += "      " + words(is_valued, "|") + ") ((i++)) ;;\n";
  s += "      " + words(is_flag, "|") + ") ;;\n";
  s += R"(      --*=*) ;;
      *) rest+=("$w") ;;
    esac
  done
  if ((!dd)); then
    case $words[CURRENT-1] in
)";
  s += "      " + words(is_dir, "|") + ") _files -/; return ;;\n";
  s += "      " + words(is_env, "|") + ") _parameters -q -S =; return ;;\n";
  s += "    esac\n    case $PREFIX in\n";
  for (const OptionSpec& o : option_table()) {
    if (o.arg != Arg::Value) continue;
    std::string fn = o.complete == Complete::Dir ? "_files -/" : o.complete == Complete::EnvAssign ? "_parameters -q -S =" : "_default";
    s += "      " + std::string(o.name) + "=*) compset -P '" + std::string(o.name) + "='; " + fn + "; return ;;\n";
  }
  s += R"(    esac
    if [[ $PREFIX == -* ]]; then
      _describe -t blaude-options 'blaude option' blaude_opts
    elif (( $#rest == 0 )); then
      _describe -t blaude-commands 'blaude command' blaude_cmds
    fi
  fi
  _blaude_claude "${rest[@]}"
}

_blaude "$@"
)";
  return s;
}

std::string fish_completion() {
  std::string s = std::string("# fish ") + kHeader;
  s += R"(
# Every word blaude does not know is claude's: claude's own completions apply.
complete -c blaude --wraps claude

# The line after --exec is a command of its own.
function __blaude_after_exec
    set -l tokens (commandline -opc)
    set -l i (contains -i -- --exec $tokens)
    or return 1
    set -l rest $tokens[(math $i + 1)..-1]
    complete -C (string join ' ' -- (string escape -- $rest) (commandline -ct))
end
complete -c blaude -n '__fish_seen_argument -l exec' -f -a '(__blaude_after_exec)'

)";
  const std::string not_exec = "-n 'not __fish_seen_argument -l exec'";
  for (const OptionSpec& o : option_table()) {
    s += "complete -c blaude " + not_exec + " -l " + std::string(o.name.substr(2));
    if (!o.short_name.empty()) s += " -s " + std::string(o.short_name.substr(1));
    if (o.complete == Complete::Dir) s += " -x -a '(__fish_complete_directories)'";
    if (o.complete == Complete::EnvAssign) s += " -x -a '(set --names | string replace -r \\$ =)'";
    if (o.complete == Complete::Command) s += " -x -a '(__fish_complete_command)'";
    s += " -d " + fish_sq(o.help) + "\n";
  }
  for (const CommandSpec& c : command_table())
    s += "complete -c blaude -n '__fish_use_subcommand' -f -a " + std::string(c.name) + " -d " + fish_sq(c.help) + "\n";
  s += "\n# claude's options, for a claude without completions of its own (duplicates merge).\n";
  for (std::string_view o : claude_options())
    s += "complete -c blaude " + not_exec + " -l " + std::string(o.substr(2)) + " -d 'claude option'\n";
  return s;
}

std::string version_text(std::string_view version, std::string_view revision) {
  std::string out = "blaude " + std::string(version);
  out += revision.empty() ? " (built outside git: revision unknown)" : " (git " + std::string(revision) + ")";
  return out + "\n";
}

}  // namespace blaude::cli
