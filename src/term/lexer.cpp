#include "term/lexer.hpp"

#include "term/skim.hpp"

#include <algorithm>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace blaude::term {

namespace {

constexpr unsigned char ESC = 0x1b, BEL = 0x07, CAN = 0x18, SUB = 0x1a, ENQ = 0x05, DEL = 0x7f,
                        SO = 0x0e, SI = 0x0f;
constexpr unsigned char C1_DCS = 0x90, C1_SOS = 0x98, C1_CSI = 0x9b, C1_ST = 0x9c, C1_OSC = 0x9d,
                        C1_PM = 0x9e, C1_APC = 0x9f;

bool lead(unsigned b) { return b >= 0xc2 && b <= 0xf4; }
bool lead3(unsigned b) { return b >= 0xe0 && b <= 0xf4; }
bool lead4(unsigned b) { return b >= 0xf0 && b <= 0xf4; }
bool cont(unsigned b) { return (b & 0xc0) == 0x80; }
bool c1_range(unsigned b) { return (b & 0xe0) == 0x80; }

typedef unsigned char v16 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline v16 load(const unsigned char* p) {
  v16 v;
  std::memcpy(&v, p, 16);
  return v;
}

[[gnu::always_inline]] inline bool any_lane(v16 m) {
#ifdef __SSE2__
  return _mm_movemask_epi8(reinterpret_cast<__m128i>(m)) != 0;
#else
  uint64_t lo, hi;
  std::memcpy(&lo, &m, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 8, 8);
  return (lo | hi) != 0;
#endif
}

// The lowest set lane of a compare mask, or 16.
[[gnu::always_inline]] inline unsigned first_lane(v16 m) {
#ifdef __SSE2__
  const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(reinterpret_cast<__m128i>(m)));
  return bits ? static_cast<unsigned>(__builtin_ctz(bits)) : 16;
#else
  uint64_t lo, hi;
  std::memcpy(&lo, &m, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 8, 8);
  if (lo) return static_cast<unsigned>(__builtin_ctzll(lo)) >> 3;
  if (hi) return 8 + (static_cast<unsigned>(__builtin_ctzll(hi)) >> 3);
  return 16;
#endif
}

// Lanes of p[0..16) holding a byte 0x80-0x9F that no UTF-8 lead before it continues (the rule
// in the header, sixteen at a time); p[-3..0) must be readable.
[[gnu::always_inline]] inline v16 c1_lanes(const unsigned char* p, v16 a) {
  const v16 b1 = load(p - 1), b2 = load(p - 2), b3 = load(p - 3);
  const v16 cont1 = (b1 & 0xc0) == 0x80, cont2 = (b2 & 0xc0) == 0x80;
  const v16 ok = ((b1 >= 0xc2) & (b1 <= 0xf4)) | ((b2 >= 0xe0) & (b2 <= 0xf4) & cont1) |
                 ((b3 >= 0xf0) & (b3 <= 0xf4) & cont2 & cont1);
  return ((a & 0xe0) == 0x80) & ~ok;
}

// The first byte at or after i that a state must look at: ESC, `extra` (ENQ in text, BEL in a
// string, or ESC again), CAN and SUB in a string (kCancel), SO and SI in text (kGround: the one
// text the terminal state tracker must see), and a byte 0x80-0x9F that is not a UTF-8
// continuation. Sixteen bytes at a time where three bytes before them are in the slice.
template <bool kCancel, bool kGround = !kCancel>
size_t next_stop(const unsigned char* before, std::string_view in, size_t i, unsigned char extra) {
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  auto scalar_stop = [&](size_t j) {
    unsigned b = s[j];
    if (b == ESC || b == extra) return true;
    if (kCancel && (b == CAN || b == SUB)) return true;
    if (kGround && (b == SO || b == SI)) return true;
    return c1_range(b) && !Lexer::continues(before, in, j);
  };
  for (; i < n && i < 3; ++i)
    if (scalar_stop(i)) return i;
  while (i + 16 <= n) {
    const v16 a = load(s + i);
    // One test per 16 bytes for the common case (text, a string's payload): nothing here can
    // stop the scan. The exact mask only where something might.
    v16 m = (a == ESC) | (a == extra) | ((a & 0xe0) == 0x80);
    if (kCancel) m |= (a == CAN) | (a == SUB);
    if (kGround) m |= (a & 0xfe) == SO;
    if (!any_lane(m)) {
      i += 16;
      continue;
    }
    m = (a == ESC) | (a == extra);
    if (kCancel) m |= (a == CAN) | (a == SUB);
    if (kGround) m |= (a & 0xfe) == SO;
    m |= c1_lanes(s + i, a);
    const unsigned k = first_lane(m);
    if (k < 16) return i + k;
    i += 16;
  }
  for (; i < n; ++i)
    if (scalar_stop(i)) return i;
  return n;
}

}  // namespace

