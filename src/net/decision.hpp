// "May this request go to this host and port?", as a pure function of the policy and the request.
// Two steps, because DNS sits between them:
//   1. decide_name: before any lookup. A refused name is never resolved, so the host's resolver
//      cannot be used as a side channel (no DNS exfiltration through the proxy).
//   2. decide_addresses: on what the name resolved to, by the address's class (address.hpp).
//      `*` and domain rules reach public addresses only. Any other class (private, loopback,
//      link-local, cloud metadata, special-use, unspecified, multicast, and every address of the
//      host's own interfaces, which is loopback by another name) is reached only by a rule naming
//      that IP (`--allow-domain 10.1.2.3`), or by a name the resolver cannot have been made to
//      answer: `localhost` to a loopback address, or a name /etc/hosts answers (with an exact rule;
//      a private address of a hosts-file name: a domain rule is enough). A DNS answer pointing a
//      permitted name inward (rebinding, a planted record) is refused. One bad address refuses
//      the whole name, so a rebinding answer cannot mix in.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "net/address.hpp"
#include "net/host.hpp"
#include "net/pattern.hpp"

namespace blaude::net {

enum class Origin : uint8_t { CommandLine, ProjectPolicy, UserPolicy, Default, Live };  // Live: `blaude net allow`

struct Rule {
  Pattern pattern;
  Origin origin = Origin::CommandLine;
  std::string source;  // where it was written: "--allow-domain", "/w/.blaude:3", "ANTHROPIC_BASE_URL"
};

struct Policy {
  std::vector<Rule> rules;
  // What the host says of itself, filled by the proxy (net/host_view.hpp), not by the rules:
  // the addresses of its interfaces (judged as AddressClass::HostLocal), and the names its
  // hosts file answers (lower case, sorted: parse_hosts_file).
  std::vector<Address> host_addresses;
  std::vector<std::string> hosts_file_names;
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
  std::string hint;  // refused: the flag that would allow it, when not allow_hint(t)'s
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
