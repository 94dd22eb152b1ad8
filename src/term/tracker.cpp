#include "term/tracker.hpp"

#include <algorithm>
#include <cstring>

#include "term/sgr.hpp"
#include "term/skim.hpp"

namespace blaude::term {

namespace {

constexpr unsigned char ESC = 0x1b, BEL = 0x07, CAN = 0x18, SUB = 0x1a, SO = 0x0e, SI = 0x0f;

// The first byte below 0x20 in [p, end), or end. Eight bytes at a time: in text (and in the
// payloads the parser skips) only C0 controls can change the parser's state. For the lowest
// byte that is < 0x20 the test is exact (borrows only run upwards), and bytes >= 0x80 never
// match, so UTF-8 text is skipped at word speed.
typedef unsigned char v16 __attribute__((vector_size(16)));

const char* next_control(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  // 16 at a time with the compiler's vector extension (SSE2/NEON) while there are none; the
  // word loop below then finds which.
  while (end - p >= 16) {
    v16 v;
    std::memcpy(&v, p, 16);
    v16 m = v < 0x20;
    uint64_t lo, hi;
    std::memcpy(&lo, &m, 8);
    std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 8, 8);
    if (lo | hi) break;
    p += 16;
  }
  while (end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    uint64_t m = (x - kOnes * 0x20) & ~x & (kOnes * 0x80);
    if (m) return p + (__builtin_ctzll(m) >> 3);
    p += 8;
  }
  while (p < end && static_cast<unsigned char>(*p) >= 0x20) ++p;
  return p;
}

// The first ESC, SO or SI in [p, end), or end: in text only these three change what the
// tracker knows (newlines, tabs, BEL and the other C0 controls do nothing in the ground state),
// so a line of text is one pass of 16-byte compares, not a stop at every newline.
const char* next_ground_control(const char* p, const char* end) {
  while (end - p >= 16) {
    v16 v;
    std::memcpy(&v, p, 16);
    v16 m = (v == ESC) | ((v & 0xfe) == SO);  // 0x0e SO, 0x0f SI
    uint64_t lo, hi;
    std::memcpy(&lo, &m, 8);
    std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 8, 8);
    if (lo) return p + (__builtin_ctzll(lo) >> 3);
    if (hi) return p + 8 + (__builtin_ctzll(hi) >> 3);
    p += 16;
  }
  for (; p < end; ++p) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c == ESC || c == SO || c == SI) return p;
  }
  return p;
}

// The first byte at or after p that is not a CSI parameter byte (0x30-0x3f: digits, ':', ';',
// and the markers < = > ?), eight at a time: a TUI's parameter runs are short and of every
// length, where a byte loop mispredicts its exit on each one.
const char* skip_param_bytes(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  while (end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    uint64_t m = (x ^ (kOnes * 0x30)) & (kOnes * 0xf0);  // nonzero high nibble: not 0x3_
    if (m) return p + (__builtin_ctzll(m) >> 3);
    p += 8;
  }
  while (p < end && (static_cast<unsigned char>(*p) & 0xf0) == 0x30) ++p;
  return p;
}

// Whether [p, end) (parameter bytes) holds a marker (< = > ?), which makes the state machine
// ignore the sequence.
bool has_marker(const char* p, const char* end) {
  for (; p < end; ++p)
    if (static_cast<unsigned char>(*p) >= '<') return true;
  return false;
}

// Final bytes of a CSI that any marker/intermediate combination makes tracked (tracked_csi).
bool maybe_tracked_final(unsigned char f) {
  switch (f) {
    case 'h': case 'l': case 'm': case 'n': case 'p': case 'q': case 'r': case 's': case 't': case 'u':
      return true;
    default:
      return false;
  }
}

// Digits, ':' and ';' into `out`, as the state machine's digit()/separator() would.
void parse_params(const char* p, const char* end, Params& out) {
  out.clear();
  uint32_t cur = Params::kNone;
  bool colon = false;
  const bool any = p < end;
  for (; p < end; ++p) {
    unsigned c = static_cast<unsigned char>(*p) - '0';
    if (c <= 9u) {
      cur = cur == Params::kNone ? c : std::min<uint32_t>(cur * 10 + c, Params::kCap);
    } else {
      out.add(cur, colon);
      colon = c == ':' - '0';
      cur = Params::kNone;
    }
  }
  if (any) out.add(cur, colon);
}

