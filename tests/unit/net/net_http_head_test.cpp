// The proxy's HTTP request-head parser: CONNECT, absolute-URI forwarding, bounds and refusals,
// fed every split of its input.
#include <string>

#include "catch.hpp"
#include "net/http_head.hpp"

using namespace blaude::net;

namespace {

HttpRequest req(const std::string& in, const HttpLimits& lim = {}) {
  auto r = parse_http_head(in, lim);
  INFO(in);
  if (auto* e = std::get_if<HttpError>(&r)) FAIL(e->status << " " << e->reason);
  REQUIRE(std::holds_alternative<HttpRequest>(r));
  return std::get<HttpRequest>(r);
}

HttpError err(const std::string& in, const HttpLimits& lim = {}) {
  auto r = parse_http_head(in, lim);
  INFO(in);
  REQUIRE(std::holds_alternative<HttpError>(r));
  return std::get<HttpError>(r);
}

}  // namespace

TEST_CASE("net http: CONNECT", "[net]") {
  std::string in = "CONNECT Example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nUser-Agent: curl\r\n\r\n\x16\x03\x01";
  HttpRequest r = req(in);
  CHECK(r.kind == HttpRequest::Kind::Connect);
  CHECK(r.dest.host.name == "example.com");
  CHECK(r.dest.port == 443);
  CHECK(in.substr(r.head_len) == "\x16\x03\x01");  // early tunnel bytes stay for the upstream
  CHECK(req("CONNECT [::1]:8443 HTTP/1.0\n\n").dest.host.is_ip());
  CHECK(err("CONNECT example.com HTTP/1.1\r\n\r\n").reason.find("no port") != std::string::npos);
  CHECK(err("CONNECT user@example.com:443 HTTP/1.1\r\n\r\n").status == 400);
}

TEST_CASE("net http: absolute-URI requests are forwarded in origin form", "[net]") {
  std::string in =
      "POST http://api.example.com:8080/v1/x?y=1 HTTP/1.1\r\n"
      "Host: api.example.com:8080\r\n"
      "Proxy-Connection: keep-alive\r\n"
      "Proxy-Authorization: Basic eDp5\r\n"
      "Connection: keep-alive, X-Secret\r\n"
      "X-Secret: 1\r\n"
      "Content-Length: 4\r\n"
      "Accept: */*\r\n\r\nbody";
  HttpRequest r = req(in);
  CHECK(r.kind == HttpRequest::Kind::Forward);
  CHECK(r.dest.host.name == "api.example.com");
  CHECK(r.dest.port == 8080);
  CHECK(r.forward ==
        "POST /v1/x?y=1 HTTP/1.1\r\nHost: api.example.com:8080\r\nContent-Length: 4\r\nAccept: */*\r\n"
        "Connection: close\r\n\r\n");
  CHECK(in.substr(r.head_len) == "body");
  // Every Proxy-* header is the proxy's, whatever its name (found by fuzz_net_http).
  CHECK(req("GET http://e.example/ HTTP/1.1\r\nPROXY-Other: 1\r\nproxy-authorization: x\r\n\r\n").forward ==
        "GET / HTTP/1.1\r\nHost: e.example\r\nConnection: close\r\n\r\n");
  // No Host header: one is added; no path: "/".
  CHECK(req("GET http://example.com HTTP/1.1\r\n\r\n").forward == "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n");
  CHECK(req("GET http://example.com?q HTTP/1.0\r\n\r\n").forward.starts_with("GET /?q HTTP/1.0\r\n"));
  CHECK(req("GET http://[::1]:81/ HTTP/1.1\r\n\r\n").forward.find("Host: [::1]:81\r\n") != std::string::npos);
  // Default port 80 on both sides of the Host comparison.
  CHECK(req("GET http://example.com/ HTTP/1.1\r\nHost: EXAMPLE.com:80\r\n\r\n").dest.port == 80);
  // A WebSocket upgrade keeps its Upgrade header.
  auto ws = req("GET http://example.com/ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n").forward;
  CHECK(ws.find("Upgrade: websocket\r\n") != std::string::npos);
  CHECK(ws.ends_with("Connection: Upgrade\r\n\r\n"));
  // Connection cannot strip the headers that frame the request.
  auto keep = req("POST http://e.example/ HTTP/1.1\r\nConnection: content-length, host\r\nContent-Length: 1\r\nHost: e.example\r\n\r\n").forward;
  CHECK(keep.find("Content-Length: 1\r\n") != std::string::npos);
  CHECK(keep.find("Host: e.example\r\n") != std::string::npos);
}

