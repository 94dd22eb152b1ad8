// Transparent capture's DNS: the query parser (strict, every refusal answerable or dropped as it
// should), the answers it encodes (read back as a resolver reads them), and the address map.
#include <string>

#include "catch.hpp"
#include "net/dns.hpp"

using namespace blaude::net;
namespace d = blaude::net::dns;

namespace {

std::string qname(const std::string& dotted) {
  std::string out;
  size_t at = 0;
  while (at < dotted.size()) {
    size_t dot = dotted.find('.', at);
    if (dot == std::string::npos) dot = dotted.size();
    out.push_back(char(dot - at));
    out += dotted.substr(at, dot - at);
    at = dot + 1;
  }
  out.push_back('\0');
  return out;
}

// A query as glibc sends it: id, RD, one question, optionally an EDNS record after it.
std::string query(const std::string& name, uint16_t type, uint16_t ar = 0, const std::string& wire_name = "") {
  std::string q{'\x12', '\x34', '\x01', '\x00', 0, 1, 0, 0, 0, 0, 0, char(ar)};
  q += wire_name.empty() ? qname(name) : wire_name;
  q += {char(type >> 8), char(type & 0xff), 0, 1};
  if (ar) q += std::string{0, 0, 41, 4, (char)0xd0, 0, 0, 0, 0, 0, 0};
  return q;
}

}  // namespace

TEST_CASE("net dns: a query is parsed, lower-cased", "[net][dns]") {
  auto q = std::get<d::Query>(d::parse_query(query("GitHub.COM", d::kTypeA)));
  CHECK(q.id == 0x1234);
  CHECK(q.recursion_desired);
  CHECK(q.name == "github.com");
  CHECK(q.type == d::kTypeA);
  CHECK(q.klass == d::kClassIN);
  CHECK(std::get<d::Query>(d::parse_query(query("a_b-c.example", d::kTypeAAAA, 1))).type == d::kTypeAAAA);
  CHECK(std::get<d::Query>(d::parse_query(query("", d::kTypeA))).name.empty());
}

TEST_CASE("net dns: malformed queries are refused, answerable or not", "[net][dns]") {
  auto err = [](const std::string& in) { return std::get<d::Error>(d::parse_query(in)); };
  CHECK_FALSE(err("short").answerable);
  std::string resp = query("a.b", d::kTypeA);
  resp[2] = char(0x81);
  CHECK_FALSE(err(resp).answerable);  // a response: never answered
  std::string op = query("a.b", d::kTypeA);
  op[2] = char(0x01 | (2 << 3));
  CHECK(err(op).rcode == d::kNotImp);
  std::string two = query("a.b", d::kTypeA);
  two[5] = 2;
  CHECK(err(two).rcode == d::kFormErr);
  CHECK(err(two).answerable);
  CHECK(err(two).id == 0x1234);
  // A compression pointer, a label running past the end, bad bytes, trailing bytes.
  CHECK(err(query("", d::kTypeA, 0, std::string("\xc0\x0c", 2))).reason.find("compressed") != std::string::npos);
  CHECK(err(query("", d::kTypeA, 0, std::string("\x3f" "abc", 4))).answerable);
  CHECK(err(query("a b.c", d::kTypeA)).reason.find("letter") != std::string::npos);
  CHECK(err(query("a\n.c", d::kTypeA)).answerable);
  CHECK(err(query("a.c", d::kTypeA) + "x").reason == "bytes after the question");
  CHECK(err(std::string(600, 'a').replace(2, 2, std::string(2, '\0'))).reason.find("longer") != std::string::npos);
  // 253 characters are a name; 255 are not.
  std::string l63(63, 'a'), name253 = l63 + "." + l63 + "." + l63 + "." + std::string(61, 'b');
  CHECK(std::holds_alternative<d::Query>(d::parse_query(query(name253, d::kTypeA))));
  CHECK(err(query(name253 + "cd", d::kTypeA)).reason.find("253") != std::string::npos);
  CHECK(err(query("a.b", d::kTypeA).substr(0, 18)).reason.find("type") != std::string::npos);
  // Truncated in the header: drop; truncated in the question: FORMERR.
  for (size_t n = 0; n < query("ab.cd", d::kTypeA).size(); ++n)
    CHECK(std::holds_alternative<d::Error>(d::parse_query(query("ab.cd", d::kTypeA).substr(0, n))));
}

TEST_CASE("net dns: answers read back as a resolver reads them", "[net][dns]") {
  auto q = std::get<d::Query>(d::parse_query(query("api.example.com", d::kTypeA)));
  std::string a = d::encode_answer(q, d::kNoError, 0xC6120002u, 60);
  const std::string qsec = qname("api.example.com") + std::string{0, 1, 0, 1};
  std::string want{'\x12', '\x34', (char)0x85, (char)0x80, 0, 1, 0, 1, 0, 0, 0, 0};
  want += qsec;
  want += std::string{(char)0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, (char)198, 18, 0, 2};
  CHECK(a == want);
  // No data (AAAA), NXDOMAIN: the question only.
  auto q6 = std::get<d::Query>(d::parse_query(query("api.example.com", d::kTypeAAAA)));
  std::string nodata = d::encode_answer(q6, d::kNoError);
  CHECK(nodata.size() == 12 + qsec.size());
  CHECK(nodata[7] == 0);
  CHECK((nodata[3] & 0x0f) == 0);
  CHECK((d::encode_answer(q, d::kNxDomain)[3] & 0x0f) == d::kNxDomain);
  // An error answer has no question; its id and rcode are the query's.
  auto e = std::get<d::Error>(d::parse_query(query("a.b", d::kTypeA) + "x"));
  std::string ea = d::encode_error(e);
  CHECK(ea.size() == 12);
  CHECK(ea.substr(0, 2) == "\x12\x34");
  CHECK((ea[3] & 0x0f) == d::kFormErr);
  CHECK(ea[5] == 0);
}

TEST_CASE("net dns: the address map", "[net][dns]") {
  d::AddressMap m(3);
  auto a = m.assign("a.example");
  REQUIRE(a);
  CHECK(*a == 0xC6120002u);  // 198.18.0.2
  CHECK(m.assign("a.example") == a);
  auto b = m.assign("b.example");
  CHECK(*b == 0xC6120003u);
  CHECK(*m.name_of(*a) == "a.example");
  CHECK(*m.name_of(*b) == "b.example");
  CHECK(m.name_of(0xC6120004u) == nullptr);  // in the range, never given
  CHECK(m.name_of(0xC6120001u) == nullptr);
  CHECK(m.name_of(0x7f000001u) == nullptr);  // outside it
  CHECK(d::AddressMap::in_range(0xC613ffffu));
  CHECK_FALSE(d::AddressMap::in_range(0xC6140000u));
  CHECK(m.assign("c.example"));
  CHECK_FALSE(m.assign("d.example"));  // full: refused, the others kept
  CHECK(m.assign("a.example") == a);
  CHECK(m.size() == 3);
}
