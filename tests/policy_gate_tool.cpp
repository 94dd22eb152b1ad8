// TEST-ONLY executable (not installed): drives the trust gate the way main will, so the
// integration tests can exercise it through a real pty before main is wired.
//   policy_gate_tool gate [--trust-policy]   run_trust_gate() for the current directory
//   policy_gate_tool print                    --print-policy output
//   policy_gate_tool bwrap-args               the policy's bwrap mount args, one per line
//   policy_gate_tool run [--trust-policy] -- CMD...
//                                             gate, then the real planner + bwrap with the
//                                             policy's grants (sandbox::run_sandboxed), as main will
#include <cstdio>
#include <string>

#include <spdlog/spdlog.h>

#include "common/log.hpp"
#include "sandbox/bwrap/launch.hpp"
#include "sandbox/bwrap/plan.hpp"
#include "sandbox/policy_bwrap.hpp"
#include "sandbox/trust/gate.hpp"

using namespace blaude::sandbox;

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::off);  // the real binary logs to a file; keep the pty clean
  std::string mode = argc > 1 ? argv[1] : "gate";
  bool trust = argc > 2 && std::string(argv[2]) == "--trust-policy";
  GateRequest req = gate_request_from_host(trust);
  GateResult r = mode == "gate" ? run_trust_gate(req) : load_policies(req);
  if (r.status != GateResult::Status::Proceed) {
    std::fprintf(stderr, "blaude: %s\n%s\n", r.message.c_str(), r.hint.c_str());
    std::printf("%s\n", r.status == GateResult::Status::Declined ? "GATE-DECLINED" : "GATE-ERROR");
    return 1;
  }
  if (!r.note.empty()) std::fprintf(stderr, "%s\n", r.note.c_str());
  if (mode == "print") {
    std::fputs(format_policy_report(r.loaded, is_trusted(req, r.loaded)).c_str(), stdout);
  } else if (mode == "run") {
    blaude::cli::Options o;
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]) == "--") {
        o.exec.assign(argv + i + 1, argv + argc);
        break;
      }
    if (o.exec.empty()) return 2;
    blaude::log::init(false);
    return run_sandboxed(o, [&](const HostFacts& f) {
      PlanInputs in;
      in.env = {{"HOME", f.home}, {"PATH", sandbox_path(f)}, {"LANG", "C.UTF-8"}};
      in.command = o.exec;
      in.grants = r.loaded.grants;
      return in;
    });
  } else if (mode == "bwrap-args") {
    for (const auto& a : policy_bwrap_args(r.loaded.grants)) std::printf("%s\n", a.c_str());
  } else {
    std::printf("GATE-PROCEED %zu grants\n", r.loaded.grants.size());
  }
  return 0;
}
