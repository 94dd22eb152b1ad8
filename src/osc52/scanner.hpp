// The OSC 52 scanner: a pure streaming state machine over the child's output bytes. It finds
// `ESC ] 52 ; Pc ; Pd` (ended by BEL or ESC \), also inside tmux's `ESC P tmux; ... ESC \`
// passthrough (inner ESCs doubled) and screen's `ESC P ... ESC \` wrapping, and reports them.
// Intercept mode (a clipboard tool takes the copies) removes every such sequence from the
// stream. Pass-writes mode (no tool) removes only read requests (Pd starting with `?`, or a
// `?` in a Pc with no Pd) and lets writes through byte for byte, so that the terminal copies
// them. Every other byte passes through unchanged, in order.
//
// A possible prefix at a read boundary (`ESC`, `ESC ]`, `ESC ] 5`, ...) is held until the next
// byte decides it, however long that takes: the terminal could not show an incomplete escape
// anyway, and releasing it on a timer would let a child complete a read request the scanner
// never saw (`ESC ] 5`, a pause, `2;c;?`). C0 controls inside a prefix are skipped the way
// tmux and xterm skip them (`ESC ] 5 ^A 2 ; c ; ?` is a read request to them), up to a few.
// No I/O and no clock: the caller passes the time in. 8-bit C1 OSC/ST (0x9D, 0x9C) are not
// recognised: in UTF-8 output they are continuation bytes, and tmux, foot, kitty and
// Alacritty ignore them too.
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
  bool passed = false;       // pass-writes mode: its bytes went to the terminal unchanged
  bool read_request = false; // Pd starts with `?` (or a `?` in Pc with no Pd): never passed
};

enum class Mode : uint8_t { Intercept, PassWrites };

// Sees every byte the scanner passes on, in order, as it passes it (the terminal state tracker
// runs here, in the same pass). The scanner asks it whether the terminal is inside a sequence
// when it removes one: the removed ESC would have ended that sequence, so the scanner puts a
// CAN in its place. Without it `ESC ] 5` + a removed read request + `2;c;?` BEL would reach
// the terminal as one read request.
class Observer {
public:
  virtual ~Observer() = default;
  virtual void observe(std::string_view bytes, uint64_t now_ms) = 0;
  virtual bool mid_sequence() const = 0;
};

struct ScannerLimits {
  size_t max_payload = 1024 * 1024;  // encoded bytes, as tmux's input-buffer-size
  size_t max_selection = 16;         // Pc is a handful of letters; more is discarded
  uint64_t max_sequence_ms = 5000;   // an unterminated sequence is dropped after this long
  size_t max_prefix = 64;            // a prefix padded with more skipped controls is dropped
  Mode mode = Mode::Intercept;
};

class Scanner {
public:
  explicit Scanner(ScannerLimits limits = {}) : lim_(limits) {}

  // Appends the bytes to show now to `out` and the finished sequences to `events`.
  void feed(std::string_view in, uint64_t now_ms, std::string& out, std::vector<Sequence>& events);
  // The zero-copy fast path: how many leading bytes of `in` feed() would show unchanged, at
  // once, staying in Ground (0 unless the scanner is in Ground). Those bytes need no feed():
  // feed(in) shows the same as passing them and then feeding the rest. Pure; changes nothing
  // (the observer, if any, is not told: the caller hands it those bytes).
  size_t pass_through(std::string_view in) const;
  // Drops a sequence whose deadline has passed.
  void tick(uint64_t now_ms, std::string& out, std::vector<Sequence>& events);
  // Absolute time at which tick() has work to do, or -1.
  int64_t next_deadline_ms() const;
  // End of stream: a held prefix is shown, an open sequence is dropped (reported Unterminated).
  void finish(std::string& out, std::vector<Sequence>& events);
  // True when nothing is held and no sequence is open.
  bool idle() const { return state_ == State::Ground; }
  void set_observer(Observer* o) { observer_ = o; }
  // How many CANs the scanner put in place of removed sequences (see Observer).
  uint64_t cans() const { return cans_; }

private:
  enum class State : uint8_t {
    Ground,
    Hold,      // held_ is a proper prefix of a pattern (see patterns_), controls skipped
    Tail,      // after a wrapped sequence: its closing `ESC \` is swallowed if it comes
    Sel,       // in Pc
    Data,      // in Pd
    DataEsc,   // ESC seen in Pc/Pd
    DataEsc2,  // tmux: ESC ESC seen (an inner ESC)
    Seam,      // screen: `ESC \` seen in Pd; `ESC P` continues the payload
    SeamEsc,   // screen: `ESC \ ESC` seen
  };
  enum class Patterns : uint8_t { Start, Close };
  // What becomes of the bytes of the open sequence: removed (intercept mode, a read request),
  // passed (a write in pass-writes mode), or not known yet (kept in raw_ until Pd's first byte).
  enum class Fate : uint8_t { Drop, Pass, Undecided };

  void step(char c, std::string& out, std::vector<Sequence>& ev);
  void step_hold(char c, std::string& out, std::vector<Sequence>& ev);
  void step_open(char c, std::string& out, std::vector<Sequence>& ev);
  void step_esc(char c, std::string& out, std::vector<Sequence>& ev);
  void take_payload(std::string_view bytes, std::string& out);
  void keep(std::string_view bytes, std::string& out);
  void keep(char c, std::string& out) { keep(std::string_view(&c, 1), out); }
  void decide(bool read, std::string& out);
  bool transparent(char c) const;
  void begin_hold(Patterns p);
  void commit(Wrap w, std::string& out);
  void end(Outcome o, std::vector<Sequence>& ev, std::string& out);
  void replay(std::string_view bytes, std::string& out, std::vector<Sequence>& ev);
  void put(std::string& out, std::string_view bytes);
  void put(std::string& out, char c) { put(out, std::string_view(&c, 1)); }
  void cut(std::string& out);
  void expire(uint64_t now_ms, std::string& out, std::vector<Sequence>& ev);

  ScannerLimits lim_;
  State state_ = State::Ground;
  Patterns patterns_ = Patterns::Start;
  std::string held_;       // bytes of a possible prefix, not yet shown
  size_t matched_ = 0;     // pattern bytes matched by held_ (the rest were skipped controls)
  uint8_t viable_ = 0;     // bit k: pattern k still matches
  std::string raw_;        // pass-writes mode: the open sequence's bytes while Undecided
  Fate fate_ = Fate::Drop;
  bool tail_pass_ = false; // the wrapped sequence before Tail was passed: so is its `ESC \`
  uint64_t now_ = 0;       // time of the current feed
  uint64_t since_ = 0;     // when the hold or the sequence began
  Sequence seq_;           // the sequence being collected
  bool in_payload_ = false;
  bool oversized_ = false;
  bool sel_question_ = false;  // a `?` in Pc (a read request if no Pd follows)
  Observer* observer_ = nullptr;
  uint64_t cans_ = 0;
};

}  // namespace blaude::osc52
