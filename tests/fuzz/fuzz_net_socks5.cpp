// libFuzzer: SOCKS5 greeting and request parsing. Invariants: consumed never exceeds the input,
// an accepted request has a host and a port, and a prefix of an accepted message needs more.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "net/socks5.hpp"

using namespace blaude::net;
namespace s5 = blaude::net::socks5;

namespace {
[[noreturn]] void die(const char* why) {
  std::fprintf(stderr, "socks5 invariant violated: %s\n", why);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto g = s5::parse_greeting(in);
  if (auto* gr = std::get_if<s5::Greeting>(&g)) {
    if (gr->consumed > size || gr->consumed < 3) die("greeting consumed");
    if (!std::holds_alternative<NeedMore>(s5::parse_greeting(in.substr(0, gr->consumed - 1)))) die("greeting prefix");
    in.remove_prefix(gr->consumed);
  }
  auto r = s5::parse_request(in);
  if (auto* rq = std::get_if<s5::Request>(&r)) {
    if (rq->consumed > in.size() || rq->consumed < 8) die("request consumed");
    if (rq->dest.port == 0 || rq->dest.host.name.empty()) die("destination");
    for (size_t i = 0; i < rq->consumed; ++i)
      if (!std::holds_alternative<NeedMore>(s5::parse_request(in.substr(0, i)))) die("request prefix");
  }
  return 0;
}