void Lexer::set_plain_csi(std::string_view finals) {
  plain_[0] = plain_[1] = 0;
  for (char c : finals) {
    const unsigned f = static_cast<unsigned char>(c);
    if (f >= 0x40 && f <= 0x7e) plain_[(f - 0x40) >> 6] |= uint64_t{1} << ((f - 0x40) & 63);
  }
  plain_any_ = plain_[0] | plain_[1];
  // The windows of term/skim.hpp take CSIs of the finals outside h-u, and m: usable when all of
  // those are plain here.
  skim_ok_ = lim_.max_control >= Window::kSize;  // a window holds CSIs up to its size
  for (unsigned f = 0x40; f <= 0x7e; ++f)
    if ((f < 'h' || f > 'u' || f == 'm') && !(plain_[(f - 0x40) >> 6] >> ((f - 0x40) & 63) & 1)) skim_ok_ = false;
}

bool Lexer::continues(const unsigned char* before, std::string_view in, size_t i) {
  auto at = [&](size_t k) -> unsigned {  // the byte k before in[i]
    return i >= k ? static_cast<unsigned char>(in[i - k]) : before[3 + i - k];
  };
  const unsigned b1 = at(1), b2 = at(2), b3 = at(3);
  return lead(b1) || (lead3(b2) && cont(b1)) || (lead4(b3) && cont(b2) && cont(b1));
}

void Lexer::feed(std::string_view in, uint64_t now_ms, std::vector<Token>& out) {
  done_.clear();
  windows_.spans.clear();
  windows_.found.clear();
  tick(now_ms, out);
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    switch (st_) {
      case St::Ground:
        i = ground(in, i, out);
        break;
      case St::Esc:
      case St::EscInter:
        i = step_esc(in, i, out);
        break;
      case St::Csi:
        i = step_csi(in, i, out);
        break;
      case St::Str:
        i = step_str(in, i, out);
        break;
      case St::StrEsc:
        i = step_str_esc(in, i, out);
        break;
    }
  }
  if (st_ != St::Ground) {  // hold the open sequence's bytes for the next slice
    if (!held_) {
      held_ = true;
      seq_before_ = n - start_;
      if (skipping_) buf_.assign(in.substr(start_, kHead));
      else buf_.assign(in.substr(start_));
    } else {
      seq_before_ += n;
      if (!skipping_) buf_.append(in);
      else top_up(in, n);
    }
    start_ = 0;
    if (!skipping_ && seq_before_ > bound()) overlong(in, 0);
  }
  // The last three bytes of the stream, for the UTF-8 rule at the next slice's start.
  if (n >= 3) {
    std::memcpy(before_, in.data() + n - 3, 3);
  } else if (n > 0) {
    std::memmove(before_, before_ + n, 3 - n);
    std::memcpy(before_ + 3 - n, in.data(), n);
  }
}

size_t Lexer::bound() const { return kind_ == Tok::Csi || kind_ == Tok::Esc ? lim_.max_control : lim_.max_string; }

size_t Lexer::seq_len(size_t end) const { return held_ ? seq_before_ + end : end - start_; }

void Lexer::open(Tok kind, bool c1, size_t at) {
  kind_ = kind;
  c1_ = c1;
  tmux_ = malformed_ = skipping_ = held_ = false;
  start_ = at;
  seq_before_ = 0;
  since_ = now_;
  switch (kind) {
    case Tok::Esc: st_ = St::Esc; break;
    case Tok::Csi: st_ = St::Csi; break;
    default: st_ = St::Str; break;
  }
}

std::string_view Lexer::so_far(std::string_view in, size_t end) {
  if (!held_) return in.substr(start_, end - start_);
  // Two may finish in one slice (a string broken by an ESC that ended the slice before, and the
  // sequence that ESC began), and a new one may be held after them: each finished one keeps its
  // own storage until the next call.
  std::string& done = done_.emplace_back(std::move(buf_));
  buf_.clear();
  if (!skipping_) done.append(in.data(), end);
  else if (done.size() < kHead) done.append(in.data(), std::min(end, kHead - done.size()));
  return done;
}