// An SGR whose first parameter is 0 or empty sets every attribute from nothing: what came
// before it no longer matters.
bool sgr_starts_from_default(std::string_view p) {
  size_t k = 0;
  while (k < p.size() && p[k] == '0') ++k;
  return k == p.size() || p[k] == ';';
}

}  // namespace

// SGR is the one tracked sequence a TUI sends all the time (a colour per cell run, a reset
// after it). Its parameters are kept where they are in the read and applied only when
// something reads the attributes, from the last SGR that starts from the default on: before
// that, nothing matters. A window's SGRs come as one entry of the log (skim_run); whole_csi()
// logs one SGR as an entry of its own.
void Tracker::log_sgr(std::string_view raw) {
  const size_t m = raw.size() + 2;  // the final byte, from the ESC
  if (log_len_ == kLog) apply_log();
  if (m < 64) {
    const uint64_t bit = uint64_t{1} << m;
    log_[log_len_++] = Found{raw.data() - 2, bit, 1, 0, 0};
    return;
  }
  apply_log();  // too long for an entry: applied now, in order
  Params ps;
  parse_params(raw.data(), raw.data() + raw.size(), ps);
  apply_sgr(st_.cur.sgr, ps);
}

// From the last SGR that starts from the default on (found from the end: a TUI resets every
// few SGRs); dropping what came before it is only a saving.
void Tracker::apply_sgr_log() {
  size_t k = log_len_;
  uint64_t from = ~uint64_t{0};  // in log_[k]: the SGRs from the reset on
  bool reset = false;
  while (k > 0 && !reset) {
    const Found& r = log_[--k];
    for (uint64_t sgr = r.sgr; sgr && !reset;) {
      const unsigned y = 63 - static_cast<unsigned>(__builtin_clzll(sgr));
      sgr &= ~(uint64_t{1} << y);
      const unsigned e = 63 - static_cast<unsigned>(__builtin_clzll(r.esc & ((uint64_t{1} << y) - 1)));
      reset = sgr_starts_from_default(std::string_view(r.base + e + 2, y - e - 2));
      from = ~((uint64_t{1} << y) - 1);
    }
  }
  if (reset) st_.cur.sgr = Sgr{};
  else from = ~uint64_t{0}, k = 0;
  Params ps;
  for (; k < log_len_; ++k, from = ~uint64_t{0}) {
    const Found& r = log_[k];
    for (uint64_t sgr = r.sgr & from; sgr; sgr &= sgr - 1) {
      const unsigned y = static_cast<unsigned>(__builtin_ctzll(sgr));
      const unsigned e = 63 - static_cast<unsigned>(__builtin_clzll(r.esc & ((uint64_t{1} << y) - 1)));
      parse_params(r.base + e + 2, r.base + y, ps);
      apply_sgr(st_.cur.sgr, ps);
    }
  }
}

// The last OSC the windows took that sets a title (0, 1 or 2), as whole_osc() would keep it.
void Tracker::settle_titles() {
  for (size_t k = log_len_; k-- > titles_from_;) {
    const Found& r = log_[k];
    for (uint64_t osc = r.osc; osc;) {
      const unsigned e = 63 - static_cast<unsigned>(__builtin_clzll(osc));
      osc &= ~(uint64_t{1} << e);
      // Its end: the lowest end above its ESC (an end at the ESC itself is the OSC before).
      if (window_title(r.base + e, (r.osc_end >> e) & ~uint64_t{1})) return;
    }
  }
}

// The colour OSCs the windows took, in order (they are rare: a walk over the log's OSC bits).
void Tracker::settle_colours() {
  for (size_t k = 0; k < log_len_; ++k) {
    const Found& r = log_[k];
    for (uint64_t osc = r.osc; osc; osc &= osc - 1) {
      const unsigned e = static_cast<unsigned>(__builtin_ctzll(osc));
      const uint64_t ends = (r.osc_end >> e) & ~uint64_t{1};
      if (!ends) continue;
      const char* p = r.base + e;
      const unsigned t = static_cast<unsigned>(__builtin_ctzll(ends));
      unsigned k2 = 2;
      uint32_t num = 0;
      for (; k2 < t && p[k2] >= '0' && p[k2] <= '9'; ++k2) num = num > 100000 ? num : num * 10 + uint32_t(p[k2] - '0');
      if (!Colours::wanted(num)) continue;
      if (k2 < t && p[k2] != ';') continue;  // not a number and a payload: the machine skips it
      std::string_view payload = k2 < t ? std::string_view(p + k2 + 1, t - k2 - 1) : std::string_view();
      colours_.note(num, payload, false);
    }
  }
}

