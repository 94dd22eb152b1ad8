#include "net/http_head.hpp"

#include <algorithm>
#include <vector>

namespace blaude::net {

namespace {

bool tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
bool token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), tchar); }
bool visible(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}
std::string lower(std::string_view s) {
  std::string o(s);
  std::transform(o.begin(), o.end(), o.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; });
  return o;
}
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct Header {
  std::string_view name, value;
  std::string lname;
};

// Splits the head into lines (LF, optional CR before it). Returns the head length, 0 if the
// empty line has not arrived yet, or sets `bad` on a bare CR or NUL.
size_t split_lines(std::string_view in, std::vector<std::string_view>& lines, std::string& bad) {
  size_t pos = 0;
  while (pos < in.size()) {
    size_t nl = in.find('\n', pos);
    if (nl == std::string_view::npos) return 0;
    std::string_view line = in.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\r') != std::string_view::npos || line.find('\0') != std::string_view::npos) {
      bad = "a bare CR or NUL in the request head";
      return 0;
    }
    pos = nl + 1;
    if (line.empty()) {
      if (!lines.empty()) return pos;
      bad = "an empty line before the request line";
      return 0;
    }
    lines.push_back(line);
  }
  return 0;
}

std::variant<HttpError, std::vector<std::string_view>> request_line(std::string_view l) {
  size_t a = l.find(' ');
  size_t b = a == std::string_view::npos ? a : l.find(' ', a + 1);
  if (b == std::string_view::npos || l.find(' ', b + 1) != std::string_view::npos)
    return HttpError{400, "malformed request line"};
  std::string_view m = l.substr(0, a), t = l.substr(a + 1, b - a - 1), v = l.substr(b + 1);
  if (!token(m)) return HttpError{400, "malformed method"};
  if (t.empty() || !visible(t)) return HttpError{400, "malformed request target"};
  if (v != "HTTP/1.1" && v != "HTTP/1.0") {
    if (v.starts_with("HTTP/")) return HttpError{505, "only HTTP/1.0 and HTTP/1.1 are supported"};
    return HttpError{400, "malformed HTTP version"};
  }
  return std::vector<std::string_view>{m, t, v};
}

std::variant<HttpError, Authority> authority_of(std::string_view text, bool require_port) {
  if (text.find('@') != std::string_view::npos) return HttpError{400, "credentials in the URL are not forwarded"};
  auto a = parse_authority(text, require_port);
  if (auto* e = std::get_if<HostError>(&a)) return HttpError{400, e->what};
  return std::get<Authority>(a);
}

bool same_dest(const Authority& a, const Authority& b, uint16_t dflt) {
  return a.host.name == b.host.name && a.host.is_ip() == b.host.is_ip() &&
         (a.port ? a.port : dflt) == (b.port ? b.port : dflt);
}

// Hop-by-hop headers (RFC 9110 7.6.1) and every Proxy-* header (they are for this proxy, and
// a credential meant for it must never reach the origin): never forwarded.
bool hop_by_hop(const std::string& n) {
  if (n.starts_with("proxy-")) return true;
  for (const char* h : {"connection", "keep-alive", "proxy-connection", "proxy-authorization",
                        "proxy-authenticate", "te", "trailer", "upgrade"})
    if (n == h) return true;
  return false;
}

std::vector<std::string> connection_tokens(const std::vector<Header>& hs) {
  std::vector<std::string> out;
  for (const Header& h : hs) {
    if (h.lname != "connection" && h.lname != "proxy-connection") continue;
    std::string_view v = h.value;
    while (!v.empty()) {
      size_t c = v.find(',');
      std::string t = lower(trim(v.substr(0, c)));
      if (!t.empty()) out.push_back(t);
      v = c == std::string_view::npos ? std::string_view{} : v.substr(c + 1);
    }
  }
  return out;
}

