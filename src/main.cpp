// Parse the command line, dispatch to the app layer, map the result to an exit code.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "inside/clip_standin.hpp"
#include "inside/exec_shim.hpp"
#include "inside/selftest_probe.hpp"
#include "inside/shim_isolation.hpp"
#include "app/failure.hpp"
#include "app/run.hpp"
#include "cli/docs.hpp"
#include "cli/parse.hpp"
#include "common/build_info.hpp"
#include "common/log.hpp"
#include "common/self_exe.hpp"

using namespace blaude;

namespace {

app::Outcome dispatch(const std::vector<std::string>& args) {
  auto parsed = cli::parse(args);
  if (auto* err = std::get_if<cli::UsageError>(&parsed)) return app::usage(err->message, err->hint);
  const auto& o = std::get<cli::Options>(parsed);
  switch (o.action) {
    case cli::Action::Help:
      return app::show_help();
    case cli::Action::Version:
      std::fputs(cli::version_text(BLAUDE_VERSION, build::kRevision).c_str(), stdout);
      return 0;
    case cli::Action::Doctor:
      return app::run_doctor();
    case cli::Action::Selftest:
      return app::run_selftest(o);
    case cli::Action::FixApparmor:
      return app::run_fix_apparmor(o);
    case cli::Action::HostBypass:
      return app::host_bypass(o);
    case cli::Action::Net:
      return app::run_net_command(o);
    case cli::Action::Run:
      break;
  }
  return app::run(o);
}

}  // namespace

int main(int argc, char** argv) {
  // Inside the sandbox, called as a clipboard tool (a link in inside::kStandinDir).
  if (const char* standin = inside::clip_standin_name(argc > 0 ? argv[0] : nullptr))
    return inside::clip_standin(standin, argc, argv);
  // Inside the sandbox, first of all: start the sandboxed command (inside/exec_shim.hpp).
  if (argc >= 2 && std::strcmp(argv[1], inside::kExecShim) == 0) return inside::exec_shim(argc - 2, argv + 2, false);
  if (argc >= 2 && std::strcmp(argv[1], inside::kExecShimOnPty) == 0) return inside::exec_shim(argc - 2, argv + 2, true);
  // `blaude selftest`'s probe inside the sandbox (inside/selftest_probe.hpp).
  if (argc >= 2 && std::strcmp(argv[1], inside::kSelftestProbe) == 0) return inside::selftest_probe(argc - 2, argv + 2);
  log::off();
  record_start(argv[0]);  // for self_exe() where the kernel does not say (common/self_exe.hpp)
  // Inside the sandbox, in proxy mode: the relay wrapper, before any of blaude's own parsing.
  if (argc > 1 && std::string(argv[1]) == "__net-relay")
    return app::net_relay(std::vector<std::string>(argv + 2, argv + argc));
  // Inside the sandbox, in the default mode's own network namespace: its wait for pasta.
  if (argc > 1 && std::string(argv[1]) == "__net-attach")  // net::kNetnsCommand
    return app::net_attach(std::vector<std::string>(argv + 2, argv + argc));
  try {
    return app::exit_code(dispatch(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const std::exception& e) {
    return app::exit_code(app::Failure{std::string("internal error: ") + e.what(), ""});
  }
}
