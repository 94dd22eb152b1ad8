#include "broker/clip_service.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <mutex>
#include <vector>

#include "common/shown.hpp"

namespace blaude::broker::clipboard {

using clip::Kind;
using clip::Op;

uint64_t now_ms() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count()) +
         1;  // never 0, which means closed
}

void PasteGate::open(uint64_t now) { opened_.store(now); }

bool PasteGate::is_open(uint64_t now) const {
  const uint64_t t = opened_.load();
  return t != 0 && now >= t && now - t <= window_ms_;
}

bool PasteGate::take_read(uint64_t now) {
  uint64_t t = opened_.load();
  if (t == 0 || now < t || now - t > window_ms_) return false;
  // Only one read wins the window, whichever thread asks.
  return opened_.compare_exchange_strong(t, 0);
}

bool PasteKeys::feed(std::string_view bytes) {
  static constexpr std::string_view kStart = "\x1b[200~";
  bool found = false;
  for (char c : bytes) {
    if (c == '\x16') found = true;
    if (c == kStart[matched_]) {
      if (++matched_ == kStart.size()) {
        found = true;
        matched_ = 0;
      }
    } else {
      matched_ = c == kStart[0] ? 1 : 0;
    }
  }
  return found;
}

namespace {

const char* op_name(Op op) { return op == Op::Copy ? "copy" : op == Op::Paste ? "read" : "type list"; }

std::string what_of(const clip::Request& r) {
  std::string s = op_name(r.op);
  if (r.op != Op::Types) s += " of " + (r.type.empty() ? std::string("text") : r.type);
  if (r.sel == clip::Sel::Primary) s += " (PRIMARY)";
  return s;
}

}  // namespace

Decision decide(const clip::Request& r, const ClipConfig& cfg, uint64_t now) {
  const Kind kind = clip::kind_of(r.type);
  if (r.op == Op::Copy) {
    if (!cfg.copy_off.empty()) return {false, "copying to the host clipboard is off: " + cfg.copy_off};
    if (kind == Kind::Other) return {false, "only text and image/png are copied to the host clipboard"};
    if (r.data.empty()) return {false, "nothing to copy (empty input)"};
    if (kind == Kind::Png && !clip::looks_like_png(r.data)) return {false, "the image/png data is not a PNG file"};
    return {true, ""};
  }
  if (cfg.paste == PastePolicy::Off)
    return {false, "reading the host clipboard is off (" +
                       (cfg.paste_origin.empty() ? std::string("policy") : cfg.paste_origin) + ": clipboard-paste off)"};
  if (r.op == Op::Paste && kind == Kind::Other) return {false, "only text and image/png are read from the host clipboard"};
  if (cfg.paste == PastePolicy::TextAlways && r.op == Op::Paste && kind == Kind::Text) return {true, ""};
  const std::string hint = "blaude answers a read of the host clipboard only right after you press Ctrl+V (or paste) "
                           "in its terminal: one read within " +
                           std::to_string(cfg.gate ? cfg.gate->window_ms() / 1000.0 : 0).substr(0, 3) + " s";
  if (!cfg.gate) return {false, "reading the host clipboard needs blaude's terminal (pipes mode copies only)"};
  if (r.op == Op::Types) {
    if (cfg.gate->is_open(now)) return {true, ""};
    return {false, "refused: " + hint};
  }
  if (cfg.gate->take_read(now)) return {true, ""};
  return {false, "refused: " + hint};
}

namespace {

struct Counts {
  std::mutex mu;
  std::map<std::string, uint64_t> copied;   // type → copies
  uint64_t copied_bytes = 0;
  std::map<std::string, uint64_t> answered;  // what → reads
  std::map<std::string, uint64_t> refused;   // what: why → count
};

class ClipConversation : public Conversation {
public:
  ClipConversation(const ClipConfig& cfg, Counts& counts) : cfg_(cfg), counts_(counts) {}