// A colour OSC read whole (whole_osc, end_osc): the log before it first, so that the notes keep
// the stream's order.
void Tracker::colour_osc(uint32_t num, std::string_view payload, bool cut) {
  settle();
  colours_.note(num, payload, cut);
}

void Tracker::feed(std::string_view in, uint64_t now_ms) {
  now_ = now_ms;
  if (in_string() && now_ms >= string_since_ + kStringTimeoutMs) state_ = S::Ground;
  size_t i = 0;
  while (i < in.size()) {
    switch (state_) {
      case S::Ground:
        i = step_ground(in, i);
        break;
      case S::CsiEntry:
      case S::CsiParam:
        i = scan_params(in, i);
        if (i < in.size()) step(static_cast<unsigned char>(in[i++]));
        break;
      case S::OscNum:
      case S::DcsEntry:
      case S::Esc:
      case S::EscInter:
      case S::CsiInter:
      case S::CsiIgnore:
        step(static_cast<unsigned char>(in[i++]));
        break;
      default:
        i = step_string(in, i);
    }
  }
  settle();
}

void Tracker::begin_tokens(const Windows& w, uint64_t now_ms) {
  now_ = now_ms;
  windows_ = &w;
  span_ = found_ = 0;
}

void Tracker::token(const Token& t) {
  // The state machine takes no 8-bit ST (in UTF-8 output the C1 bytes are continuation bytes):
  // a string the lexer found ended by one is still open to it, and what follows is read as
  // feed() reads it until the machine is back in the ground state.
  const bool c1_st = t.end == End::St && static_cast<unsigned char>(t.bytes.back()) == 0x9c;
  if (state_ != S::Ground || c1_st) {
    feed(t.bytes, now_);
    return;
  }
  if (t.c1) return;  // 8-bit forms: text to a UTF-8 terminal, as to feed()
  switch (t.kind) {
    case Tok::Text:
      text_token(t.bytes);
      return;
    case Tok::Control:
      if (t.bytes == "\x0e") st_.cur.shifted = true;
      else if (t.bytes == "\x0f") st_.cur.shifted = false;
      return;
    case Tok::Csi:
      whole_csi(t.bytes, 1);
      return;
    case Tok::Esc: {
      interm_len_ = 0;
      for (size_t k = 1; k + 1 < t.bytes.size(); ++k)
        add_interm(static_cast<unsigned char>(t.bytes[k]));
      if (t.bytes.size() > 1) esc_dispatch(static_cast<unsigned char>(t.bytes.back()));
      return;
    }
    case Tok::Osc:
      osc_token(string_body(t));
      return;
    default:  // DCS, APC, PM, SOS, screen titles: payloads, skipped; broken ones never reach it
      return;
  }
}

// A text token: text and whole plain CSIs, and the spans the lexer's windows took (their SGRs
// and OSCs logged as the windows found them, cut to this token: an OSC the lexer made a token
// of between two text tokens is not theirs).
void Tracker::text_token(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  const std::vector<WindowSpan>& spans = windows_->spans;
  while (p < end) {
    while (span_ < spans.size() && spans[span_].end <= p) found_ = spans[span_++].found_end;
    const char* from = span_ < spans.size() ? std::min(std::max(spans[span_].begin, p), end) : end;
    // Outside the windows a text token holds only whole plain CSIs besides text.
    while (p < from) {
      p = static_cast<const char*>(std::memchr(p, ESC, static_cast<size_t>(from - p)));
      if (!p) break;
      const std::string_view seq(p, static_cast<size_t>(end - p));
      const size_t done = whole_csi(seq, 1);
      p += done ? done : 1;
    }
    if (from == end) return;
    const WindowSpan& s = spans[span_];
    const char* const upto = std::min(s.end, end);
    for (size_t f = found_; f < s.found_end; ++f) {
      Found w = windows_->found[f];
      if (w.base >= upto) break;
      if (w.base + Window::kSize <= from) {
        found_ = f + 1;
        continue;
      }
      uint64_t keep = ~uint64_t{0};
      if (from > w.base) keep <<= static_cast<unsigned>(from - w.base);
      if (upto < w.base + Window::kSize)
        keep &= (uint64_t{1} << static_cast<unsigned>(upto - w.base)) - 1;
      w.sgr &= keep, w.esc &= keep, w.osc &= keep, w.osc_end &= keep;
      if (w.sgr | w.osc) log_window(w);
    }
    p = upto;
  }
}

