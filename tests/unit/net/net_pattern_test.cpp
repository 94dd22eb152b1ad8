// The allow-domain PATTERN language and the host grammar under it: what parses, to what, and
// the message for what does not.
#include <string>
#include <vector>

#include "catch.hpp"
#include "net/address.hpp"
#include "net/host.hpp"
#include "net/pattern.hpp"

using namespace blaude::net;

namespace {

Pattern ok(const std::string& s) {
  auto r = parse_pattern(s);
  INFO(s);
  REQUIRE(std::holds_alternative<Pattern>(r));
  return std::get<Pattern>(r);
}

PatternError bad(const std::string& s) {
  auto r = parse_pattern(s);
  INFO(s);
  REQUIRE(std::holds_alternative<PatternError>(r));
  return std::get<PatternError>(r);
}

}  // namespace

TEST_CASE("net pattern: the five forms", "[net]") {
  Pattern e = ok("Example.COM.");
  CHECK(e.kind == Pattern::Kind::Exact);
  CHECK(e.name == "example.com");
  CHECK_FALSE(e.port);
  CHECK(e.text() == "example.com");

  Pattern s = ok("*.example.com:8443");
  CHECK(s.kind == Pattern::Kind::Subdomains);
  CHECK(s.name == "example.com");
  CHECK(*s.port == 8443);
  CHECK(s.text() == "*.example.com:8443");

  Pattern v4 = ok("10.0.0.5:22");
  CHECK(v4.kind == Pattern::Kind::Ip);
  CHECK(format_address(*v4.ip) == "10.0.0.5");
  CHECK(*v4.port == 22);

  Pattern v6 = ok("[::1]:8080");
  CHECK(v6.kind == Pattern::Kind::Ip);
  CHECK_FALSE(v6.ip->v4());
  CHECK(v6.text() == "[::1]:8080");
  CHECK(ok("[2001:DB8:0:0::1]").text() == "[2001:db8::1]");

  CHECK(ok("*").kind == Pattern::Kind::Any);
  CHECK(*ok("*:443").port == 443);
  CHECK(ok("localhost:3000").text() == "localhost:3000");
}

TEST_CASE("net pattern: text() parses back to the same pattern", "[net]") {
  for (const char* s : {"example.com", "*.a.example.com:1", "1.2.3.4", "[fe80::1]:65535", "*", "*:22", "x_y.example"}) {
    Pattern p = ok(s);
    CHECK(ok(p.text()) == p);
  }
}

TEST_CASE("net pattern: refusals say what is wrong and what to write", "[net]") {
  auto url = bad("https://example.com/x");
  CHECK(url.what == "it is a URL, not a host");
  CHECK(url.hint == "drop the scheme: write example.com");
  CHECK(bad("example.com/path").what == "it contains a path");
  CHECK(bad("user@example.com").what == "it contains '@'");
  CHECK(bad("").what == "it is empty");
  CHECK(bad("exa mple.com").what.find("space") != std::string::npos);
  auto v6 = bad("2001:db8::1:443");
  CHECK(v6.what == "an IPv6 address needs brackets");
  CHECK(v6.hint.find("[2001:db8::1:443]") != std::string::npos);
  CHECK(bad("example.com:0").what.find("1 to 65535") != std::string::npos);
  CHECK(bad("example.com:65536").what.find("1 to 65535") != std::string::npos);
  CHECK(bad("example.com:08").what.find("1 to 65535") != std::string::npos);
  CHECK(bad("*.com").what == "*.com covers a whole top-level domain");
  CHECK(bad("foo.*.com").what.find("'*'") != std::string::npos);
  CHECK(bad("*example.com").what.find("'*'") != std::string::npos);
  CHECK(bad("*.10.0.0.1").what.find("IP address") != std::string::npos);
  CHECK(bad("-bad.example").what.find("'-'") != std::string::npos);
  CHECK(bad("a..b").what.find("empty label") != std::string::npos);
  CHECK(bad("ex\xc3\xa4mple.com").what.find("xn--") != std::string::npos);
  CHECK(bad("[::1").what.find("']'") != std::string::npos);
  CHECK(bad("[1.2.3.4]").what.find("IPv6") != std::string::npos);
  for (const char* s : {"127.1", "0x7f.0.0.1", "2130706433", "1.2.3.04", "01.2.3.4"})
    CHECK(bad(s).what.find("looks like an IP address") != std::string::npos);
  CHECK(bad(std::string(64, 'a') + ".com").what.find("63") != std::string::npos);
}