void Lexer::emit(Tok kind, std::string_view in, size_t end, std::vector<Token>& out, End e) {
  Token t;
  t.kind = kind;
  t.c1 = c1_;
  t.tmux = tmux_;
  t.end = e;
  t.length = seq_len(end);
  t.bytes = so_far(in, end);
  if (skipping_ || t.length > bound()) {
    t.kind = Tok::Broken;
    t.of = kind;
    t.why = Why::Overlong;
    if (t.bytes.size() > kHead) t.bytes = t.bytes.substr(0, kHead);
  } else if (malformed_) {
    t.kind = Tok::Broken;
    t.of = kind;
    t.why = Why::Malformed;
  }
  out.push_back(t);
  st_ = St::Ground;
  held_ = skipping_ = false;
}

void Lexer::broken(Why why, std::string_view in, size_t end, std::vector<Token>& out) {
  Token t;
  t.kind = Tok::Broken;
  t.of = kind_;
  t.why = skipping_ ? Why::Overlong : why;
  t.c1 = c1_;
  t.tmux = tmux_;
  t.length = seq_len(end);
  t.bytes = so_far(in, end);
  if (t.bytes.size() > kHead && t.why == Why::Overlong) t.bytes = t.bytes.substr(0, kHead);
  out.push_back(t);
  st_ = St::Ground;
  held_ = skipping_ = false;
}

// Past its bound: only a head is kept for the log (a sequence begun in this slice keeps its
// bytes where they are), the rest is skipped to the sequence's end.
void Lexer::overlong(std::string_view in, size_t upto) {
  skipping_ = true;
  if (!held_) return;
  if (buf_.size() > kHead) buf_.resize(kHead);
  top_up(in, upto);
}

// The head of an overlong sequence that began in an earlier slice: its first kHead bytes,
// whatever the split.
void Lexer::top_up(std::string_view in, size_t upto) {
  if (buf_.size() < kHead) buf_.append(in.data(), std::min(upto, kHead - buf_.size()));
}

void Lexer::control(std::string_view in, size_t j, bool c1, std::vector<Token>& out) {
  Token t;
  t.kind = Tok::Control;
  t.c1 = c1;
  t.bytes = in.substr(j, 1);
  t.length = 1;
  out.push_back(t);
}

// The first ENQ or byte 0x80-0x9F in [p, p + n), or n: the windows of term/skim.hpp take them
// as text; the exact scan decides them.
static size_t first_enq_or_high(const unsigned char* s, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v16 a = load(s + i);
    const v16 m = (a == ENQ) | ((a & 0xe0) == 0x80);
    if (any_lane(m)) return i + first_lane(m);
  }
  for (; i < n; ++i)
    if (s[i] == ENQ || c1_range(s[i])) return i;
  return n;
}

// Windows of term/skim.hpp from in[j] (an ESC in the ground state): text, plain CSIs, STs and
// whole OSCs, 64 bytes at a time. Text and CSIs join the text run that began at `text`; each
// OSC is a token of its own (the consumer judges it). Returns where the windows' work ends
// (j itself when they took nothing).
size_t Lexer::skim(std::string_view in, size_t j, size_t& text, std::vector<Token>& out) {
  Found found[32];
  const Skimmed r = skim_run(in.data() + j, in.data() + in.size(), found, 32);
  const size_t k = skim_tokens(in, j, found, r.found, r.taken, text, out);
  if (k > j) note_windows(in.data() + j, in.data() + k, found, r.found);
  return k;
}

// The windows' entries inside [begin, end), what the lexer took of them, kept for windows().
void Lexer::note_windows(const char* begin, const char* end, const Found* found, size_t n) {
  for (size_t f = 0; f < n && found[f].base < end; ++f) {
    Found w = found[f];
    const size_t upto = static_cast<size_t>(end - w.base);  // the windows start at begin
    if (upto < Window::kSize) {
      const uint64_t keep = (uint64_t{1} << upto) - 1;
      w.sgr &= keep, w.esc &= keep, w.osc &= keep, w.osc_end &= keep;
    }
    if (w.sgr | w.osc) windows_.found.push_back(w);
  }
  windows_.spans.push_back(WindowSpan{begin, end, windows_.found.size()});
}

