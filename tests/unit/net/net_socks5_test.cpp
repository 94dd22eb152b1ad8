// SOCKS5 greeting and CONNECT parsing, every split; the refusal tally and its summary line.
#include <string>

#include "catch.hpp"
#include "net/refusals.hpp"
#include "net/socks5.hpp"

using namespace blaude::net;
namespace s5 = blaude::net::socks5;

namespace {
std::string bytes(std::initializer_list<int> v) {
  std::string s;
  for (int b : v) s.push_back(char(b));
  return s;
}
}  // namespace

TEST_CASE("net socks5: greeting", "[net]") {
  auto g = std::get<s5::Greeting>(s5::parse_greeting(bytes({5, 2, 2, 0})));
  CHECK(g.no_auth);
  CHECK(g.consumed == 4);
  CHECK_FALSE(std::get<s5::Greeting>(s5::parse_greeting(bytes({5, 1, 2}))).no_auth);
  CHECK(std::holds_alternative<NeedMore>(s5::parse_greeting(bytes({5, 2, 0}))));
  CHECK(std::holds_alternative<s5::Error>(s5::parse_greeting(bytes({4, 1, 0}))));
  CHECK(std::holds_alternative<s5::Error>(s5::parse_greeting(bytes({5, 0}))));
  CHECK(s5::method_reply(true) == bytes({5, 0}));
  CHECK(s5::method_reply(false) == bytes({5, 0xff}));
}

TEST_CASE("net socks5: CONNECT by name, IPv4, IPv6", "[net]") {
  std::string name = bytes({5, 1, 0, 3, 11}) + "Example.COM" + bytes({1, 187});
  auto r = std::get<s5::Request>(s5::parse_request(name + "tail"));
  CHECK(r.dest.host.name == "example.com");
  CHECK(r.dest.port == 443);
  CHECK(r.consumed == name.size());
  for (size_t i = 0; i < name.size(); ++i)
    CHECK(std::holds_alternative<NeedMore>(s5::parse_request(name.substr(0, i))));

  auto v4 = std::get<s5::Request>(s5::parse_request(bytes({5, 1, 0, 1, 10, 0, 0, 5, 0, 22})));
  CHECK(destination_text(v4.dest.host, v4.dest.port) == "10.0.0.5:22");
  auto v6 = std::get<s5::Request>(s5::parse_request(bytes({5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x1f, 0x90})));
  CHECK(destination_text(v6.dest.host, v6.dest.port) == "[::1]:8080");
  // A name that is an address literal is that address.
  auto lit = std::get<s5::Request>(s5::parse_request(bytes({5, 1, 0, 3, 9}) + "127.0.0.1" + bytes({0, 80})));
  CHECK(lit.dest.host.is_ip());
}

TEST_CASE("net socks5: refusals carry their reply code", "[net]") {
  auto code = [](const std::string& in) { return std::get<s5::Error>(s5::parse_request(in)).reply; };
  CHECK(code(bytes({5, 2, 0, 1, 1, 2, 3, 4, 0, 80})) == s5::kCommandNotSupported);  // BIND
  CHECK(code(bytes({5, 3, 0, 1, 1, 2, 3, 4, 0, 80})) == s5::kCommandNotSupported);  // UDP
  CHECK(code(bytes({5, 1, 0, 9, 1, 2, 3, 4, 0, 80})) == s5::kAddressTypeNotSupported);
  CHECK(code(bytes({5, 1, 1, 1, 1, 2, 3, 4, 0, 80})) == s5::kGeneralFailure);
  CHECK(code(bytes({5, 1, 0, 3, 0, 0, 80})) == s5::kGeneralFailure);
  CHECK(code(bytes({5, 1, 0, 3, 3}) + "a b" + bytes({0, 80})) == s5::kGeneralFailure);
  CHECK(code(bytes({5, 1, 0, 1, 1, 2, 3, 4, 0, 0})) == s5::kGeneralFailure);
  CHECK(s5::reply(s5::kNotAllowed) == bytes({5, 2, 0, 1, 0, 0, 0, 0, 0, 0}));
}

TEST_CASE("net refusals: the summary line", "[net]") {
  RefusalTally t;
  CHECK(t.summary_line().empty());
  t.add("10.0.0.5:22");
  CHECK(t.summary_line() == "blaude: refused 1 connection: 10.0.0.5:22; allow with --allow-domain");
  t.add("evil.example:443");
  t.add("evil.example:443");
  CHECK(t.summary_line() == "blaude: refused 3 connections: evil.example:443 (2), 10.0.0.5:22; allow with --allow-domain");
  for (int i = 0; i < 10; ++i) t.add("h" + std::to_string(i) + ".example:80");
  CHECK(t.summary_line().find(", and 7 more destinations; allow") != std::string::npos);
  RefusalTally big;
  for (size_t i = 0; i < RefusalTally::kMaxDistinct + 50; ++i) big.add("h" + std::to_string(i) + ":1");
  CHECK(big.total() == RefusalTally::kMaxDistinct + 50);
  CHECK(big.summary_line().find("and more destinations") != std::string::npos);
}