void Tracker::log_window(const Found& w) {
  if (log_len_ == kLog) apply_log();
  log_[log_len_++] = w;
}

// An OSC's payload as the state machine reads it from OscNum on: C0 controls inside are skipped
// (none ends it: a whole OSC has no BEL, ESC, CAN or SUB inside), a title or colour payload is
// kept up to Title::kMax bytes.
void Tracker::osc_token(std::string_view body) {
  uint32_t num = 0;
  size_t k = 0;
  for (; k < body.size(); ++k) {
    const unsigned char c = static_cast<unsigned char>(body[k]);
    if (c >= '0' && c <= '9') num = num > 100000 ? num : num * 10 + (c - '0');
    else if (c == ';') break;
    else if (c >= 0x20) return;  // not a number: skipped
  }
  if (k == body.size()) {  // no payload: OSC 104, OSC 110, ...
    if (Colours::wanted(num)) colour_osc(num, {}, false);
    return;
  }
  if (num > 2 && !Colours::wanted(num)) return;
  std::string_view payload = body.substr(k + 1);
  Title kept;
  bool cut = false;
  for (size_t i = 0; i < payload.size();) {  // the runs between C0 controls
    size_t j = i;
    while (j < payload.size() && static_cast<unsigned char>(payload[j]) >= 0x20) ++j;
    if (kept.len + (j - i) > Title::kMax) {
      cut = true;
    } else {
      std::memcpy(kept.text.data() + kept.len, payload.data() + i, j - i);
      kept.len = static_cast<uint16_t>(kept.len + (j - i));
    }
    i = j + 1;
  }
  osc_ended(num, kept, cut);
}

// An OSC 0-2 or colour OSC ended with this payload (`cut`: longer than kept).
void Tracker::osc_ended(uint32_t num, const Title& kept, bool cut) {
  if (num > 2) {
    colour_osc(num, kept.view(), cut);
    return;
  }
  if (cut) return;
  title_ = kept;
  title_.code = static_cast<uint8_t>(num);
  title_.set = true;
  titles_from_ = log_len_;  // the windows' titles came before this one
}

// The parameters of a CSI, in one tight loop: most of the escape bytes of a TUI's output are
// digits and separators.
size_t Tracker::scan_params(std::string_view in, size_t i) {
  const size_t n = in.size();
  for (; i < n; ++i) {
    unsigned c = static_cast<unsigned char>(in[i]);
    if (c - '0' <= 9u) params_.digit(c - '0');
    else if (c == ';' || c == ':') params_.separator(c == ':');
    else return i;
    state_ = S::CsiParam;
  }
  return i;
}

// Text: skip to the next control; only ESC, SO and SI mean anything here. At a CSI, ST or OSC,
// skim() takes text, untracked CSIs, SGRs, STs and one-digit OSCs (titles, links) a 64-byte
// window at a time (no branch per sequence); the next window starts where one stopped. A
// sequence that starts a window and is not one skim() takes, and every other control, goes
// through the loop below.
size_t Tracker::step_ground(std::string_view in, size_t i) {
  const char* end = in.data() + in.size();
  const char* p = in.data() + i;
  while (p < end) {
    p = next_ground_control(p, end);
    if (p == end) break;
    if (end - p > 1 && (p[1] == '[' || p[1] == '\\' || p[1] == ']')) {  // CSI, ST, OSC: windows
      bool at_control;
      p = skim_windows(p, end, at_control);
      if (!at_control) continue;  // else p is at an ESC, SO or SI no window takes
    }
    unsigned char c = static_cast<unsigned char>(*p);
    if (c == ESC) {
      size_t at = static_cast<size_t>(p - in.data());
      size_t done = whole_csi(in, at + 1);
      if (!done) done = whole_osc(in, at + 1);
      if (done) {  // dispatched at once; back to text (an OSC's closing ESC is read next)
        p = in.data() + done;
        continue;
      }
      state_ = S::Esc;
      return at + 1;
    }
    if (c == SO) st_.cur.shifted = true;
    else if (c == SI) st_.cur.shifted = false;
    ++p;
  }
  return in.size();
}

