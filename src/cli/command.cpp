#include "cli/command.hpp"

#include <cctype>

namespace blaude::cli {

std::vector<std::string> choose_command(const Options& o, bool stdin_is_tty) {
  if (!o.exec.empty()) return o.exec;
  std::vector<std::string> argv;
  if (o.chic) {
    argv = {"claudechic", kSkipPermissions};
  } else if (o.remote_control_subcommand || o.action == Action::HostBypass) {
    argv = {"claude"};
  } else {
    argv = {"claude", kSkipPermissions};
    // claude's interactive UI needs a terminal; with piped stdin the prompt comes from the pipe.
    if (o.claude_args.empty() && !stdin_is_tty) argv.emplace_back("-p");
  }
  argv.insert(argv.end(), o.claude_args.begin(), o.claude_args.end());
  return argv;
}

static std::string quote_one(const std::string& s) {
  if (s.empty()) return "''";
  bool plain = true;
  for (unsigned char c : s) {
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/' || c == '=' ||
          c == ':' || c == ',' || c == '+' || c == '@' || c == '%')) {
      plain = false;
      break;
    }
  }
  if (plain) return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += quote_one(a);
  }
  return out;
}

}  // namespace blaude::cli