TEST_CASE("net http: refusals", "[net]") {
  CHECK(err("GET http://a.example/ HTTP/1.1\r\nHost: b.example\r\n\r\n").status == 421);
  CHECK(err("GET http://a.example/ HTTP/1.1\r\nHost: a.example:81\r\n\r\n").status == 421);
  CHECK(err("GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\nHost: a.example\r\n\r\n").status == 400);
  CHECK(err("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n").reason.find("absolute URI") != std::string::npos);
  CHECK(err("GET https://a.example/ HTTP/1.1\r\n\r\n").reason.find("CONNECT") != std::string::npos);
  CHECK(err("GET ftp://a.example/ HTTP/1.1\r\n\r\n").status == 400);
  CHECK(err("GET http://u:p@a.example/ HTTP/1.1\r\n\r\n").status == 400);
  CHECK(err("GET http://a.example/ HTTP/2\r\n\r\n").status == 505);
  CHECK(err("GET http://a.example/ HTTX/1.1\r\n\r\n").status == 400);
  CHECK(err("GET  http://a.example/ HTTP/1.1\r\n\r\n").status == 400);
  CHECK(err("GET http://a.example/ HTTP/1.1\r\nX: a\rb\r\n\r\n").status == 400);
  CHECK(err("GET http://a.example/ HTTP/1.1\r\nX: a\x01\r\n\r\n").status == 400);
  CHECK(err("GET http://a.example/ HTTP/1.1\r\n folded\r\n\r\n").status == 400);
  CHECK(err("GET http://a.example/ HTTP/1.1\r\nBad Name: x\r\n\r\n").status == 400);
  CHECK(err("GET http://a.example/ HTTP/1.1\r\nX : y\r\n\r\n").status == 400);
  CHECK(err("POST http://a.example/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n").status == 400);
  CHECK(err("POST http://a.example/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n").status == 400);
  CHECK(err("POST http://a.example/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n").status == 400);
  CHECK(err("\r\nGET http://a.example/ HTTP/1.1\r\n\r\n").status == 400);
  CHECK(err("GET http://127.1/ HTTP/1.1\r\n\r\n").reason.find("looks like an IP") != std::string::npos);
}

TEST_CASE("net http: bounded", "[net]") {
  HttpLimits lim;
  std::string big = "GET http://a.example/ HTTP/1.1\r\nX: " + std::string(1 << 20, 'a');
  CHECK(err(big, lim).status == 431);           // 1 MiB with no end: refused, not buffered on
  CHECK(err(big + "\r\n\r\n", lim).status == 431);
  std::string many = "GET http://a.example/ HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  CHECK(err(many + "\r\n").status == 431);
  CHECK(std::holds_alternative<NeedMore>(parse_http_head(std::string(lim.max_head - 1, 'G'))));
  CHECK(std::holds_alternative<HttpError>(parse_http_head(std::string(lim.max_head, 'G'))));
}

TEST_CASE("net http: every split point needs more until the head is complete", "[net]") {
  std::string in = "GET http://a.example/p HTTP/1.1\r\nHost: a.example\r\nAccept: x\r\n\r\nBODY";
  size_t end = in.find("\r\n\r\n") + 4;
  for (size_t i = 0; i < in.size(); ++i) {
    auto r = parse_http_head(std::string_view(in).substr(0, i));
    INFO(i);
    if (i < end) CHECK(std::holds_alternative<NeedMore>(r));
    else CHECK(std::get<HttpRequest>(r).head_len == end);
  }
}

TEST_CASE("net http: refusal response", "[net]") {
  std::string r = http_response(403, "blaude: evil.example:443 is not allowed; allow with --allow-domain evil.example:443",
                                "blocked-by-allowlist");
  CHECK(r.starts_with("HTTP/1.1 403 Forbidden\r\n"));
  CHECK(r.find("X-Proxy-Error: blocked-by-allowlist\r\n") != std::string::npos);
  CHECK(r.find("Connection: close\r\n") != std::string::npos);
  std::string body = r.substr(r.find("\r\n\r\n") + 4);
  CHECK(body == "blaude: evil.example:443 is not allowed; allow with --allow-domain evil.example:443\n");
  CHECK(r.find("Content-Length: " + std::to_string(body.size()) + "\r\n") != std::string::npos);
}
