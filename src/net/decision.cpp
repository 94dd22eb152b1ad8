#include "net/decision.hpp"

#include <algorithm>

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

AddressClass class_of(const Policy& pol, const Address& a) {
  const Address v = embedded_v4_or_self(a);
  for (const Address& h : pol.host_addresses)
    if (embedded_v4_or_self(h) == v) return AddressClass::HostLocal;
  return classify(a);
}

// A name whose inward answer no DNS server chose. Never for 0.0.0.0 (ad-blocking hosts files
// send names there, and a connect to it reaches this host), multicast or special-use.
bool trusted_name(const Policy& pol, const std::string& name, AddressClass c) {
  if (c == AddressClass::Unspecified || c == AddressClass::Multicast || c == AddressClass::Reserved) return false;
  if (name == "localhost") return c == AddressClass::Loopback || c == AddressClass::HostLocal;
  return std::binary_search(pol.hosts_file_names.begin(), pol.hosts_file_names.end(), name);
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
    const AddressClass c = class_of(policy, a);
    if (address_named(policy, a, t.port)) continue;
    if (c == AddressClass::Public && have >= Strength::Any) continue;
    // An IP literal: only a rule for it (address_named) or, for a public one, any rule.
    if (c != AddressClass::Public && !t.host.is_ip() && trusted_name(policy, t.host.name, c) && have >= needed(c))
      continue;
    const std::string what = c == AddressClass::HostLocal    ? "an address of this host"
                             : c == AddressClass::Unspecified ? "an unspecified address"
                                                              : std::string("a ") + class_name(c) + " address";
    if (t.host.is_ip()) {
      d.reason = destination_text(t.host, t.port) + " is " + what + " and needs its own rule";
    } else {
      d.reason = t.host.name + " resolves to " + format_address(a) + ", " + what + ", which needs a rule for " +
                 (t.host.name == "localhost" ? "localhost" : "that address");
      if (t.host.name != "localhost") d.hint = "--allow-domain " + format_host_part(a) + ":" + std::to_string(t.port);
    }
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
    case Origin::Live: return "blaude net allow";
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
