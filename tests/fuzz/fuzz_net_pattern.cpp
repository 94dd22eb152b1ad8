// libFuzzer: the allow-domain pattern language and authorities. Invariants: an accepted pattern
// prints as text that parses back to the same pattern; a subdomain pattern never matches its own
// base; an accepted authority's destination text parses back to the same host and port.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "net/decision.hpp"
#include "net/pattern.hpp"

using namespace blaude::net;

namespace {
[[noreturn]] void die(const char* why) {
  std::fprintf(stderr, "pattern invariant violated: %s\n", why);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto p = parse_pattern(in);
  if (auto* pat = std::get_if<Pattern>(&p)) {
    auto again = parse_pattern(pat->text());
    if (!std::holds_alternative<Pattern>(again) || std::get<Pattern>(again) != *pat) die("round trip");
    if (pat->kind == Pattern::Kind::Subdomains) {
      Policy pol;
      pol.rules.push_back(Rule{*pat, Origin::CommandLine, ""});
      Target base{std::get<Host>(parse_host(pat->name)), pat->port.value_or(443)};
      if (decide_name(pol, base).allowed) die("*.x matched x");
    }
  }
  auto a = parse_authority(in, false);
  if (auto* au = std::get_if<Authority>(&a)) {
    if (au->port) {
      auto b = parse_authority(destination_text(au->host, au->port), true);
      auto* bu = std::get_if<Authority>(&b);
      if (!bu || bu->host.name != au->host.name || bu->port != au->port || bu->host.is_ip() != au->host.is_ip())
        die("authority round trip");
    }
  }
  return 0;
}
