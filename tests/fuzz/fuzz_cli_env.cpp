// libFuzzer: the command line and the environment policy over arbitrary input. The first byte
// picks a split point; before it, NUL-separated argv; after it, NUL-separated host environ.
// Checks the invariants, not just "no crash": usage errors never carry options, the chosen
// command is never empty, every name in the result appears once, denied names only via --env.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cli/command.hpp"
#include "cli/parse.hpp"
#include "app/launch.hpp"
#include "sandbox/env_policy.hpp"

using namespace blaude;

static std::vector<std::string> split(const uint8_t* p, size_t n) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < n; ++i) {
    if (p[i] == 0) out.emplace_back();
    else out.back() += static_cast<char>(p[i]);
  }
  return out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t cut = 1 + (size > 1 ? data[0] % size : 0);
  if (cut > size) cut = size;
  auto args = split(data + 1, cut - 1);
  auto host = split(data + cut, size - cut);

  auto parsed = cli::parse(args);
  if (std::holds_alternative<cli::UsageError>(parsed)) return 0;
  const auto& o = std::get<cli::Options>(parsed);
  if (o.action != cli::Action::Run && o.action != cli::Action::HostBypass) return 0;
  auto argv = cli::choose_command(o, data[0] & 1);
  if (argv.empty() || (argv[0].empty() && o.exec.empty())) std::abort();

  sandbox::EnvContext ctx;
  ctx.home = "/home/u";
  ctx.path = "/usr/bin";
  auto env = sandbox::filter_env(host, app::env_rules(o), ctx);
  std::set<std::string> names, from_cli;
  for (const auto& [k, v] : o.env) from_cli.insert(k);
  for (const auto& [k, v] : env) {
    if (!names.insert(k).second) std::abort();  // duplicate name
    if (!o.keep_env && sandbox::denied(k, o.remote_control_mode()) && !from_cli.count(k)) {
      // Only the forced "1" values may be present for a denied name.
      if (v != "1") std::abort();
    }
  }
  return 0;
}
