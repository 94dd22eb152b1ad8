// libFuzzer: the relay wrapper's argv parser (`blaude __net-relay …` inside the sandbox, where any
// sandboxed process can run it with any argv). Input: arguments separated by NUL. Invariants:
// an accepted argv has a command and a control channel; what relay_argv writes for it parses
// back to the same spec.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "net/relay_argv.hpp"

using namespace blaude::net;

namespace {
[[noreturn]] void die(const char* why) {
  std::fprintf(stderr, "relay argv invariant violated: %s\n", why);
  std::abort();
}

bool same(const RelaySpec& a, const RelaySpec& b) {
  if (a.proxy_port != b.proxy_port || a.control_fd != b.control_fd ||
      a.command != b.command || a.forwards.size() != b.forwards.size())
    return false;
  for (size_t i = 0; i < a.forwards.size(); ++i) {
    const Forward &x = a.forwards[i], &y = b.forwards[i];
    if (x.port != y.port || x.connect_to != y.connect_to || x.binds != y.binds) return false;
  }
  return a.publish == b.publish;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) args.emplace_back();
    else args.back() += char(data[i]);
  }
  auto r = parse_relay_args(args);
  auto* spec = std::get_if<RelaySpec>(&r);
  if (!spec) {
    if (std::get<std::string>(r).empty()) die("a refusal without a reason");
    return 0;
  }
  if (spec->command.empty()) die("accepted without a command");
  if (spec->control_fd < 0) die("accepted without a control channel");
  std::vector<std::string> again = relay_argv(*spec);
  if (again.size() < 2 || again[0] != kSandboxExe || again[1] != kRelayCommand) die("relay_argv's head");
  auto back = parse_relay_args(std::vector<std::string>(again.begin() + 2, again.end()));
  auto* spec2 = std::get_if<RelaySpec>(&back);
  if (!spec2) die("relay_argv wrote what the parser refuses");
  if (!same(*spec, *spec2)) die("round trip changed the spec");
  return 0;
}
