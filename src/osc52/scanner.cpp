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
      out.append(in.data() + i, j - i);
      i = j;
      if (i == n) break;
    } else if (state_ == State::Data) {
      // Payload: everything up to the next control byte is base64 text.
      size_t j = i;
      while (j < n && !is_c0(in[j])) ++j;
      take_payload(in.substr(i, j - i));
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
      else out.push_back(c);
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

void Scanner::step_hold(char c, std::string& out, std::vector<Sequence>& ev) {
  held_.push_back(c);
  bool partial = false;
  auto match = [&](const auto& pats) {
    for (const Pattern& p : pats) {
      if (p.text.substr(0, held_.size()) != held_) continue;
      if (p.text.size() == held_.size()) return &p;
      partial = true;
    }
    return static_cast<const Pattern*>(nullptr);
  };
  const Pattern* done = patterns_ == Patterns::Start ? match(kStart) : match(kClose);
  if (done) {
    if (patterns_ == Patterns::Start) {
      commit(done->wrap);
    } else {
      held_.clear();
      state_ = State::Ground;
    }
    return;
  }
  if (partial) return;
  // Not ours. A start mismatch shows the ESC and rescans the rest, which may begin another
  // escape; a close mismatch rescans everything, since its ESC may open a new sequence.
  std::string rest = std::move(held_);
  held_.clear();
  state_ = State::Ground;
  if (patterns_ == Patterns::Start) {
    out.push_back(rest[0]);
    rest.erase(0, 1);
  }
  replay(rest, out, ev);
}

void Scanner::step_open(char c, std::string& out, std::vector<Sequence>& ev) {
  if (c == CAN || c == SUB) {  // cancel: the sequence and the cancel byte are dropped
    end(Outcome::Aborted, ev);
    return;
  }
  switch (state_) {
    case State::Sel:
      if (c == ';') {
        in_payload_ = true;
        state_ = State::Data;
      } else if (c == BEL) {
        end(Outcome::Malformed, ev);
      } else if (c == ESC) {
        state_ = State::DataEsc;
      } else if (!is_c0(c)) {
        if (seq_.selection.size() < lim_.max_selection) seq_.selection.push_back(c);
        else oversized_ = true;
      }
      return;
    case State::Data:
      if (c == BEL) end(in_payload_ ? Outcome::Complete : Outcome::Malformed, ev);
      else if (c == ESC) state_ = State::DataEsc;
      else if (!is_c0(c)) take_payload(std::string_view(&c, 1));
      return;  // other C0 bytes (base64 wrapped in CR/LF) are skipped
    case State::DataEsc:
      step_esc(c, out, ev);
      return;
    case State::DataEsc2:  // tmux: an inner ESC, so `\` is the inner ST
      if (c == '\\') {
        end(in_payload_ ? Outcome::Complete : Outcome::Malformed, ev);
      } else {
        end(Outcome::Aborted, ev);
        replay(std::string_view(&c, 1), out, ev);
      }
      return;
    case State::Seam:  // screen: only `ESC P` may continue a payload after its DCS closed
      if (c == ESC) {
        state_ = State::SeamEsc;
      } else {
        end(Outcome::Aborted, ev);
        replay(std::string_view(&c, 1), out, ev);
      }
      return;
    case State::SeamEsc:
      if (c == 'P') {
        state_ = State::Data;
      } else {
        end(Outcome::Aborted, ev);
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
    if (seq_.wrap == Wrap::None) {
      end(in_payload_ ? Outcome::Complete : Outcome::Malformed, ev);
    } else if (seq_.wrap == Wrap::Screen && in_payload_) {
      state_ = State::Seam;
    } else {
      // The DCS closed while the inner OSC was still open: nothing was properly terminated.
      end(seq_.wrap == Wrap::Screen ? Outcome::Malformed : Outcome::Aborted, ev);
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
  end(Outcome::Aborted, ev);
  const char two[2] = {ESC, c};
  replay(std::string_view(two, 2), out, ev);
}

void Scanner::take_payload(std::string_view bytes) {
  seq_.payload_bytes += bytes.size();
  if (oversized_) return;
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
}

void Scanner::commit(Wrap w) {
  held_.clear();
  seq_ = Sequence{};
  seq_.wrap = w;
  in_payload_ = false;
  oversized_ = false;
  state_ = State::Sel;
  since_ = now_;
}

void Scanner::end(Outcome o, std::vector<Sequence>& ev) {
  if (o == Outcome::Complete && oversized_) o = Outcome::Oversized;
  seq_.outcome = o;
  if (o != Outcome::Complete) std::string().swap(seq_.payload);
  bool terminated = o == Outcome::Complete || o == Outcome::Oversized || o == Outcome::Malformed;
  Wrap w = seq_.wrap;
  ev.push_back(std::move(seq_));
  seq_ = Sequence{};
  state_ = terminated && w != Wrap::None ? State::Tail : State::Ground;
}

void Scanner::replay(std::string_view bytes, std::string& out, std::vector<Sequence>& ev) {
  for (char c : bytes) step(c, out, ev);
}

void Scanner::expire(uint64_t now_ms, std::string& out, std::vector<Sequence>& ev) {
  if (state_ == State::Hold) {
    if (now_ms >= since_ + lim_.hold_ms) {
      out += held_;
      held_.clear();
      state_ = State::Ground;
    }
  } else if (state_ != State::Ground && state_ != State::Tail) {
    if (now_ms >= since_ + lim_.max_sequence_ms) {
      end(Outcome::TimedOut, ev);
      state_ = State::Ground;
    }
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
      return -1;
    case State::Hold:
      return static_cast<int64_t>(since_ + lim_.hold_ms);
    default:
      return static_cast<int64_t>(since_ + lim_.max_sequence_ms);
  }
}

void Scanner::finish(std::string& out, std::vector<Sequence>& ev) {
  if (state_ == State::Hold) {
    out += held_;
    held_.clear();
  } else if (state_ != State::Ground && state_ != State::Tail) {
    end(Outcome::Unterminated, ev);
  }
  state_ = State::Ground;
}

}  // namespace blaude::osc52