  std::optional<std::string> answer(std::string_view body) override {
    std::string why;
    auto req = clip::parse_request(body, why);
    if (!req) {
      spdlog::warn("broker: clipboard: a malformed request ({}); closed", why);
      return std::nullopt;
    }
    const Kind kind = clip::kind_of(req->type);
    const std::string what = what_of(*req);
    Decision d = decide(*req, cfg_, now_ms());
    clip::Reply reply;
    if (d.allow) {
      if (req->op == Op::Copy) {
        const size_t n = req->data.size();
        std::string err = cfg_.host->copy(req->sel, kind, req->type, std::move(req->data));
        if (err.empty()) {
          reply.ok = true;
          spdlog::info("broker: clipboard: {} ({} bytes) to the host clipboard", shown(what), n);
          std::lock_guard lk(counts_.mu);
          ++counts_.copied[kind == Kind::Png ? "image/png" : "text"];
          counts_.copied_bytes += n;
        } else {
          d = {false, err};
        }
      } else {
        ClipHost::Read got = req->op == Op::Types ? cfg_.host->types(req->sel) : cfg_.host->read(req->sel, kind, req->type);
        if (got.ok) {
          reply = {true, std::move(got.data)};
          spdlog::info("broker: clipboard: {} answered ({} bytes)", shown(what), reply.data.size());
          std::lock_guard lk(counts_.mu);
          ++counts_.answered[what];
        } else {
          d = {false, got.data};
        }
      }
    }
    if (!reply.ok) {
      spdlog::info("broker: clipboard: {} refused: {}", shown(what), shown(d.why));
      reply.data = shown(d.why);
      std::lock_guard lk(counts_.mu);
      ++counts_.refused[what + ": " + d.why];
    }
    return clip::encode(reply);
  }

private:
  const ClipConfig& cfg_;
  Counts& counts_;
};

class ClipService : public Service {
public:
  explicit ClipService(ClipConfig cfg) : cfg_(std::move(cfg)) {}
  std::string name() const override { return clip::kSocketName; }
  uint32_t max_message() const override { return uint32_t(clip::kMaxBody); }
  std::unique_ptr<Conversation> open() override { return std::make_unique<ClipConversation>(cfg_, counts_); }
  void attach(uv_loop_s* loop) override {
    if (cfg_.host) cfg_.host->attach(loop);
  }
  std::vector<std::string> summary() const override {
    std::vector<std::string> out;
    std::lock_guard lk(counts_.mu);
    uint64_t copies = 0, reads = 0, refused = 0;
    for (auto& [k, n] : counts_.copied) copies += n;
    for (auto& [k, n] : counts_.answered) reads += n;
    for (auto& [k, n] : counts_.refused) refused += n;
    if (copies) {
      std::string l = "blaude: the clipboard stand-ins copied " + std::to_string(copies) + " time(s) to the host clipboard (";
      bool first = true;
      for (auto& [k, n] : counts_.copied) {
        l += (first ? "" : ", ") + std::to_string(n) + " " + k;
        first = false;
      }
      out.push_back(l + ", " + std::to_string(counts_.copied_bytes) + " bytes)");
    }
    if (reads) {
      out.push_back("blaude: the clipboard stand-ins read the host clipboard " + std::to_string(reads) +
                    " time(s), each right after your paste key:");
      for (auto& [k, n] : counts_.answered) out.push_back("  " + std::to_string(n) + " x " + k);
    }
    if (refused) {
      out.push_back("blaude: the clipboard stand-ins were refused " + std::to_string(refused) + " time(s):");
      for (auto& [k, n] : counts_.refused) out.push_back("  " + std::to_string(n) + " x " + shown(k));
    }
    return out;
  }

private:
  ClipConfig cfg_;
  mutable Counts counts_;
};

}  // namespace

std::unique_ptr<Service> make_clip_service(ClipConfig cfg) { return std::make_unique<ClipService>(std::move(cfg)); }

}  // namespace blaude::broker::clipboard
