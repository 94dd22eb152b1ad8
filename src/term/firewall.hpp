// The terminal firewall: what of the child's output may reach the user's terminal, judged one
// token of the lexer at a time by the table in docs/escape-firewall.md. An allowlist: text and
// the sequences known to be harmless pass; reports that can echo attacker bytes or the screen,
// action channels on the host, unknown OSC numbers, unknown DCS and APC, PM, SOS, the 8-bit C1
// forms and anything broken, over-long or malformed are dropped whole. OSC 52 is the clipboard
// code's (reported, then passed or dropped by its mode); tmux's passthrough is unwrapped and its
// inner sequences judged by the same table. Pure: no I/O, the clock passed in.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "term/lexer.hpp"
#include "term/tracker.hpp"

namespace blaude::term {

enum class Verdict : uint8_t { Pass, Drop, Clipboard };

struct Judgement {
  Verdict verdict = Verdict::Pass;
  const char* rule = "";  // for the log: which row of the table (a fixed string)
};

// One token. An OSC 52 (bare or in tmux's passthrough) is Verdict::Clipboard.
Judgement judge(const Token& t);

// tmux's passthrough payload with its doubled ESCs made single: the bytes tmux would pass on.
std::string tmux_inner(const Token& t);

// What the clipboard code gets of an OSC 52: its body (`52;Pc;Pd`, no terminator) and how it
// was wrapped.
struct Osc52 {
  std::string body;
  bool tmux = false;
  bool has_data = false;      // a Pd is there (a sequence without one is never passed)
  bool read_request = false;  // Pd starts with `?`, or no Pd and a `?` in Pc
};
// The OSC 52 a Clipboard token holds (in tmux's passthrough: the first one inside).
Osc52 osc52_of(const Token& t);

struct Dropped {
  const char* rule;
  std::string head;  // the sequence's first bytes, raw (the caller shows them sanitized)
};

enum class ClipboardMode : uint8_t { Intercept, PassWrites };

// The streaming stage: lexer + judge. Bytes that pass are appended to `out` unchanged; OSC 52s
// go to `clips` (and to `out` too when the mode passes them: writes in PassWrites mode).
class Firewall {
public:
  explicit Firewall(ClipboardMode mode = ClipboardMode::PassWrites, LexerLimits lim = {});

  void feed(std::string_view in, uint64_t now_ms, std::string& out, std::vector<Osc52>& clips);
  // The zero-copy path: judges all of `in` and returns how many leading bytes go out as they
  // are; what follows them is kept, and the next call of feed() (which must be given exactly
  // the rest of `in`) appends it to its output without lexing it again.
  size_t pass(std::string_view in, uint64_t now_ms, std::vector<Osc52>& clips);
  void tick(uint64_t now_ms, std::string& out, std::vector<Osc52>& clips);
  int64_t next_deadline_ms() const { return lexer_.next_deadline_ms(); }
  void finish(std::string& out, std::vector<Osc52>& clips);
  bool idle() const { return lexer_.idle(); }
  // Every token that passes (and an OSC 52 passed in PassWrites mode) is shown to `t` as it is
  // judged, with the lexer's windows: the tracker follows what the terminal is shown without
  // lexing it again. Null: none.
  void show_to(Tracker* t) { tracker_ = t; }

  // What was dropped since the last take (bounded: the first kKeep, then only counted).
  static constexpr size_t kKeep = 64;
  std::vector<Dropped> take_dropped() { return std::move(dropped_); }
  uint64_t dropped_total() const { return dropped_total_; }
  // Every drop by its rule (the rules are fixed strings: a few dozen at most).
  const std::vector<std::pair<const char*, uint64_t>>& counts() const { return counts_; }

private:
  // Judges toks_[from..] and appends what passes.
  void apply(std::string& out, std::vector<Osc52>& clips, size_t from);
  void show(const Token& t) {
    if (tracker_) tracker_->token(t);
  }
  void drop(const Token& t, const char* rule);

  Lexer lexer_;
  ClipboardMode mode_;
  std::vector<Token> toks_;
  std::string rest_;      // pass(): the output of what followed the unchanged prefix
  bool rest_ready_ = false;
  std::vector<Dropped> dropped_;
  uint64_t dropped_total_ = 0;
  std::vector<std::pair<const char*, uint64_t>> counts_;
  Tracker* tracker_ = nullptr;
};

}  // namespace blaude::term