// The tokens of the OSCs the windows found that the consumer wants as tokens, the text before
// each ending the run begun at `text`; returns where the windows' work ends.
size_t Lexer::skim_tokens(std::string_view in, size_t j, const Found* found, size_t n_found,
                          size_t taken, size_t& text, std::vector<Token>& out) {
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  const size_t limit = j + first_enq_or_high(s + j, taken);
  for (size_t f = 0; f < n_found; ++f) {
    const Found& w = found[f];
    const size_t base = static_cast<size_t>(w.base - in.data());
    for (uint64_t osc = w.osc; osc; osc &= osc - 1) {
      const unsigned e = static_cast<unsigned>(__builtin_ctzll(osc));
      const uint64_t ends = (w.osc_end >> e) & ~uint64_t{1};
      const size_t at = base + e;
      if (at >= limit) return limit;
      if (!ends) return at;
      const size_t t = at + static_cast<unsigned>(__builtin_ctzll(ends));
      size_t stop;
      End how;
      if (s[t] == BEL) {
        stop = t + 1, how = End::Bel;
      } else if (t + 1 < n && s[t + 1] == '\\') {
        stop = t + 2, how = End::St;
      } else {
        return at;  // broken by the ESC: the state machine says so
      }
      if (stop > limit) return at;
      if (stop - at <= lim_.max_string && plain_osc_ &&
          plain_osc_(in.substr(at + 2, t - at - 2)))
        continue;  // the consumer needs no token for it: part of the text run
      if (at > text) {
        Token tx;
        tx.bytes = in.substr(text, at - text);
        tx.length = at - text;
        out.push_back(tx);
      }
      Token o;
      o.kind = Tok::Osc;
      o.end = how;
      o.bytes = in.substr(at, stop - at);
      o.length = stop - at;
      if (o.length > lim_.max_string) return at;
      out.push_back(o);
      text = stop;
    }
  }
  return std::max(limit, text);
}

size_t Lexer::ground(std::string_view in, size_t i, std::vector<Token>& out) {
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  size_t j = next_stop<false>(before_, in, i, ENQ);
  // Whole plain CSIs inside the slice, of finals the consumer needs no token for: part of the
  // text run (a TUI writes one every ten bytes; a token each would cost more than the rest of
  // the work on them). Dense runs of them, STs, OSCs and text go 64 bytes at a time through the
  // terminal state tracker's classifier (term/skim.hpp); what it does not take, one at a time.
  while (plain_any_ && j + 2 < n && s[j] == ESC) {
    if (skim_ok_ && (s[j + 1] == '[' || s[j + 1] == '\\' || s[j + 1] == ']')) {
      const size_t k = skim(in, j, i, out);
      if (k > j) {
        j = k < n ? next_stop<false>(before_, in, k, ENQ) : n;
        continue;
      }
    }
    if (s[j + 1] != '[') break;
    size_t k = j + 2;
    if (s[k] >= '<' && s[k] <= '?') ++k;
    while (k < n && s[k] >= '0' && s[k] <= ';') ++k;
    if (k >= n || s[k] < 0x40 || s[k] > 0x7e || !(plain_[(s[k] - 0x40) >> 6] >> ((s[k] - 0x40) & 63) & 1)) break;
    if (k + 1 - j > lim_.max_control) break;  // over-long: the state machine drops it
    j = next_stop<false>(before_, in, k + 1, ENQ);
  }
  if (j > i) {
    Token t;
    t.bytes = in.substr(i, j - i);
    t.length = j - i;
    out.push_back(t);
  }
  if (j == in.size()) return j;
  const unsigned char c = static_cast<unsigned char>(in[j]);
  switch (c) {
    case ESC: open(Tok::Esc, false, j); break;
    case C1_CSI: open(Tok::Csi, true, j); break;
    case C1_OSC: open(Tok::Osc, true, j); break;
    case C1_DCS: open(Tok::Dcs, true, j); break;
    case C1_SOS: open(Tok::Sos, true, j); break;
    case C1_PM: open(Tok::Pm, true, j); break;
    case C1_APC: open(Tok::Apc, true, j); break;
    default: control(in, j, c >= 0x80, out); break;  // ENQ, SO, SI, or a lone C1 control
  }
  return j + 1;
}

