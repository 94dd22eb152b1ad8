#include "net/host.hpp"

#include <algorithm>

namespace blaude::net {

namespace {

bool label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}
bool digit(char c) { return c >= '0' && c <= '9'; }
bool all_digits(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), digit); }
bool hexish(std::string_view s) {
  return s.size() >= 2 && s[0] == '0' && s[1] == 'x' &&
         std::all_of(s.begin() + 2, s.end(), [](char c) { return digit(c) || (c >= 'a' && c <= 'f'); });
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 80)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  if (s.size() > 80) out += "...";
  return out + "\"";
}

std::optional<HostError> check_name(const std::string& n, std::string_view original) {
  auto bad = [&](const std::string& why) { return HostError{quoted(original) + " is not a host name: " + why}; };
  if (n.empty()) return bad("it is empty");
  if (n.size() > 253) return bad("longer than 253 characters");
  bool any_alpha_label = false;
  size_t start = 0;
  std::string_view last;
  while (start <= n.size()) {
    size_t dot = n.find('.', start);
    if (dot == std::string::npos) dot = n.size();
    std::string_view label(n.data() + start, dot - start);
    if (label.empty()) return bad("an empty label");
    if (label.size() > 63) return bad("a label longer than 63 characters");
    for (char c : label) {
      if (static_cast<unsigned char>(c) >= 0x80) return bad("not ASCII (use the xn-- form)");
      if (!label_char(c)) return bad(std::string("the character '") + c + "'");
    }
    if (label.front() == '-' || label.back() == '-') return bad("a label starts or ends with '-'");
    if (!all_digits(label) && !hexish(label)) any_alpha_label = true;
    last = label;
    start = dot + 1;
  }
  // "2130706433", "127.1", "0x7f.0.0.1": the resolver would turn these into addresses.
  if (all_digits(last) || !any_alpha_label) return bad("it looks like an IP address but is not one");
  return std::nullopt;
}

}  // namespace

std::string Host::text() const { return ip ? format_host_part(*ip) : name; }

std::variant<Host, HostError> parse_host(std::string_view text) {
  if (auto a = parse_address(text)) {
    Host h;
    h.ip = *a;
    h.name = format_address(*a);
    return h;
  }
  std::string n(text);
  std::transform(n.begin(), n.end(), n.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
  });
  if (!n.empty() && n.back() == '.') n.pop_back();
  if (auto e = check_name(n, text)) return *e;
  Host h;
  h.name = std::move(n);
  return h;
}

std::optional<uint16_t> parse_port(std::string_view t) {
  if (t.empty() || t.size() > 5 || t[0] == '0' || !all_digits(t)) return std::nullopt;
  unsigned v = 0;
  for (char c : t) v = v * 10 + unsigned(c - '0');
  if (v > 65535) return std::nullopt;
  return uint16_t(v);
}

std::variant<Authority, HostError> parse_authority(std::string_view t, bool require_port) {
  std::string_view host_part, port_part;
  bool has_port = false;
  if (!t.empty() && t[0] == '[') {
    size_t close = t.find(']');
    if (close == std::string_view::npos) return HostError{quoted(t) + ": '[' without ']'"};
    host_part = t.substr(1, close - 1);
    std::string_view rest = t.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return HostError{quoted(t) + ": unexpected text after ']'"};
      port_part = rest.substr(1);
      has_port = true;
    }
    auto a = parse_address(host_part);
    if (!a || a->v4()) return HostError{quoted(t) + ": not an IPv6 address in brackets"};
  } else {
    // A URL where HOST:PORT belongs (a client that sends its URL to CONNECT): say so, rather than
    // reading its colons as an IPv6 address's.
    if (t.find("://") != std::string_view::npos)
      return HostError{quoted(t) + ": a URL where HOST:PORT belongs (CONNECT takes example.com:443, not https://...)"};
    size_t colon = t.rfind(':');
    if (colon != std::string_view::npos && t.find(':') != colon)
      return HostError{quoted(t) + ": an IPv6 address needs brackets, as in [::1]:8080"};
    host_part = t.substr(0, colon);
    if (colon != std::string_view::npos) {
      port_part = t.substr(colon + 1);
      has_port = true;
    }
  }
  Authority out;
  if (has_port) {
    auto p = parse_port(port_part);
    if (!p) return HostError{quoted(t) + ": the port must be a number from 1 to 65535"};
    out.port = *p;
  } else if (require_port) {
    return HostError{quoted(t) + ": no port"};
  }
  auto h = parse_host(host_part);
  if (auto* e = std::get_if<HostError>(&h)) return *e;
  out.host = std::get<Host>(std::move(h));
  return out;
}

std::string destination_text(const Host& h, uint16_t port) {
  return h.text() + ":" + std::to_string(port);
}

}  // namespace blaude::net