// `ESC ] Ps ; text` at p, ended at the lowest bit of `end`: kept as the title, as whole_osc()
// would keep it, when Ps is 0, 1 or 2. True when it was a title.
bool Tracker::window_title(const char* p, uint64_t end) {
  const unsigned t = static_cast<unsigned>(__builtin_ctzll(end));
  unsigned k = 2;
  uint32_t num = 0;
  for (; k < t && p[k] >= '0' && p[k] <= '9'; ++k) num = num > 100000 ? num : num * 10 + uint32_t(p[k] - '0');
  if (k >= t || p[k] != ';' || num > 2) return false;
  title_.code = static_cast<uint8_t>(num);
  title_.set = true;
  title_.len = static_cast<uint16_t>(t - k - 1);
  std::memcpy(title_.text.data(), p + k + 1, t - k - 1);
  return true;
}

// Windows from p (skim_run), their findings logged; the log applied whenever it is full.
// Returns where they stopped: at end, after text (at_control false), or at an ESC, SO or SI
// that no window takes (at_control true).
const char* Tracker::skim_windows(const char* p, const char* end, bool& at_control) {
  for (;;) {
    const Skimmed r = skim_run(p, end, log_.data() + log_len_, kLog - log_len_);
    p += r.taken;
    log_len_ = static_cast<uint16_t>(log_len_ + r.found);
    at_control = r.at_control;
    if (log_len_ < kLog || at_control || p >= end) return p;
    apply_log();  // full: on from here
  }
}

// Whether a CSI with this marker, intermediate and final byte changes anything tracked. Most
// of a TUI's sequences (cursor moves, erases) do not: their parameters need not be read.
bool tracked_csi(char prefix, uint8_t interm_len, char interm, unsigned char f) {
  if (interm_len > 1) return false;
  if (interm_len == 1) return !prefix && ((interm == ' ' && f == 'q') || (interm == '!' && f == 'p'));
  switch (prefix) {
    case 0: return f == 'h' || f == 'l' || f == 'm' || f == 'r' || f == 's' || f == 'u' || f == 't';
    case '?': return f == 'h' || f == 'l' || f == 's' || f == 'r';
    case '>': return f == 'u' || f == 'm' || f == 'n';
    case '<': case '=': return f == 'u';
    default: return false;
  }
}

// The common case, a whole `ESC [ ... final` inside this read with nothing unusual in it, in
// one pass. Returns the index after it, or 0 to let the state machine take it byte by byte.
size_t Tracker::whole_csi(std::string_view in, size_t i) {
  const size_t n = in.size();
  if (i >= n || in[i] != '[') return 0;
  size_t j = i + 1;
  char prefix = 0;
  if (j < n && in[j] >= '<' && in[j] <= '?') prefix = in[j++];
  const size_t params = j;
  j = static_cast<size_t>(skip_param_bytes(in.data() + j, in.data() + n) - in.data());
  const size_t params_end = j;
  uint8_t ilen = 0;
  char interm = 0;
  while (j < n && in[j] >= 0x20 && in[j] <= 0x2f) interm = in[j++], ++ilen;
  if (j >= n || in[j] < 0x40 || in[j] > 0x7e) return 0;
  const unsigned char f = static_cast<unsigned char>(in[j]);
  // Cursor moves, erases and the like (most of a TUI's sequences): nothing to read.
  if (!maybe_tracked_final(f)) return j + 1;
  // A marker among the parameters: the state machine ignores the whole sequence.
  if (has_marker(in.data() + params, in.data() + params_end)) return j + 1;
  if (!tracked_csi(prefix, ilen, interm, f)) return j + 1;
  if (f == 'm' && !prefix && !ilen) {
    log_sgr(in.substr(params, params_end - params));
    return j + 1;
  }
  parse_params(in.data() + params, in.data() + params_end, params_);
  prefix_ = prefix;
  interm_len_ = ilen > 2 ? 3 : ilen;
  interm_[0] = interm;
  csi_dispatch(f);
  return j + 1;
}

