// libFuzzer: the signing-only agent's parsers (broker/agent_proto.hpp) over a client's stream and
// over the real agent's identities answer. Invariants: a frame never claims more than the input
// or more than kMaxMessage; a parsed sign request's fields lie inside its body; a refused or
// forwarded decision never needs the agent's list twice; re-encoding parsed identities gives
// the same body back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "broker/agent_policy.hpp"
#include "broker/agent_proto.hpp"

using namespace blaude::broker;
using namespace blaude::broker::agent;

namespace {
[[noreturn]] void die(const char* why) {
  std::fprintf(stderr, "agent invariant violated: %s\n", why);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  AgentPolicy p;
  p.keys.push_back({"SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU", "", "fuzz"});
  p.keys.push_back({"", "work", "fuzz"});
  for (int n = 0; n < 64; ++n) {
    auto f = next_frame(in);
    if (!std::holds_alternative<Frame>(f)) break;
    const Frame fr = std::get<Frame>(f);
    if (fr.consumed > in.size() || fr.body.size() > kMaxMessage || fr.consumed != fr.body.size() + 4) die("frame");
    auto r = parse_request(fr.body);
    if (auto* q = std::get_if<Request>(&r)) {
      if (q->key_blob.size() + q->data.size() > fr.body.size()) die("fields");
      Decision d = decide(p, *q);
      if (d.verdict == Verdict::NeedIdentities) {
        std::vector<Identity> none;
        if (decide(p, *q, &none).verdict == Verdict::NeedIdentities) die("decided twice");
      }
      (void)signed_for(q->data);
    }
    auto ids = parse_identities(fr.body);
    if (auto* v = std::get_if<std::vector<Identity>>(&ids)) {
      if (v->size() > kMaxIdentities) die("count");
      if (identities_answer(*v) != fr.body) die("round trip");
    }
    in.remove_prefix(fr.consumed);
  }
  return 0;
}