TEST_CASE("net host: authorities as clients spell them", "[net]") {
  auto a = std::get<Authority>(parse_authority("API.example.com.:443", true));
  CHECK(a.host.name == "api.example.com");
  CHECK(a.port == 443);
  auto b = std::get<Authority>(parse_authority("[::ffff:127.0.0.1]:80", true));
  CHECK(b.host.is_ip());
  CHECK(destination_text(b.host, b.port) == "[::ffff:127.0.0.1]:80");
  CHECK(std::holds_alternative<HostError>(parse_authority("example.com", true)));
  CHECK(std::get<Authority>(parse_authority("example.com", false)).port == 0);
  CHECK(std::holds_alternative<HostError>(parse_authority("::1:80", true)));
  CHECK(std::holds_alternative<HostError>(parse_authority("[::1]x", true)));
  CHECK(std::holds_alternative<HostError>(parse_authority("a:-1", true)));
  auto url = parse_authority("https://example.com:443", true);
  REQUIRE(std::holds_alternative<HostError>(url));
  CHECK(std::get<HostError>(url).what.find("a URL where HOST:PORT belongs") != std::string::npos);
}

TEST_CASE("net address: classes", "[net]") {
  auto cls = [](const char* s) {
    auto a = parse_address(s);
    INFO(s);
    REQUIRE(a);
    return classify(*a);
  };
  CHECK(cls("127.0.0.1") == AddressClass::Loopback);
  CHECK(cls("127.255.0.9") == AddressClass::Loopback);
  CHECK(cls("::1") == AddressClass::Loopback);
  CHECK(cls("::ffff:127.0.0.1") == AddressClass::Loopback);
  CHECK(cls("::127.0.0.1") == AddressClass::Loopback);
  CHECK(cls("64:ff9b::7f00:1") == AddressClass::Loopback);
  CHECK(cls("169.254.169.254") == AddressClass::Metadata);
  CHECK(cls("169.254.170.2") == AddressClass::Metadata);
  CHECK(cls("100.100.100.200") == AddressClass::Metadata);
  CHECK(cls("fd00:ec2::254") == AddressClass::Metadata);
  CHECK(cls("::ffff:169.254.169.254") == AddressClass::Metadata);
  CHECK(cls("169.254.1.1") == AddressClass::LinkLocal);
  CHECK(cls("fe80::1") == AddressClass::LinkLocal);
  CHECK(cls("febf::1") == AddressClass::LinkLocal);
  CHECK(cls("0.0.0.0") == AddressClass::Unspecified);
  CHECK(cls("::") == AddressClass::Unspecified);
  CHECK(cls("224.0.0.1") == AddressClass::Multicast);
  CHECK(cls("255.255.255.255") == AddressClass::Multicast);
  CHECK(cls("ff02::1") == AddressClass::Multicast);
  CHECK(cls("240.0.0.1") == AddressClass::Reserved);
  CHECK(cls("10.0.0.5") == AddressClass::Private);
  CHECK(cls("172.16.0.1") == AddressClass::Private);
  CHECK(cls("172.31.255.255") == AddressClass::Private);
  CHECK(cls("172.32.0.1") == AddressClass::Public);
  CHECK(cls("192.168.1.1") == AddressClass::Private);
  CHECK(cls("100.64.0.1") == AddressClass::Private);
  CHECK(cls("100.128.0.1") == AddressClass::Public);
  CHECK(cls("fd00::1") == AddressClass::Private);
  CHECK(cls("8.8.8.8") == AddressClass::Public);
  CHECK(cls("2606:4700::1111") == AddressClass::Public);
  // The special-use ranges (RFC 6890): protocol assignments, benchmarking, documentation.
  for (const char* a : {"192.0.0.8", "192.0.2.2", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9",
                        "2001:db8::1"})
    CHECK(cls(a) == AddressClass::Reserved);
  for (const char* a : {"192.0.1.1", "198.17.255.255", "198.20.0.1", "198.51.101.1", "203.0.114.1", "2001:db9::1"})
    CHECK(cls(a) == AddressClass::Public);
  CHECK(cls("64:ff9b:1::a00:1") == AddressClass::Private);  // local-use NAT64
  CHECK_FALSE(parse_address("1.2.3"));
  CHECK_FALSE(parse_address("::1%lo"));
  CHECK_FALSE(parse_address("1.2.3.4.5"));
}
