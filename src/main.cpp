// Wiring: parse the command line, set up the log, decide what runs, supervise it.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "asciinema/guard.hpp"
#include "cli/parse.hpp"
#include "common/log.hpp"
#include "osc52/filter.hpp"
#include "pty/supervisor.hpp"

using namespace blaude;

namespace {

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "blaude: %s\nTry 'blaude --help' for the options.\n", msg.c_str());
  return 2;
}

int run(const cli::Options& o) {
  switch (o.action) {
    case cli::Action::Help:
      std::fputs(cli::help_text().c_str(), stdout);
      return 0;
    case cli::Action::Version:
      std::printf("blaude %s\n", BLAUDE_VERSION);
      return 0;
    default:
      break;
  }
  log::init(o.debug);
  if (!o.no_sandbox) {
    std::fprintf(stderr,
                 "blaude: the sandbox is not available in this build yet\n"
                 "Use --no-sandbox --exec CMD to run a command under the supervisor only.\n");
    return 1;
  }
  std::fprintf(stderr, "blaude: --no-sandbox: no sandbox is active, the command has full access\n");
  pty::Command cmd;
  cmd.argv = o.exec.empty() ? std::vector<std::string>{"claude"} : o.exec;
  if (o.exec.empty()) cmd.argv.insert(cmd.argv.end(), o.claude_args.begin(), o.claude_args.end());
  // Declared before the session so that its destructor resumes a paused recorder afterwards.
  asciinema::Guard recorder(o.no_asciinema);
  pty::SuperviseOptions so;
  so.endpoint = [&recorder] { return recorder.endpoint(); };
  // OSC 52 copies go to the host clipboard; with no usable tool the bytes pass untouched.
  if (auto clip = osc52::configure(o.no_clipboard))
    so.make_filter = [c = *clip](uv_loop_t* loop) { return osc52::make_filter(loop, c); };
  return pty::supervise(cmd, so);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto parsed = cli::parse(args);
    if (auto* err = std::get_if<cli::UsageError>(&parsed)) return usage_error(err->message);
    return run(std::get<cli::Options>(parsed));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blaude: internal error: %s\n", e.what());
    return 1;
  }
}