// The byte after ESC (and its intermediates).
size_t Lexer::step_esc(std::string_view in, size_t i, std::vector<Token>& out) {
  const unsigned char c = static_cast<unsigned char>(in[i]);
  if (c == ESC) {  // ESC ESC: the first does nothing; the second begins again
    broken(Why::Interrupted, in, i, out);
    open(Tok::Esc, false, i);
    return i + 1;
  }
  if (c == CAN || c == SUB) {
    broken(Why::Cancelled, in, i, out);
    control(in, i, false, out);
    return i + 1;
  }
  if (c < 0x20) {  // executed in place by a terminal: its own token, the sequence broken
    control(in, i, false, out);
    malformed_ = true;
    return i + 1;
  }
  if (c >= 0x80) {  // read again from the ground state
    broken(Why::Malformed, in, i, out);
    return i;
  }
  if (c == DEL) {
    malformed_ = true;
    return i + 1;
  }
  if (st_ == St::Esc) {
    switch (c) {
      case '[': kind_ = Tok::Csi, st_ = St::Csi; return i + 1;
      case ']': kind_ = Tok::Osc, st_ = St::Str; return i + 1;
      case 'P': kind_ = Tok::Dcs, st_ = St::Str; return i + 1;
      case 'X': kind_ = Tok::Sos, st_ = St::Str; return i + 1;
      case '^': kind_ = Tok::Pm, st_ = St::Str; return i + 1;
      case '_': kind_ = Tok::Apc, st_ = St::Str; return i + 1;
      case 'k': kind_ = Tok::ScreenTitle, st_ = St::Str; return i + 1;
      default: break;
    }
  }
  if (c < 0x30) {
    st_ = St::EscInter;
    if (seq_len(i + 1) > lim_.max_control) overlong(in, i + 1);
    return i + 1;
  }
  emit(Tok::Esc, in, i + 1, out);
  return i + 1;
}

size_t Lexer::step_csi(std::string_view in, size_t i, std::vector<Token>& out) {
  const size_t n = in.size();
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  size_t j = i;
  while (j < n && s[j] >= 0x20 && s[j] < 0x40) ++j;  // parameters and intermediates
  if (!skipping_ && seq_len(j) > lim_.max_control) overlong(in, j);
  if (j == n) return n;
  const unsigned char c = s[j];
  if (c >= 0x40 && c <= 0x7e) {
    emit(Tok::Csi, in, j + 1, out);
    return j + 1;
  }
  if (c == ESC) {
    broken(Why::Interrupted, in, j, out);
    open(Tok::Esc, false, j);
    return j + 1;
  }
  if (c == CAN || c == SUB) {
    broken(Why::Cancelled, in, j, out);
    control(in, j, false, out);
    return j + 1;
  }
  if (c < 0x20) {
    control(in, j, false, out);
    malformed_ = true;
    return j + 1;
  }
  if (c == DEL) {
    malformed_ = true;
    return j + 1;
  }
  broken(Why::Malformed, in, j, out);  // >= 0x80: read again from the ground state
  return j;
}

// A string's payload up to the next byte that may end it.
size_t Lexer::step_str(std::string_view in, size_t i, std::vector<Token>& out) {
  const size_t j = next_stop<true>(before_, in, i, kind_ == Tok::Osc ? BEL : ESC);
  if (!skipping_ && seq_len(j) > lim_.max_string) overlong(in, j);
  if (j == in.size()) return j;
  const unsigned char c = static_cast<unsigned char>(in[j]);
  if (c == ESC) {
    st_ = St::StrEsc;
    return j + 1;
  }
  if (c == BEL) {
    emit(kind_, in, j + 1, out, End::Bel);
    return j + 1;
  }
  if (c == CAN || c == SUB) {
    broken(Why::Cancelled, in, j, out);
    control(in, j, false, out);
    return j + 1;
  }
  if (c == C1_ST) {
    emit(kind_, in, j + 1, out, End::St);
    return j + 1;
  }
  broken(Why::Interrupted, in, j, out);  // another C1 control: read again from the ground
  return j;
}

// The byte after an ESC inside a string.
size_t Lexer::step_str_esc(std::string_view in, size_t i, std::vector<Token>& out) {
  const unsigned char c = static_cast<unsigned char>(in[i]);
  if (c == '\\') {
    emit(kind_, in, i + 1, out, End::St);
    return i + 1;
  }
  if (c == ESC && kind_ == Tok::Dcs && !c1_ && (tmux_ || is_tmux(in, i))) {
    tmux_ = true;  // a doubled ESC of tmux's passthrough: payload
    st_ = St::Str;
    return i + 1;
  }
  // Any other byte: the ESC broke the string and begins what comes next.
  if (i == 0) {  // the ESC ended the previous slice: it is the last byte held
    if (!skipping_) buf_.pop_back();
    --seq_before_;
    broken(Why::Interrupted, in, 0, out);
    open(Tok::Esc, false, 0);
    held_ = true;
    buf_.assign(1, static_cast<char>(ESC));
    seq_before_ = 1;
  } else {
    broken(Why::Interrupted, in, i - 1, out);
    open(Tok::Esc, false, i - 1);
  }
  return i;  // read again, after the ESC
}

