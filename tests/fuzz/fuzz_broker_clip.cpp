// libFuzzer: the clipboard service's parsers (common/clip_wire.hpp) over a stand-in's stream, and
// the decision table (broker/clip_service.hpp) over what they accept. Invariants: a frame never
// claims more than the input or the bound; a parsed request re-encodes to its body exactly;
// its type is bounded and of the allowed characters; a copy's data is within its type's bound;
// a read is never allowed without an open window (or the text policy), and at most once per
// window; a parsed reply re-encodes exactly.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "broker/clip_service.hpp"
#include "broker/frame.hpp"
#include "common/clip_wire.hpp"

using namespace blaude;
using namespace blaude::broker::clipboard;

namespace {
[[noreturn]] void die(const char* why) {
  std::fprintf(stderr, "clipboard invariant violated: %s\n", why);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  ClipConfig cfg;
  cfg.gate = std::make_shared<PasteGate>(2000);
  ClipConfig closed = cfg;
  closed.gate = std::make_shared<PasteGate>(2000);
  uint64_t now = 10'000;
  bool window = false;
  if (size > 0 && (data[0] & 1)) {
    cfg.gate->open(now);
    window = true;
  }
  for (int n = 0; n < 64; ++n) {
    auto f = broker::next_frame(in, uint32_t(clip::kMaxBody));
    if (!std::holds_alternative<broker::Frame>(f)) break;
    const broker::Frame fr = std::get<broker::Frame>(f);
    if (fr.consumed > in.size() || fr.body.size() > clip::kMaxBody || fr.consumed != fr.body.size() + 4) die("frame");
    std::string why;
    if (auto r = clip::parse_request(fr.body, why)) {
      if (clip::encode(*r) != fr.body) die("round trip");
      if (r->type.size() > clip::kMaxType) die("type length");
      if (r->op != clip::Op::Copy && !r->data.empty()) die("data on a read");
      if (r->data.size() > clip::kMaxImage) die("data bound");
      if (clip::kind_of(r->type) == clip::Kind::Text && r->data.size() > clip::kMaxText) die("text bound");
      Decision d = decide(*r, cfg, now);
      if (d.allow != d.why.empty()) die("a decision with and without a reason");
      if (r->op == clip::Op::Paste && d.allow) {
        if (!window) die("a read without a window");
        window = false;
      }
      if (r->op != clip::Op::Copy && decide(*r, closed, now).allow) die("a read with the window closed");
    } else if (why.empty()) {
      die("refused without a reason");
    }
    if (auto rep = clip::parse_reply(fr.body))
      if (clip::encode(*rep) != fr.body) die("reply round trip");
    in.remove_prefix(fr.consumed);
    now += 500;
  }
  return 0;
}