std::optional<HttpError> check_framing(const std::vector<Header>& hs) {
  bool te = false;
  std::optional<std::string_view> cl;
  for (const Header& h : hs) {
    if (h.lname == "transfer-encoding") te = true;
    if (h.lname != "content-length") continue;
    if (h.value.empty() || !std::all_of(h.value.begin(), h.value.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return HttpError{400, "malformed Content-Length"};
    if (cl && *cl != h.value) return HttpError{400, "conflicting Content-Length headers"};
    cl = h.value;
  }
  if (te && cl) return HttpError{400, "both Transfer-Encoding and Content-Length"};
  return std::nullopt;
}

std::string forward_head(std::string_view method, std::string_view path, std::string_view version,
                         const Authority& dest, const std::vector<Header>& hs) {
  std::vector<std::string> conn = connection_tokens(hs);
  bool upgrade = std::find(conn.begin(), conn.end(), "upgrade") != conn.end() &&
                 std::any_of(hs.begin(), hs.end(), [](const Header& h) { return h.lname == "upgrade"; });
  std::string out;
  out.reserve(512);
  out.append(method).append(" ").append(path).append(" ").append(version).append("\r\n");
  bool host_seen = false;
  for (const Header& h : hs) {
    // Connection may name more hop-by-hop headers, but never the ones that frame the request.
    bool named = std::find(conn.begin(), conn.end(), h.lname) != conn.end() && h.lname != "host" &&
                 h.lname != "content-length" && h.lname != "transfer-encoding";
    bool drop = hop_by_hop(h.lname) || named;
    if (upgrade && h.lname == "upgrade") drop = false;
    if (drop) continue;
    host_seen = host_seen || h.lname == "host";
    out.append(h.name).append(": ").append(h.value).append("\r\n");
  }
  if (!host_seen) out.append("Host: ").append(dest.port == 80 ? dest.host.text() : destination_text(dest.host, dest.port)).append("\r\n");
  out.append(upgrade ? "Connection: Upgrade\r\n\r\n" : "Connection: close\r\n\r\n");
  return out;
}

HttpParse absolute_request(std::string_view m, std::string_view t, std::string_view v, const std::vector<Header>& hs) {
  std::string scheme = lower(t.substr(0, t.find(':')));
  if (t.find("://") == std::string_view::npos || t[0] == '/') {
    if (t[0] == '/' || t == "*") return HttpError{400, "the proxy needs an absolute URI (http://host/path) or CONNECT"};
    return HttpError{400, "malformed request target"};
  }
  if (scheme == "https") return HttpError{400, "https:// goes through CONNECT, not a plain request"};
  if (scheme != "http" || t.substr(scheme.size(), 3) != "://") return HttpError{400, "only http:// URLs and CONNECT are proxied"};
  std::string_view rest = t.substr(7);
  size_t end = rest.find_first_of("/?#");
  auto a = authority_of(rest.substr(0, end), false);
  if (auto* e = std::get_if<HttpError>(&a)) return *e;
  Authority dest = std::get<Authority>(a);
  if (!dest.port) dest.port = 80;
  std::string path = end == std::string_view::npos ? "/" : std::string(rest.substr(end));
  if (path[0] != '/') path = "/" + path;
  if (auto e = check_framing(hs)) return *e;
  int hosts = 0;
  for (const Header& h : hs) {
    if (h.lname != "host") continue;
    if (++hosts > 1) return HttpError{400, "more than one Host header"};
    auto ha = authority_of(h.value, false);
    if (auto* e = std::get_if<HttpError>(&ha)) return HttpError{400, "Host header: " + e->reason};
    if (!same_dest(std::get<Authority>(ha), dest, 80))
      return HttpError{421, "the Host header names another host than the request URI"};
  }
  HttpRequest r;
  r.kind = HttpRequest::Kind::Forward;
  r.method = std::string(m);
  r.dest = std::move(dest);
  r.forward = forward_head(m, path, v, r.dest, hs);
  return r;
}

}  // namespace

HttpParse parse_http_head(std::string_view in, const HttpLimits& lim) {
  std::vector<std::string_view> lines;
  std::string bad;
  size_t head_len = split_lines(in.substr(0, std::min(in.size(), lim.max_head + 2)), lines, bad);
  if (!bad.empty()) return HttpError{400, bad};
  if (head_len == 0) {
    if (in.size() >= lim.max_head) return HttpError{431, "request head larger than " + std::to_string(lim.max_head / 1024) + " KiB"};
    return NeedMore{};
  }
  if (head_len > lim.max_head) return HttpError{431, "request head larger than " + std::to_string(lim.max_head / 1024) + " KiB"};
  if (lines.size() - 1 > lim.max_headers) return HttpError{431, "more than " + std::to_string(lim.max_headers) + " headers"};
  auto rl = request_line(lines[0]);
  if (auto* e = std::get_if<HttpError>(&rl)) return *e;
  auto& parts = std::get<std::vector<std::string_view>>(rl);
  std::vector<Header> hs;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (l[0] == ' ' || l[0] == '\t') return HttpError{400, "folded header lines are not accepted"};
    size_t c = l.find(':');
    if (c == std::string_view::npos || !token(l.substr(0, c))) return HttpError{400, "malformed header line"};
    std::string_view value = l.substr(c + 1);
    if (std::any_of(value.begin(), value.end(), [](char ch) {
          auto u = static_cast<unsigned char>(ch);
          return (u < 0x20 && u != '\t') || u == 0x7f;
        }))
      return HttpError{400, "a control character in a header value"};
    hs.push_back({l.substr(0, c), trim(l.substr(c + 1)), lower(l.substr(0, c))});
  }
  HttpParse out;
  if (parts[0] == "CONNECT") {
    auto a = authority_of(parts[1], true);
    if (auto* e = std::get_if<HttpError>(&a)) return *e;
    HttpRequest r;
    r.kind = HttpRequest::Kind::Connect;
    r.method = "CONNECT";
    r.dest = std::get<Authority>(a);
    out = std::move(r);
  } else {
    out = absolute_request(parts[0], parts[1], parts[2], hs);
  }
  if (auto* r = std::get_if<HttpRequest>(&out)) r->head_len = head_len;
  return out;
}

const char* status_text(int s) {
  switch (s) {
    case 200: return "Connection established";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 408: return "Request Timeout";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
  }
  return "Error";
}

std::string http_response(int status, std::string_view body_line, std::string_view proxy_error) {
  std::string body(body_line);
  body += "\n";
  std::string r = "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) + "\r\n";
  r += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  if (!proxy_error.empty()) r.append("X-Proxy-Error: ").append(proxy_error).append("\r\n");
  r += "Connection: close\r\n\r\n";
  return r + body;
}

}  // namespace blaude::net
