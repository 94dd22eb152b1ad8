#include "net/pattern.hpp"

#include "net/host.hpp"

namespace blaude::net {

namespace {

const char* kGrammar = "write example.com, *.example.com, host:port, 10.0.0.5, [::1]:8080 or *";

PatternError err(std::string what, std::string hint = kGrammar) { return {std::move(what), std::move(hint)}; }

// Rejections with a specific hint, before the grammar: the usual ways to write a URL instead.
std::optional<PatternError> common_mistake(std::string_view t) {
  if (t.empty()) return err("it is empty");
  for (char c : t)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return err("it contains a space or control character");
  if (auto k = t.find("://"); k != std::string_view::npos)
    return err("it is a URL, not a host", "drop the scheme: write " + std::string(t.substr(k + 3, t.find('/', k + 3) - (k + 3))));
  if (t.find('/') != std::string_view::npos) return err("it contains a path", "name the host only: the proxy decides per host and port");
  if (t.find('@') != std::string_view::npos) return err("it contains '@'", "name the host only, without a user");
  return std::nullopt;
}

}  // namespace

std::string Pattern::text() const {
  std::string h;
  switch (kind) {
    case Kind::Any: h = "*"; break;
    case Kind::Exact: h = name; break;
    case Kind::Subdomains: h = "*." + name; break;
    case Kind::Ip: h = format_host_part(*ip); break;
  }
  return port ? h + ":" + std::to_string(*port) : h;
}

std::variant<Pattern, PatternError> parse_pattern(std::string_view t) {
  if (auto e = common_mistake(t)) return *e;
  Pattern p;
  std::string_view host = t;
  // Port split. Bracketed IPv6 is handled by parse_authority; an unbracketed IPv6 is refused
  // rather than guessed at ("2001:db8::1:443" is itself a valid address).
  if (t[0] != '[') {
    size_t colon = t.rfind(':');
    if (colon != std::string_view::npos && t.find(':') != colon)
      return err("an IPv6 address needs brackets", "write [" + std::string(t) + "], or [ADDRESS]:PORT for one port");
    if (colon != std::string_view::npos) {
      auto port = parse_port(t.substr(colon + 1));
      if (!port) return err("the port must be a number from 1 to 65535");
      p.port = *port;
      host = t.substr(0, colon);
    }
  }
  if (host == "*") {
    p.kind = Pattern::Kind::Any;
    return p;
  }
  if (host.starts_with("*.")) {
    auto h = parse_host(host.substr(2));
    if (auto* e = std::get_if<HostError>(&h)) return err(e->what);
    const Host& base = std::get<Host>(h);
    if (base.is_ip()) return err("a wildcard cannot cover an IP address", "write the address itself");
    if (base.name.find('.') == std::string::npos)
      return err("*." + base.name + " covers a whole top-level domain", "name the domain (*.example." + base.name + "), or write * to allow everything");
    p.kind = Pattern::Kind::Subdomains;
    p.name = base.name;
    return p;
  }
  if (host.find('*') != std::string_view::npos)
    return err("'*' may only stand alone or as the first label (*.example.com)");
  if (t[0] == '[') {
    auto a = parse_authority(t, false);
    if (auto* e = std::get_if<HostError>(&a)) return err(e->what);
    const Authority& au = std::get<Authority>(a);
    p.kind = Pattern::Kind::Ip;
    p.ip = *au.host.ip;
    if (au.port) p.port = au.port;
    return p;
  }
  auto h = parse_host(host);
  if (auto* e = std::get_if<HostError>(&h)) return err(e->what);
  Host& hh = std::get<Host>(h);
  if (hh.is_ip()) {
    p.kind = Pattern::Kind::Ip;
    p.ip = *hh.ip;
  } else {
    p.kind = Pattern::Kind::Exact;
    p.name = std::move(hh.name);
  }
  return p;
}

std::string pattern_error_text(std::string_view text, const PatternError& e) {
  std::string out = "\"" + std::string(text) + "\": " + e.what;
  if (!e.hint.empty()) out += " (" + e.hint + ")";
  return out;
}

}  // namespace blaude::net