// The same for a whole `ESC ] Ps ; text` with its BEL or ESC inside this read and no other
// control in it (titles, OSC 8 links): what the state machine does, in one pass. An ESC that
// ends it is left to be read next, from the ground state, as the machine reads it from Esc.
size_t Tracker::whole_osc(std::string_view in, size_t i) {
  const size_t n = in.size();
  if (i >= n || in[i] != ']') return 0;
  size_t j = i + 1;
  uint32_t num = 0;
  for (; j < n && in[j] >= '0' && in[j] <= '9'; ++j) num = num > 100000 ? num : num * 10 + uint32_t(in[j] - '0');
  if (j >= n || in[j] != ';') return 0;
  const char* text = in.data() + j + 1;
  const char* p = next_control(text, in.data() + n);
  if (p == in.data() + n || (*p != BEL && *p != ESC)) return 0;
  const size_t len = static_cast<size_t>(p - text);
  if (Colours::wanted(num))  // cut as the state machine cuts it, so every split agrees
    colour_osc(num, std::string_view(text, std::min(len, Title::kMax)), len > Title::kMax);
  if (num <= 2 && len <= Title::kMax) {  // as end_osc(); a longer title is not kept
    titles_from_ = log_len_;              // the windows' titles came before this one
    title_.code = static_cast<uint8_t>(num);
    title_.set = true;
    title_.len = static_cast<uint16_t>(len);
    std::memcpy(title_.text.data(), text, len);
  }
  const size_t end = static_cast<size_t>(p - in.data());
  return *p == BEL ? end + 1 : end;
}

// A string payload: skip (or, for a title, keep) everything up to the next control.
size_t Tracker::step_string(std::string_view in, size_t i) {
  const char* start = in.data() + i;
  const char* end = in.data() + in.size();
  const char* p = state_ == S::DcsEsc ? start : next_control(start, end);
  if (state_ == S::OscTitle) {
    size_t n = static_cast<size_t>(p - start);
    Title& t = pending_title_;
    if (t.len + n > Title::kMax) osc_title_long_ = true;
    else std::memcpy(t.text.data() + t.len, start, n), t.len = static_cast<uint16_t>(t.len + n);
  }
  if (p == end) return in.size();
  step(static_cast<unsigned char>(*p));
  return static_cast<size_t>(p - in.data()) + 1;
}

// Transitions that apply in every state but a DCS payload. True when `c` was consumed.
bool Tracker::anywhere(unsigned char c) {
  if (c == CAN || c == SUB) {
    if (state_ == S::OscTitle || state_ == S::OscNum) end_osc();
    state_ = S::Ground;
    return true;
  }
  if (c == ESC) {
    // tmux acts on an OSC however it ends
    if (state_ == S::OscTitle || state_ == S::OscNum) end_osc();
    state_ = S::Esc;
    return true;
  }
  return false;
}

void Tracker::step(unsigned char c) {
  switch (state_) {
    case S::DcsPass:
      if (c == ESC) state_ = S::DcsEsc;
      return;
    case S::DcsEsc:
      state_ = c == '\\' ? S::Ground : S::DcsPass;
      return;
    default:
      break;
  }
  if (anywhere(c)) return;
  switch (state_) {
    case S::Ground:  // only reached from step_ground's callers for a lone byte
    case S::Esc:
    case S::EscInter:
    case S::CsiEntry:
    case S::CsiParam:
    case S::CsiInter:
    case S::CsiIgnore:
      if (c < 0x20) {  // C0 controls are executed in the middle of a sequence too
        if (c == SO) st_.cur.shifted = true;
        else if (c == SI) st_.cur.shifted = false;
        return;
      }
      if (c >= 0x7f) return;
      if (state_ == S::Esc || state_ == S::EscInter) step_esc(c);
      else step_csi(c);
      return;
    case S::OscNum:
      if (c >= '0' && c <= '9') {
        osc_num_ = osc_num_ > 100000 ? osc_num_ : osc_num_ * 10 + (c - '0');
      } else if (c == ';') {
        bool keep = osc_num_ <= 2 || Colours::wanted(osc_num_);
        state_ = keep ? S::OscTitle : S::OscSkip;
        pending_title_.len = 0;
        osc_title_long_ = false;
      } else if (c == BEL) {
        if (Colours::wanted(osc_num_)) colour_osc(osc_num_, {}, false);  // OSC 104, 110, ...
        state_ = S::Ground;
      } else if (c >= 0x20) {
        state_ = S::OscSkip;
      }
      return;
    case S::OscTitle:
    case S::OscSkip:
      if (c == BEL) {
        if (state_ == S::OscTitle) end_osc();
        state_ = S::Ground;
      }
      return;  // other C0 bytes are ignored inside strings
    case S::DcsEntry:
      step_dcs_entry(c);
      return;
    default:  // DcsIgnore, StrSkip: wait for ESC, CAN or SUB
      return;
  }
}

