// libFuzzer: the proxy's HTTP head parser. Invariants: it never reads past its cap, a request it
// accepts has a valid destination and a forwarded head that is itself one well-formed request
// for the same host, and feeding the input in two parts agrees with feeding it whole.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <cctype>

#include "net/http_head.hpp"

using namespace blaude::net;

namespace {
[[noreturn]] void die(const char* why) {
  std::fprintf(stderr, "http head invariant violated: %s\n", why);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  HttpLimits lim;
  lim.max_head = 4096;
  lim.max_headers = 20;
  HttpParse r = parse_http_head(in, lim);
  if (auto* req = std::get_if<HttpRequest>(&r)) {
    if (req->head_len == 0 || req->head_len > in.size() || req->head_len > lim.max_head) die("head_len");
    if (req->dest.port == 0) die("no port");
    if (req->dest.host.name.empty()) die("no host");
    // The head alone parses to the same request (the body never changes the decision).
    HttpParse again = parse_http_head(in.substr(0, req->head_len), lim);
    auto* r2 = std::get_if<HttpRequest>(&again);
    if (!r2 || r2->dest.host.name != req->dest.host.name || r2->dest.port != req->dest.port) die("prefix");
    if (req->kind == HttpRequest::Kind::Forward) {
      // What goes upstream is one origin-form request that closes or upgrades, with one Host.
      const std::string& f = req->forward;
      if (!f.ends_with("Connection: close\r\n\r\n") && !f.ends_with("Connection: Upgrade\r\n\r\n")) die("connection");
      if (f.find("\r\n\r\n") != f.size() - 4) die("forward has a body or two heads");
      // Header names are case-insensitive: the client's own Host line is kept as it was sent.
      std::string lf(f);
      for (char& ch : lf) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      size_t hosts = 0;
      for (size_t p = lf.find("\r\nhost:"); p != std::string::npos; p = lf.find("\r\nhost:", p + 1)) ++hosts;
      if (hosts != 1) die("host count");
      // No Proxy-* header line goes upstream (the words may appear inside another header's value).
      if (lf.find("\r\nproxy-") != std::string::npos) die("proxy header forwarded");
    }
  } else if (std::holds_alternative<NeedMore>(r)) {
    if (in.size() >= lim.max_head) die("need more past the cap");
  }
  // Any prefix of an input that needs more also needs more (or fails the same way early).
  if (size > 1 && std::holds_alternative<NeedMore>(r)) {
    if (!std::holds_alternative<NeedMore>(parse_http_head(in.substr(0, size / 2), lim))) die("prefix of need-more");
  }
  return 0;
}
