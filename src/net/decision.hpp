// "May this request go to this host and port?", as a pure function of the policy and the request.
// Two steps, because DNS sits between them:
//   1. decide_name: before any lookup. A refused name is never resolved, so the host's resolver
//      cannot be used as a side channel (no DNS exfiltration through the proxy).
//   2. decide_addresses: on what the name resolved to. A destination that is not a public
//      address needs a rule that names it: loopback, link-local, unspecified, multicast and
//      reserved addresses need an exact host name or the IP literal; private (RFC 1918, CGNAT,
//      ULA) addresses need at least a domain rule (*.corp.example). `*` reaches only the public
//      internet. One bad address refuses the whole name, so a rebinding answer cannot mix in.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "net/address.hpp"
#include "net/host.hpp"
#include "net/pattern.hpp"

namespace blaude::net {

enum class Origin : uint8_t { CommandLine, ProjectPolicy, UserPolicy, Default };

struct Rule {
  Pattern pattern;
  Origin origin = Origin::CommandLine;
  std::string source;  // where it was written: "--allow-domain", "/w/.blaude:3", "ANTHROPIC_BASE_URL"
};

struct Policy {
  std::vector<Rule> rules;
};

struct Target {
  Host host;
  uint16_t port = 0;
};

struct NameDecision {
  bool allowed = false;
  int rule = -1;        // index of the strongest matching rule, -1 if none
  std::string reason;   // one line, for the 403 body, the log and the summary
};

NameDecision decide_name(const Policy& policy, const Target& t);

struct AddressDecision {
  bool allowed = false;
  std::string reason;
};

// `name` is the result of decide_name for the same target (allowed). For an IP-literal target,
// pass the literal as the only address.
AddressDecision decide_addresses(const Policy& policy, const Target& t, const NameDecision& name,
                                 std::span<const Address> resolved);

// The flag that would allow `t`, for messages: "--allow-domain evil.example:443".
std::string allow_hint(const Target& t);

// The rules in the order a user reads them (for --print-policy, --help, doctor).
std::vector<std::string> describe(const Policy& policy);
const char* origin_name(Origin o);

}  // namespace blaude::net