void Tracker::enter_string(S s) {
  state_ = s;
  string_since_ = now_;
}

void Tracker::end_osc() {
  if (state_ == S::OscNum) {  // no payload: OSC 104, OSC 110, ...
    if (Colours::wanted(osc_num_)) colour_osc(osc_num_, {}, false);
    return;
  }
  osc_ended(osc_num_, pending_title_, osc_title_long_);
}

void Tracker::add_interm(unsigned char c) {
  if (interm_len_ < 2) interm_[interm_len_++] = static_cast<char>(c);
  else interm_len_ = 3;
}

void Tracker::step_esc(unsigned char c) {
  if (state_ == S::Esc) {
    interm_len_ = 0;
    switch (c) {
      case '[':
        state_ = S::CsiEntry;
        params_.clear();
        prefix_ = 0;
        return;
      case ']':
        osc_num_ = 0;
        enter_string(S::OscNum);
        return;
      case 'P':
        enter_string(S::DcsEntry);
        return;
      case 'X': case '^': case '_': case 'k':
        enter_string(S::StrSkip);
        return;
      default:
        break;
    }
  }
  if (c < 0x30) {
    add_interm(c);
    state_ = S::EscInter;
    return;
  }
  esc_dispatch(c);
  state_ = S::Ground;
}

void Tracker::step_csi(unsigned char c) {
  if (c >= 0x40) {  // the final byte
    if (state_ != S::CsiIgnore) csi_dispatch(c);
    state_ = S::Ground;
    return;
  }
  if (state_ == S::CsiIgnore) return;
  if (c < 0x30) {
    add_interm(c);
    state_ = S::CsiInter;
  } else if (state_ == S::CsiInter) {
    state_ = S::CsiIgnore;  // a parameter after an intermediate: malformed
  } else if (c <= '9') {
    params_.digit(c - '0');
    state_ = S::CsiParam;
  } else if (c <= ';') {
    params_.separator(c == ':');
    state_ = S::CsiParam;
  } else if (state_ == S::CsiEntry) {
    prefix_ = static_cast<char>(c);
    state_ = S::CsiParam;
  } else {
    state_ = S::CsiIgnore;  // a private marker after the first byte
  }
}

void Tracker::step_dcs_entry(unsigned char c) {
  if (c < 0x20 || c == 0x7f) return;
  if (c == ':') state_ = S::DcsIgnore;
  else if (c >= 0x40 && c <= 0x7e) state_ = S::DcsPass;
}

void Tracker::esc_dispatch(unsigned char f) {
  if (interm_len_ == 0) {
    switch (f) {  // the attributes are brought up to date only where they are read or replaced
      case '7': settle(), save_cursor(st_); break;
      case '8': settle(), restore_cursor(st_); break;
      case '=': st_.set_flag(Flag::Keypad, Tri::On); break;
      case '>': st_.set_flag(Flag::Keypad, Tri::Off); break;
      case 'c': settle(), st_.reset(); break;
      default: break;
    }
    return;
  }
  if (interm_[0] == '(' && interm_len_ <= 2) st_.cur.g0 = static_cast<char>(f);
}

void Tracker::csi_dispatch(unsigned char f) {
  if (interm_len_ > 1) return;
  settle();
  if (prefix_) csi_private(f);
  else csi_plain(f);
}