// Whether the open DCS is tmux's passthrough: its first bytes are `ESC P tmux;`.
bool Lexer::is_tmux(std::string_view in, size_t i) {
  static constexpr std::string_view kTmux = "\x1bPtmux;";
  if (seq_len(i) < kTmux.size() + 1) return false;
  std::string head;
  if (held_) {
    head.assign(buf_, 0, kTmux.size());
    if (head.size() < kTmux.size()) head.append(in.substr(0, kTmux.size() - head.size()));
  } else {
    head.assign(in.substr(start_, kTmux.size()));
  }
  return head == kTmux;
}

void Lexer::tick(uint64_t now_ms, std::vector<Token>& out) {
  now_ = now_ms;
  if (st_ != St::Ground) done_.clear();
  if (st_ != St::Ground && now_ms >= since_ + lim_.string_timeout_ms)
    broken(Why::TimedOut, std::string_view(), 0, out);
}

int64_t Lexer::next_deadline_ms() const {
  return st_ == St::Ground ? -1 : static_cast<int64_t>(since_ + lim_.string_timeout_ms);
}

void Lexer::finish(std::vector<Token>& out) {
  done_.clear();
  if (st_ != St::Ground) broken(Why::Unterminated, std::string_view(), 0, out);
}

// --- the parts of a token

CsiParts csi_parts(const Token& t) {
  CsiParts p;
  std::string_view b = t.bytes;
  size_t i = t.c1 ? 1 : 2;
  if (t.kind != Tok::Csi || b.size() < i + 1) return p;
  p.final = static_cast<unsigned char>(b.back());
  b = b.substr(i, b.size() - i - 1);
  size_t k = 0;
  if (!b.empty() && b[0] >= '<' && b[0] <= '?') p.marker = b[k++];
  size_t params_end = k;
  while (params_end < b.size() && static_cast<unsigned char>(b[params_end]) >= 0x30 &&
         static_cast<unsigned char>(b[params_end]) < 0x40)
    ++params_end;
  p.params = b.substr(k, params_end - k);
  p.interm = b.substr(params_end);
  p.valid = true;
  for (char c : p.params) p.valid &= c < '<';
  for (char c : p.interm) p.valid &= c >= 0x20 && c < 0x30;
  return p;
}

DcsParts dcs_parts(const Token& t) {
  DcsParts p;
  std::string_view b = string_body(t);
  if (t.kind != Tok::Dcs) return p;
  size_t k = 0;
  while (k < b.size() && static_cast<unsigned char>(b[k]) >= 0x30 && static_cast<unsigned char>(b[k]) < 0x40) ++k;
  p.params = b.substr(0, k);
  size_t m = k;
  while (m < b.size() && static_cast<unsigned char>(b[m]) >= 0x20 && static_cast<unsigned char>(b[m]) < 0x30) ++m;
  p.interm = b.substr(k, m - k);
  if (m >= b.size()) return p;
  p.final = static_cast<unsigned char>(b[m]);
  if (p.final < 0x40 || p.final > 0x7e) return p;
  p.body = b.substr(m + 1);
  p.valid = true;
  return p;
}

std::string_view string_body(const Token& t) {
  std::string_view b = t.bytes;
  const size_t intro = t.c1 ? 1 : 2;
  const size_t term = t.end == End::St ? (b.size() && static_cast<unsigned char>(b.back()) == C1_ST ? 1 : 2)
                      : t.end == End::Bel ? 1
                                          : 0;
  if (b.size() < intro + term) return {};
  return b.substr(intro, b.size() - intro - term);
}

long first_param(std::string_view params) {
  long v = -1;
  for (char c : params) {
    if (c < '0' || c > '9') break;
    v = (v < 0 ? 0 : v) * 10 + (c - '0');
    if (v > 1000000) v = 1000000;
  }
  return v;
}

}  // namespace blaude::term
