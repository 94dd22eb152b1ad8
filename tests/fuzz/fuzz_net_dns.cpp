// libFuzzer: transparent capture's DNS query parser. Invariants: an accepted query has a name of
// at most 253 lower-case characters from the allowed set, and its answer parses back as a
// response (never as a query); an answerable error encodes to a 12-byte header with its id.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "net/dns.hpp"

namespace d = blaude::net::dns;

namespace {
[[noreturn]] void die(const char* why) {
  std::fprintf(stderr, "dns invariant violated: %s\n", why);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto r = d::parse_query(in);
  if (auto* q = std::get_if<d::Query>(&r)) {
    if (q->name.size() > 253) die("name length");
    for (char c : q->name)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) die("name byte");
    std::string a = d::encode_answer(*q, d::kNoError, 0xC6120002u);
    if (a.size() > d::kMaxMessage) die("answer size");
    auto back = d::parse_query(a);
    auto* e = std::get_if<d::Error>(&back);
    if (!e || e->answerable) die("an answer parsed as a query");
  } else {
    const auto& e = std::get<d::Error>(r);
    if (e.answerable && d::encode_error(e).size() != 12) die("error size");
  }
  return 0;
}
