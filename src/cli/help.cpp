// --help, rendered from the option table (option_table.cpp), so it lists exactly what the parser
// accepts. The man page (man.cpp) and the completions (completions.cpp) read the same table.
#include <string>

#include "cli/option_table.hpp"
#include "cli/parse.hpp"

namespace blaude::cli {

namespace {

constexpr size_t kColumn = 28;  // where the help text starts

void row(std::string& out, const std::string& left, std::string_view text) {
  out += "  " + left;
  if (left.size() + 2 >= kColumn) {
    out += "\n" + std::string(kColumn, ' ');
  } else {
    out += std::string(kColumn - 2 - left.size(), ' ');
  }
  out += std::string(text) + "\n";
}

}  // namespace

std::string option_synopsis(const OptionSpec& s) {
  std::string left;
  if (!s.short_name.empty()) left += std::string(s.short_name) + ", ";
  left += s.name;
  if (!s.metavar.empty()) left += " " + std::string(s.metavar);
  return left;
}

std::string help_text() {
  std::string out =
      "usage: blaude [blaude options] [claude options and arguments]\n"
      "       blaude [blaude options] --exec CMD [ARGS...]\n"
      "       blaude doctor | selftest | fix-apparmor | update | install | install-github-app\n"
      "       blaude net sessions | net log [--session PID] | net allow PATTERN [--session PID]\n"
      "\n"
      "Runs Claude Code with --dangerously-skip-permissions inside a bubblewrap sandbox.\n"
      "\n"
      "blaude options (anywhere on the line, before a `--`):\n";
  for (const OptionSpec& s : option_table()) row(out, option_synopsis(s), s.help);
  out += "\nCommands (as the first argument):\n";
  for (const CommandSpec& c : command_table()) row(out, std::string(c.name), c.help);
  out +=
      "\n"
      "Proxy mode (--allow-domain, --publish) also allows, by default, the hosts Claude Code needs\n"
      "for its provider (the list for this environment follows below); `no-default-domains` in\n"
      "~/.config/blaude/policy drops them. After the session, blaude prints one line naming what\n"
      "it refused.\n"
      "\n"
      "Everything else (-p, -c, -v, --resume, mcp list, ...) goes to claude unchanged and in order;\n"
      "an unknown --option within two letters of a blaude option is refused as a likely typo.\n"
      "`--` ends blaude's options: all after it goes to claude (without the `--` itself), even\n"
      "words spelled like blaude options.\n"
      "Exit status: claude's (or CMD's); 128+N if it died of signal N; 1 blaude error; 2 usage\n"
      "error; 126 CMD cannot run; 127 CMD not found.\n";
  return out;
}

}  // namespace blaude::cli
