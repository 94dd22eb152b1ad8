#include "net/decision.hpp"

namespace blaude::net {

namespace {

// How specifically a rule names the destination; decides which address classes it may reach.
enum class Strength : int { None = 0, Any = 1, Domain = 2, Exact = 3 };

bool port_ok(const Pattern& p, uint16_t port) { return !p.port || *p.port == port; }

Strength match(const Pattern& p, const Target& t) {
  if (!port_ok(p, t.port)) return Strength::None;
  switch (p.kind) {
    case Pattern::Kind::Any:
      return Strength::Any;
    case Pattern::Kind::Exact:
      return !t.host.is_ip() && t.host.name == p.name ? Strength::Exact : Strength::None;
    case Pattern::Kind::Subdomains: {
      const std::string& n = t.host.name;
      bool sub = !t.host.is_ip() && n.size() > p.name.size() + 1 && n.ends_with(p.name) &&
                 n[n.size() - p.name.size() - 1] == '.';
      return sub ? Strength::Domain : Strength::None;
    }
    case Pattern::Kind::Ip:
      return t.host.is_ip() && embedded_v4_or_self(*t.host.ip) == embedded_v4_or_self(*p.ip)
                 ? Strength::Exact
                 : Strength::None;
  }
  return Strength::None;
}

// An IP rule for this exact address (and port) allows it whatever the name matched with.
bool address_named(const Policy& pol, const Address& a, uint16_t port) {
  for (const Rule& r : pol.rules)
    if (r.pattern.kind == Pattern::Kind::Ip && port_ok(r.pattern, port) &&
        embedded_v4_or_self(*r.pattern.ip) == embedded_v4_or_self(a))
      return true;
  return false;
}

Strength needed(AddressClass c) {
  switch (c) {
    case AddressClass::Public: return Strength::Any;
    case AddressClass::Private: return Strength::Domain;
    default: return Strength::Exact;
  }
}

}  // namespace

NameDecision decide_name(const Policy& policy, const Target& t) {
  NameDecision d;
  Strength best = Strength::None;
  for (size_t i = 0; i < policy.rules.size(); ++i) {
    Strength s = match(policy.rules[i].pattern, t);
    if (s > best) {
      best = s;
      d.rule = int(i);
    }
  }
  if (t.port == 0) {
    d.rule = -1;
    d.reason = destination_text(t.host, t.port) + " has no valid port";
    return d;
  }
  d.allowed = best != Strength::None;
  if (!d.allowed) d.reason = destination_text(t.host, t.port) + " is not allowed";
  return d;
}

AddressDecision decide_addresses(const Policy& policy, const Target& t, const NameDecision& name,
                                 std::span<const Address> resolved) {
  AddressDecision d;
  if (!name.allowed || name.rule < 0 || size_t(name.rule) >= policy.rules.size()) {
    d.reason = name.reason.empty() ? destination_text(t.host, t.port) + " is not allowed" : name.reason;
    return d;
  }
  if (resolved.empty()) {
    d.reason = t.host.text() + " has no address";
    return d;
  }
  Strength have = match(policy.rules[size_t(name.rule)].pattern, t);
  for (const Address& a : resolved) {
    AddressClass c = classify(a);
    if (have >= needed(c) || address_named(policy, a, t.port)) continue;
    std::string what = std::string(c == AddressClass::Unspecified ? "an " : "a ") + class_name(c) + " address";
    d.reason = t.host.is_ip() ? destination_text(t.host, t.port) + " is " + what + " and needs its own rule"
                              : t.host.name + " resolves to " + format_address(a) + ", " + what +
                                    ", which needs a rule naming that host";
    return d;
  }
  d.allowed = true;
  return d;
}

std::string allow_hint(const Target& t) { return "--allow-domain " + destination_text(t.host, t.port); }

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::CommandLine: return "command line";
    case Origin::ProjectPolicy: return "project policy";
    case Origin::UserPolicy: return "user policy";
    case Origin::Default: return "default";
  }
  return "?";
}

std::vector<std::string> describe(const Policy& policy) {
  std::vector<std::string> out;
  for (const Rule& r : policy.rules)
    out.push_back(r.pattern.text() + "  (" + (r.source.empty() ? origin_name(r.origin) : r.source) + ")");
  return out;
}

}  // namespace blaude::net