void Tracker::csi_private(unsigned char f) {
  const Params& p = params_;
  if (interm_len_ != 0) return;
  if (prefix_ == '?') {
    if (f == 'h' || f == 'l') {
      for (size_t i = 0; i < p.n; ++i)
        if (p.v[i] != Params::kNone) set_dec_mode(st_, p.v[i], f == 'h');
      if (p.overflow) mark_modes_unknown(st_);
    } else if (f == 's' || f == 'r') {
      // XTSAVE / XTRESTORE; with no list, kitty saves or restores every mode.
      static constexpr uint32_t kAll[] = {1,    5,    7,    25,   1004, 2004, 2026, 9,
                                          1000, 1001, 1002, 1003, 1005, 1006, 1015, 1016};
      auto apply = [&](uint32_t m) { f == 's' ? xtsave(st_, m) : xtrestore(st_, m); };
      if (p.n == 0) {
        for (uint32_t m : kAll) apply(m);
      } else {
        for (size_t i = 0; i < p.n; ++i)
          if (p.v[i] != Params::kNone) apply(p.v[i]);
        if (p.overflow && f == 'r') mark_modes_unknown(st_);
      }
    }
    return;
  }
  if (f == 'u') {  // the kitty keyboard protocol
    auto flags = [](uint32_t v) { return static_cast<uint8_t>(v > 255 ? 255 : v); };
    KeyStack& k = st_.keys();
    if (prefix_ == '>') {
      k.push(flags(p.get(0, 0)));
    } else if (prefix_ == '<') {
      k.pop(p.get(0, 1));
    } else if (prefix_ == '=') {
      uint8_t v = flags(p.get(0, 0));
      uint32_t mode = p.get(1, 1);
      if (mode == 1) k.set_top(v);
      else if (mode == 2) k.set_top(k.top() | v);
      else if (mode == 3) k.set_top(static_cast<uint8_t>(k.top() & ~v));
    }
    return;
  }
  if (prefix_ == '>' && (f == 'm' || f == 'n')) {  // xterm key modifier resources
    if (p.n == 0 && f == 'm') st_.other_keys = 0;  // all resources back to their defaults
    if (p.get(0, Params::kNone) != 4) return;
    uint32_t level = f == 'm' ? p.get(1, 0) : 0;
    st_.other_keys = static_cast<uint8_t>(level > 255 ? 255 : level);
  }
}

void Tracker::csi_plain(unsigned char f) {
  const Params& p = params_;
  if (interm_len_ == 1) {
    if (interm_[0] == ' ' && f == 'q') {
      uint32_t shape = p.get(0, 0);
      st_.cursor_shape = static_cast<uint8_t>(shape > 255 ? 255 : shape);
    } else if (interm_[0] == '!' && f == 'p') {
      soft_reset(st_);
    }
    return;
  }
  switch (f) {
    case 'h':
    case 'l':
      for (size_t i = 0; i < p.n; ++i)
        if (p.v[i] != Params::kNone) set_ansi_mode(st_, p.v[i], f == 'h');
      return;
    case 'm':
      apply_sgr(st_.cur.sgr, p);
      return;
    case 'r': {
      uint32_t top = p.get(0, 1), bottom = p.get(1, 0);
      if (top == 0) top = 1;
      if (bottom != 0 && top >= bottom) return;  // invalid: the terminal ignores it
      st_.region = !(top == 1 && bottom == 0);
      st_.region_top = st_.region ? static_cast<uint16_t>(top) : 0;
      st_.region_bottom = st_.region ? static_cast<uint16_t>(bottom) : 0;
      return;
    }
    case 's':
      if (p.n == 0) save_cursor(st_);  // SCOSC; with parameters it is DECSLRM
      return;
    case 'u':
      if (p.n == 0) restore_cursor(st_);  // SCORC
      return;
    case 't':
      title_op();
      return;
    default:
      return;
  }
}

// XTWINOPS 22 (push title) and 23 (pop title); Ps 0 both, 1 icon, 2 window.
void Tracker::title_op() {
  uint32_t op = params_.get(0, 0);
  uint32_t which = params_.get(1, 0);
  if (which > 2) return;
  if (op == 22) {
    if (st_.title_pushes < TermState::kTitles)
      st_.title_ps[st_.title_pushes++] = static_cast<uint8_t>(which);
  } else if (op == 23 && st_.title_pushes > 0) {
    --st_.title_pushes;
  }
}

}  // namespace blaude::term
