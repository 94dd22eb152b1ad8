#include "cli/command.hpp"


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

}  // namespace blaude::cli
