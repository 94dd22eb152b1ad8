// Parse the command line, dispatch to the app layer, map the result to an exit code.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/failure.hpp"
#include "app/run.hpp"
#include "cli/parse.hpp"
#include "common/log.hpp"

using namespace blaude;

namespace {

app::Outcome dispatch(const std::vector<std::string>& args) {
  auto parsed = cli::parse(args);
  if (auto* err = std::get_if<cli::UsageError>(&parsed)) return app::usage(err->message);
  const auto& o = std::get<cli::Options>(parsed);
  switch (o.action) {
    case cli::Action::Help:
      return app::show_help();
    case cli::Action::Version:
      std::printf("blaude %s\n", BLAUDE_VERSION);
      return 0;
    case cli::Action::Doctor:
      return app::run_doctor();
    case cli::Action::FixApparmor:
      return app::run_fix_apparmor();
    case cli::Action::HostBypass:
      return app::host_bypass(o);
    case cli::Action::Run:
      break;
  }
  return app::run(o);
}

}  // namespace

int main(int argc, char** argv) {
  log::off();
  // Inside the sandbox, in proxy mode: the relay wrapper, before any of blaude's own parsing.
  if (argc > 1 && std::string(argv[1]) == "__net-relay")
    return app::net_relay(std::vector<std::string>(argv + 2, argv + argc));
  try {
    return app::exit_code(dispatch(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const std::exception& e) {
    return app::exit_code(app::Failure{std::string("internal error: ") + e.what(), ""});
  }
}
