#include "osc52/scanner.hpp"

#include <array>
#include <cstring>

#include "osc52/candidate.hpp"

namespace blaude::osc52 {

namespace {

constexpr char ESC = '\x1b';
constexpr char BEL = '\x07';
constexpr char CAN = '\x18';
constexpr char SUB = '\x1a';
constexpr char DEL = '\x7f';
// Pass-writes mode: Pc (and the controls before Pd) longer than this is no real copy; dropped.
constexpr size_t kMaxUndecided = 256;

struct Pattern {
  std::string_view text;
  Wrap wrap;
};

// The openings that commit the scanner to an OSC 52 sequence. Until one of them is complete the
// bytes are only held; on a mismatch they are shown again as they came.
constexpr std::array<Pattern, 3> kStart{{
    {"\x1b]52;", Wrap::None},
    {"\x1bPtmux;\x1b\x1b]52;", Wrap::Tmux},  // tmux passthrough: inner ESCs are doubled
    {"\x1bP\x1b]52;", Wrap::Screen},         // screen: the DCS body goes to the terminal as is
}};
// After a wrapped sequence, the `ESC \` that closes its DCS belongs to it.
constexpr std::array<Pattern, 1> kClose{{{"\x1b\\", Wrap::None}}};

bool is_c0(char c) { return static_cast<unsigned char>(c) < 0x20; }

}  // namespace

size_t Scanner::pass_through(std::string_view in) const {
  return state_ == State::Ground ? next_candidate(in, 0) : 0;
}

void Scanner::feed(std::string_view in, uint64_t now_ms, std::string& out,
                   std::vector<Sequence>& ev) {
  now_ = now_ms;
  expire(now_ms, out, ev);
  size_t i = 0;
  const size_t n = in.size();
  while (i < n) {
    if (state_ == State::Ground) {
      // The hot path: plain text up to the next candidate ESC goes out in one append.
      size_t j = next_candidate(in, i);
      put(out, in.substr(i, j - i));
      i = j;
      if (i == n) break;
    } else if (state_ == State::Data) {
      // Payload: everything up to the next control byte is base64 text.
      size_t j = i;
      while (j < n && !is_c0(in[j])) ++j;
      take_payload(in.substr(i, j - i), out);
      i = j;
      if (i == n) break;
    }
    step(in[i], out, ev);
    ++i;
  }
}

void Scanner::step(char c, std::string& out, std::vector<Sequence>& ev) {
  switch (state_) {
    case State::Ground:
      if (c == ESC) begin_hold(Patterns::Start);
      else put(out, c);
      return;
    case State::Hold:
      step_hold(c, out, ev);
      return;
    case State::Tail:
      if (c == ESC) {
        begin_hold(Patterns::Close);
      } else {
        state_ = State::Ground;
        step(c, out, ev);
      }
      return;
    default:
      step_open(c, out, ev);
      return;
  }
}

// Inside an opening, tmux and xterm execute or ignore most C0 controls (and DEL right after ESC
// or in a DCS's parameters) without leaving the sequence: so does the match. BEL ends an OSC.
bool Scanner::transparent(char c) const {
  if (c == ESC || c == CAN || c == SUB) return false;
  char last = ESC;  // the last pattern byte matched: the same in every viable pattern
  if (patterns_ == Patterns::Start)
    for (size_t k = 0; k < kStart.size(); ++k)
      if (viable_ >> k & 1u) last = kStart[k].text[matched_ - 1];
  if (c == DEL) return last == ESC || last == 'P';
  if (!is_c0(c)) return false;
  if (c == BEL) return !(last == ']' || last == '5' || last == '2');
  return true;
}

void Scanner::step_hold(char c, std::string& out, std::vector<Sequence>& ev) {
  held_.push_back(c);
  if (transparent(c)) {
    // Padding an opening with controls is no real program's output: drop it rather than show
    // an ESC whose sequence the terminal would go on reading.
    if (held_.size() > lim_.max_prefix) {
      held_.clear();
      state_ = State::Ground;
      cut(out);
    }
    return;
  }
  auto advance = [&](const auto& pats) -> const Pattern* {
    uint8_t still = 0;
    const Pattern* done = nullptr;
    for (size_t k = 0; k < pats.size(); ++k) {
      if (!(viable_ >> k & 1u) || pats[k].text[matched_] != c) continue;
      still |= static_cast<uint8_t>(1u << k);
      if (pats[k].text.size() == matched_ + 1) done = &pats[k];
    }
    viable_ = still;
    ++matched_;
    return done;
  };
  const Pattern* done = patterns_ == Patterns::Start ? advance(kStart) : advance(kClose);
  if (done) {
    if (patterns_ == Patterns::Start) {
      commit(done->wrap, out);
    } else {
      if (tail_pass_) put(out, held_);
      held_.clear();
      state_ = State::Ground;
    }
    return;
  }
  if (viable_) return;
  // Not ours. A start mismatch shows the ESC and rescans the rest, which may begin another
  // escape; a close mismatch rescans everything, since its ESC may open a new sequence.
  std::string rest = std::move(held_);
  held_.clear();
  state_ = State::Ground;
  if (patterns_ == Patterns::Start) {
    put(out, rest[0]);
    rest.erase(0, 1);
  }
  replay(rest, out, ev);
}

void Scanner::step_open(char c, std::string& out, std::vector<Sequence>& ev) {
  if (c == CAN || c == SUB) {  // cancel: the terminal drops what it saw of the sequence too
    keep(c, out);
    end(Outcome::Aborted, ev, out);
    return;
  }
  switch (state_) {
    case State::Sel:
      if (c == ESC) {
        state_ = State::DataEsc;
        return;
      }
      keep(c, out);
      if (c == ';') {
        in_payload_ = true;
        state_ = State::Data;
      } else if (c == BEL) {
        end(Outcome::Malformed, ev, out);
      } else if (!is_c0(c)) {
        sel_question_ |= c == '?';
        if (seq_.selection.size() < lim_.max_selection) seq_.selection.push_back(c);
        else oversized_ = true;
      }
      return;
    case State::Data:
      if (c == ESC) {
        state_ = State::DataEsc;
      } else if (!is_c0(c)) {
        take_payload(std::string_view(&c, 1), out);
      } else {
        keep(c, out);  // other C0 bytes (base64 wrapped in CR/LF) are skipped
        if (c == BEL) end(in_payload_ ? Outcome::Complete : Outcome::Malformed, ev, out);
      }
      return;
    case State::DataEsc:
      step_esc(c, out, ev);
      return;
    case State::DataEsc2:  // tmux: an inner ESC, so `\` is the inner ST
      keep("\x1b\x1b", out);
      if (c == '\\') {
        keep(c, out);
        end(in_payload_ ? Outcome::Complete : Outcome::Malformed, ev, out);
      } else {
        end(Outcome::Aborted, ev, out);
        replay(std::string_view(&c, 1), out, ev);
      }
      return;
    case State::Seam:  // screen: only `ESC P` may continue a payload after its DCS closed
      if (c == ESC) {
        state_ = State::SeamEsc;
      } else {
        end(Outcome::Aborted, ev, out);
        replay(std::string_view(&c, 1), out, ev);
      }
      return;
    case State::SeamEsc:
      if (c == 'P') {
        keep("\x1bP", out);
        state_ = State::Data;
      } else {
        end(Outcome::Aborted, ev, out);
        const char two[2] = {ESC, c};
        replay(std::string_view(two, 2), out, ev);
      }
      return;
    default:
      return;
  }
}

// The byte after an ESC inside Pc or Pd.
void Scanner::step_esc(char c, std::string& out, std::vector<Sequence>& ev) {
  if (c == '\\') {
    keep("\x1b\\", out);
    if (seq_.wrap == Wrap::None) {
      end(in_payload_ ? Outcome::Complete : Outcome::Malformed, ev, out);
    } else if (seq_.wrap == Wrap::Screen && in_payload_) {
      state_ = State::Seam;
    } else {
      // The DCS closed while the inner OSC was still open: nothing was properly terminated.
      end(seq_.wrap == Wrap::Screen ? Outcome::Malformed : Outcome::Aborted, ev, out);
      state_ = State::Ground;
    }
    return;
  }
  if (c == ESC && seq_.wrap == Wrap::Tmux) {
    state_ = State::DataEsc2;
    return;
  }
  // ESC followed by anything else ends the string without a copy; the ESC starts whatever
  // comes next, as it does in a terminal.
  end(Outcome::Aborted, ev, out);
  const char two[2] = {ESC, c};
  replay(std::string_view(two, 2), out, ev);
}

// Where the bytes of the open sequence go: see Fate.
void Scanner::keep(std::string_view bytes, std::string& out) {
  if (fate_ == Fate::Pass) {
    put(out, bytes);
  } else if (fate_ == Fate::Undecided) {
    raw_.append(bytes);
    if (raw_.size() > kMaxUndecided) {
      fate_ = Fate::Drop;
      std::string().swap(raw_);
      cut(out);
    }
  }
}

// Pd's first byte says whether this is a read request. A write in pass-writes mode goes out
// from its first byte on; a read never does.
void Scanner::decide(bool read, std::string& out) {
  seq_.read_request = read;
  if (fate_ != Fate::Undecided) return;
  fate_ = read ? Fate::Drop : Fate::Pass;
  seq_.passed = !read;
  if (read) cut(out);
  else put(out, raw_);
  raw_.clear();
}

void Scanner::take_payload(std::string_view bytes, std::string& out) {
  if (bytes.empty()) return;
  if (seq_.payload_bytes == 0) decide(bytes[0] == '?', out);
  seq_.payload_bytes += bytes.size();
  keep(bytes, out);
  if (lim_.mode == Mode::PassWrites || oversized_) return;  // nothing to copy: keep no payload
  if (seq_.payload.size() + bytes.size() > lim_.max_payload) {
    oversized_ = true;
    std::string().swap(seq_.payload);  // give the memory back while the rest is skipped
    return;
  }
  seq_.payload.append(bytes);
}

void Scanner::begin_hold(Patterns p) {
  state_ = State::Hold;
  patterns_ = p;
  since_ = now_;
  held_.assign(1, ESC);
  matched_ = 1;
  viable_ = p == Patterns::Start ? 0b111 : 0b1;
}

void Scanner::commit(Wrap w, std::string& out) {
  seq_ = Sequence{};
  seq_.wrap = w;
  in_payload_ = false;
  oversized_ = false;
  sel_question_ = false;
  state_ = State::Sel;
  since_ = now_;
  fate_ = lim_.mode == Mode::PassWrites ? Fate::Undecided : Fate::Drop;
  raw_.clear();
  if (fate_ == Fate::Drop) cut(out);
  keep(held_, out);
  held_.clear();
}

void Scanner::end(Outcome o, std::vector<Sequence>& ev, std::string& out) {
  if (o == Outcome::Complete && oversized_) o = Outcome::Oversized;
  seq_.outcome = o;
  if (o == Outcome::Malformed && sel_question_) seq_.read_request = true;
  if (fate_ == Fate::Undecided) {
    // Ended before Pd said anything: an empty write (it clears the selection) passes; a
    // sequence with no Pd, or cut short, is dropped.
    if (o == Outcome::Complete) decide(false, out);
    else cut(out);
    std::string().swap(raw_);
  }
  if (o != Outcome::Complete) std::string().swap(seq_.payload);
  bool terminated = o == Outcome::Complete || o == Outcome::Oversized || o == Outcome::Malformed;
  Wrap w = seq_.wrap;
  tail_pass_ = seq_.passed;
  ev.push_back(std::move(seq_));
  seq_ = Sequence{};
  fate_ = Fate::Drop;
  state_ = terminated && w != Wrap::None ? State::Tail : State::Ground;
}

void Scanner::put(std::string& out, std::string_view bytes) {
  out.append(bytes);
  if (observer_ && !bytes.empty()) observer_->observe(bytes, now_);
}

// Bytes that began with an ESC are removed here: if the terminal was inside a sequence, that
// ESC would have ended it, and what comes next must not continue it.
void Scanner::cut(std::string& out) {
  if (!observer_ || !observer_->mid_sequence()) return;
  put(out, CAN);
  ++cans_;
}

void Scanner::replay(std::string_view bytes, std::string& out, std::vector<Sequence>& ev) {
  for (char c : bytes) step(c, out, ev);
}

// A held prefix has no deadline (see the header); an open sequence is dropped after 5 s.
void Scanner::expire(uint64_t now_ms, std::string& out, std::vector<Sequence>& ev) {
  if (state_ == State::Ground || state_ == State::Tail || state_ == State::Hold) return;
  if (now_ms >= since_ + lim_.max_sequence_ms) {
    end(Outcome::TimedOut, ev, out);
    state_ = State::Ground;
  }
}

void Scanner::tick(uint64_t now_ms, std::string& out, std::vector<Sequence>& ev) {
  now_ = now_ms;
  expire(now_ms, out, ev);
}

int64_t Scanner::next_deadline_ms() const {
  switch (state_) {
    case State::Ground:
    case State::Tail:
    case State::Hold:
      return -1;
    default:
      return static_cast<int64_t>(since_ + lim_.max_sequence_ms);
  }
}

void Scanner::finish(std::string& out, std::vector<Sequence>& ev) {
  if (state_ == State::Hold) {
    put(out, held_);
    held_.clear();
  } else if (state_ != State::Ground && state_ != State::Tail) {
    end(Outcome::Unterminated, ev, out);
  }
  state_ = State::Ground;
}

}  // namespace blaude::osc52
