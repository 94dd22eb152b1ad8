// Minimal parser for the supervisor issue; the full drop-in CLI (CLI11) replaces it.
#include "cli/parse.hpp"

namespace blaude::cli {

std::variant<Options, UsageError> parse(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--exec") {
      if (i + 1 >= args.size()) return UsageError{"--exec needs a command"};
      o.exec.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    } else if (a == "--no-sandbox") {
      o.no_sandbox = true;
    } else if (a == "--debug") {
      o.debug = true;
    } else if (a == "--no-asciinema") { o.no_asciinema = true;
    } else if (a == "--no-clipboard") {
      o.no_clipboard = true;
    } else if (a == "--help" || a == "-h") {
      o.action = Action::Help;
    } else if (a == "--version") {
      o.action = Action::Version;
    } else {
      o.claude_args.push_back(a);
    }
  }
  return o;
}

std::string help_text() {
  return "usage: blaude [blaude options] [claude options]\n"
         "  --no-sandbox      run without the sandbox (diagnosis only)\n"
         "  --exec CMD ARGS   run CMD instead of claude\n"
         "  --no-clipboard    do not intercept OSC 52\n"
         "  --debug           verbose log\n"
         "Everything else goes to claude unchanged.\n";
}

}  // namespace blaude::cli
