// The OSC 52 scanner: a pure streaming state machine over the child's output bytes. It finds
// `ESC ] 52 ; Pc ; Pd` (ended by BEL or ESC \), also inside tmux's `ESC P tmux; ... ESC \`
// passthrough (inner ESCs doubled) and screen's `ESC P ... ESC \` wrapping, removes those
// sequences from the stream and reports them. Every other byte passes through unchanged, in
// order; only a possible prefix at a read boundary (`ESC`, `ESC ]`, `ESC ] 5`, ...) is held, and
// only until the next read or `hold_ms`. No I/O and no clock: the caller passes the time in.
// 8-bit C1 OSC/ST (0x9D, 0x9C) are not recognised: in UTF-8 output they are continuation bytes,
// and tmux, foot, kitty and Alacritty ignore them too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace blaude::osc52 {

enum class Wrap : uint8_t { None, Tmux, Screen };

enum class Outcome : uint8_t {
  Complete,      // properly terminated; Pc and Pd are in the event
  Oversized,     // Pd exceeded max_payload: discarded up to its terminator
  Malformed,     // terminated before the `;` that starts Pd
  Aborted,       // CAN, SUB, or ESC followed by something other than `\`
  TimedOut,      // no terminator within max_sequence_ms
  Unterminated,  // the stream ended inside the sequence
};

// One intercepted sequence. Whatever its outcome, its bytes were removed from the output.
struct Sequence {
  Wrap wrap = Wrap::None;
  Outcome outcome = Outcome::Complete;
  std::string selection;     // Pc, C0 bytes removed, at most max_selection bytes
  std::string payload;       // Pd, C0 bytes removed; empty unless outcome == Complete
  size_t payload_bytes = 0;  // encoded Pd bytes seen (for the log, also when discarded)
};

struct ScannerLimits {
  size_t max_payload = 1024 * 1024;  // encoded bytes, as tmux's input-buffer-size
  size_t max_selection = 16;         // Pc is a handful of letters; more is discarded
  uint64_t hold_ms = 10;             // a prefix at a read boundary waits at most this long
  uint64_t max_sequence_ms = 5000;   // an unterminated sequence is dropped after this long
};

class Scanner {
public:
  explicit Scanner(ScannerLimits limits = {}) : lim_(limits) {}

  // Appends the bytes to show now to `out` and the finished sequences to `events`.
  void feed(std::string_view in, uint64_t now_ms, std::string& out, std::vector<Sequence>& events);
  // The zero-copy fast path: how many leading bytes of `in` feed() would show unchanged, at
  // once, staying in Ground (0 unless the scanner is in Ground). Those bytes need no feed():
  // feed(in) shows the same as passing them and then feeding the rest. Pure; changes nothing.
  size_t pass_through(std::string_view in) const;
  // Releases a held prefix or drops a sequence whose deadline has passed.
  void tick(uint64_t now_ms, std::string& out, std::vector<Sequence>& events);
  // Absolute time at which tick() has work to do, or -1.
  int64_t next_deadline_ms() const;
  // End of stream: a held prefix is shown, an open sequence is dropped (reported Unterminated).
  void finish(std::string& out, std::vector<Sequence>& events);
  // True when nothing is held and no sequence is open.
  bool idle() const { return state_ == State::Ground; }

private:
  enum class State : uint8_t {
    Ground,
    Hold,      // held_ is a proper prefix of a pattern (see patterns_)
    Tail,      // after a wrapped sequence: its closing `ESC \` is swallowed if it comes
    Sel,       // in Pc
    Data,      // in Pd
    DataEsc,   // ESC seen in Pc/Pd
    DataEsc2,  // tmux: ESC ESC seen (an inner ESC)
    Seam,      // screen: `ESC \` seen in Pd; `ESC P` continues the payload
    SeamEsc,   // screen: `ESC \ ESC` seen
  };
  enum class Patterns : uint8_t { Start, Close };

  void step(char c, std::string& out, std::vector<Sequence>& ev);
  void step_hold(char c, std::string& out, std::vector<Sequence>& ev);
  void step_open(char c, std::string& out, std::vector<Sequence>& ev);
  void step_esc(char c, std::string& out, std::vector<Sequence>& ev);
  void take_payload(std::string_view bytes);
  void begin_hold(Patterns p);
  void commit(Wrap w);
  void end(Outcome o, std::vector<Sequence>& ev);
  void replay(std::string_view bytes, std::string& out, std::vector<Sequence>& ev);
  void expire(uint64_t now_ms, std::string& out, std::vector<Sequence>& ev);

  ScannerLimits lim_;
  State state_ = State::Ground;
  Patterns patterns_ = Patterns::Start;
  std::string held_;       // bytes of a possible prefix, not yet shown
  uint64_t now_ = 0;       // time of the current feed
  uint64_t since_ = 0;     // when the hold or the sequence began
  Sequence seq_;           // the sequence being collected
  bool in_payload_ = false;
  bool oversized_ = false;
};

}  // namespace blaude::osc52
