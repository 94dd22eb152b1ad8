// The escape-sequence lexer of the child's output: a pure streaming tokenizer, fed byte slices
// of any split, that cuts the stream into text, single controls and whole sequences (CSI, OSC,
// DCS, APC, PM, SOS, ESC). It holds an unfinished sequence until it ends (bounded in length and,
// with the clock the caller passes in, in time) and never changes a byte: the tokens it returns,
// concatenated, are the bytes it was fed, in order, less only what it holds at the end.
//
// It follows the DEC/ANSI state machine of Paul Williams as tmux's input.c and mosh's parser
// implement it, with the choices a firewall needs:
//  - a string (OSC, DCS, APC, PM, SOS, screen's `ESC k`) is whole only when properly ended: an
//    OSC by BEL or ST, the others by ST (`ESC \` or 0x9C). An ESC followed by anything else
//    breaks it (terminals differ on whether that dispatches it); so do CAN and SUB. A string
//    open for kStringTimeoutMs is abandoned (tmux's timer).
//  - tmux's passthrough `ESC P tmux; ... ESC \` doubles the ESCs inside: there `ESC ESC` is
//    payload, so that the inner sequence can be unwrapped and judged by the caller.
//  - 8-bit C1 introducers (0x90 DCS, 0x9B CSI, 0x9D OSC, 0x98 SOS, 0x9E PM, 0x9F APC) open the
//    same sequences as their 7-bit forms, and 0x9C is ST; the token says it was C1. But a byte
//    0x80-0x9F is a C1 control only where it is not a UTF-8 continuation byte: valid UTF-8 text
//    (`❯` is E2 9D AF, `─` is E2 94 80) is text. The rule is a decoder's greedy one, and it
//    looks at no more than the three bytes before: a byte 0x80-0xBF continues a character when
//    the byte before is a lead (C2-F4), or two before is a lead of 3 or 4 bytes (E0-F4) with a
//    continuation between, or three before a lead of 4 (F0-F4) with two between. The second
//    byte's finer ranges (E0 A0-BF, ED 80-9F, F0 90-BF, F4 80-8F) are not asked for: any C1 byte
//    can follow E1-EC in valid UTF-8, so a terminal that took them as controls would take
//    valid text as controls anyway; being lenient there lets nothing through that strict
//    validation would stop.
//  - a C0 control inside a CSI or ESC sequence (terminals execute it in place) comes out as its
//    own token and the sequence is broken (no real program writes one there); a byte >= 0x80
//    inside one breaks it too and is read again as text.
//  - a sequence longer than its bound is broken (Broken, Why::Overlong): its bytes are not
//    returned, only a head for the log, and the rest is skipped up to its end.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "term/skim.hpp"

namespace blaude::term {

enum class Tok : uint8_t {
  Text,     // text: printable bytes (ASCII, UTF-8, and bytes 0xA0-0xFF that are no valid UTF-8)
            // and the C0 controls that change nothing a consumer keeps (CR, LF, BEL, ...); and
            // the plain CSIs the consumer asked not to get as tokens (set_plain_csi)
  Control,  // one control a consumer may act on: ENQ, SO, SI, a lone C1 control, or a C0
            // control met inside a CSI or ESC sequence
  Esc,      // ESC [intermediates] final, and a lone ST
  Csi,
  Osc,
  Dcs,
  Apc,
  Pm,
  Sos,
  ScreenTitle,  // screen's `ESC k title ST`
  Broken,       // a sequence that did not end properly: `of` says which, `why` how
};

enum class Why : uint8_t { None, Cancelled, Interrupted, Malformed, Overlong, TimedOut, Unterminated };

enum class End : uint8_t { None, Bel, St };

struct Token {
  Tok kind = Tok::Text;
  Tok of = Tok::Text;  // Broken: the sequence it was
  Why why = Why::None;
  End end = End::None;  // strings: how it ended
  bool c1 = false;      // opened (or, a Control, is) an 8-bit C1 byte
  bool tmux = false;    // a DCS that is tmux's passthrough (`tmux;` with doubled ESCs)
  // The bytes: a view into the slice fed, or into the lexer (a sequence that crossed slices),
  // valid until the next feed(), tick() or finish(). Broken::Overlong: the first bytes only.
  std::string_view bytes;
  size_t length = 0;  // the whole sequence's length (more than bytes.size() when overlong)
};

// The parts of a CSI, `ESC [` (or 0x9B) marker? params intermediates final.
struct CsiParts {
  char marker = 0;             // one of < = > ?, when it is the first parameter byte
  std::string_view params;     // 0-9 : ; (and any marker past the first byte: then !valid)
  std::string_view interm;     // 0x20-0x2F
  unsigned char final = 0;
  bool valid = false;          // as above, nothing else inside
};
CsiParts csi_parts(const Token& t);

// A DCS's head (params, intermediates, final) and its payload up to the ST.
struct DcsParts {
  std::string_view params, interm, body;
  unsigned char final = 0;
  bool valid = false;
};
DcsParts dcs_parts(const Token& t);

// A string's payload: the bytes between the introducer and the terminator.
std::string_view string_body(const Token& t);

// The first number of the first parameter (digits only), or -1 when there is none.
long first_param(std::string_view params);

// What the windows of term/skim.hpp took in one feed(), for the terminal state tracker, which
// would otherwise run them again: the spans of the slice they read (text to a consumer: text,
// plain CSIs, STs and plain OSCs, less the OSCs that became tokens) and, for each span, the
// entries of its windows that found SGRs or OSCs, their masks cut to the span. In stream order;
// the pointers are into the slice fed, valid as long as its tokens' bytes.
struct WindowSpan {
  const char* begin;
  const char* end;
  size_t found_end;  // its entries are found[previous span's found_end, found_end)
};
struct Windows {
  std::vector<WindowSpan> spans;
  std::vector<Found> found;
};

struct LexerLimits {
  size_t max_control = 512;            // CSI and ESC sequences
  size_t max_string = 1024 * 1024 + 64;  // OSC 52 payloads, sixel, kitty graphics chunks
  uint64_t string_timeout_ms = 5000;
};

class Lexer {
public:
  static constexpr size_t kHead = 64;  // bytes of an overlong sequence kept for the log

  explicit Lexer(LexerLimits lim = {}) : lim_(lim) {}

  // Appends the tokens of `in` to `out`. A sequence open at the end is held (no token).
  void feed(std::string_view in, uint64_t now_ms, std::vector<Token>& out);
  // A held sequence older than the string timeout becomes a Broken token (TimedOut).
  void tick(uint64_t now_ms, std::vector<Token>& out);
  // Absolute time at which tick() has work, or -1.
  int64_t next_deadline_ms() const;
  // End of stream: a held sequence becomes a Broken token (Unterminated).
  void finish(std::vector<Token>& out);
  // The windows the last feed() ran (above).
  const Windows& windows() const { return windows_; }
  // Nothing held.
  bool idle() const { return st_ == St::Ground; }
  // The finals of plain CSIs (`ESC [`, an optional marker < = > ? first, digits, ':' and ';',
  // no intermediate) the consumer needs no token for: such a CSI, whole inside one slice, is
  // returned as part of the text around it. None by default.
  void set_plain_csi(std::string_view finals);
  // The same for 7-bit OSCs ended by BEL or ST whose payload (between `ESC ]` and the
  // terminator) `plain` says the consumer needs no token for. Only on the fast path: an OSC
  // found otherwise is still a token.
  void set_plain_osc(bool (*plain)(std::string_view body)) { plain_osc_ = plain; }

  // Whether the byte 0x80-0xBF at in[i] is a UTF-8 continuation, by the greedy rule above;
  // `before` are the three bytes that preceded `in` (oldest first).
  static bool continues(const unsigned char* before, std::string_view in, size_t i);

private:
  enum class St : uint8_t { Ground, Esc, EscInter, Csi, Str, StrEsc };

  // Each takes the byte(s) at i and returns where to go on (i itself: read it again).
  size_t ground(std::string_view in, size_t i, std::vector<Token>& out);
  size_t skim(std::string_view in, size_t j, size_t& text, std::vector<Token>& out);
  size_t skim_tokens(std::string_view in, size_t j, const Found* found, size_t n_found,
                     size_t taken, size_t& text, std::vector<Token>& out);
  void note_windows(const char* begin, const char* end, const Found* found, size_t n);
  size_t step_esc(std::string_view in, size_t i, std::vector<Token>& out);
  size_t step_csi(std::string_view in, size_t i, std::vector<Token>& out);
  size_t step_str(std::string_view in, size_t i, std::vector<Token>& out);
  size_t step_str_esc(std::string_view in, size_t i, std::vector<Token>& out);
  void open(Tok kind, bool c1, size_t at);
  size_t bound() const;
  size_t seq_len(size_t end) const;
  std::string_view so_far(std::string_view in, size_t end);
  void emit(Tok kind, std::string_view in, size_t end, std::vector<Token>& out, End e = End::None);
  void broken(Why why, std::string_view in, size_t end, std::vector<Token>& out);
  void control(std::string_view in, size_t j, bool c1, std::vector<Token>& out);
  void overlong(std::string_view in, size_t upto);
  void top_up(std::string_view in, size_t upto);
  bool is_tmux(std::string_view in, size_t i);

  LexerLimits lim_;
  St st_ = St::Ground;
  Tok kind_ = Tok::Text;   // the open sequence's kind
  bool c1_ = false;
  bool tmux_ = false;
  bool malformed_ = false; // a control or DEL inside: the sequence comes out Broken
  bool skipping_ = false;  // past its bound: bytes only counted up to its end
  size_t start_ = 0;       // where the open sequence began in the current slice
  bool held_ = false;      // its first bytes are in buf_ (it began in an earlier slice)
  size_t seq_before_ = 0;  // held: its length before the current slice
  std::string buf_;        // a sequence that crosses slices, so far (a head when skipping)
  std::deque<std::string> done_;  // such sequences finished in this call: their tokens' bytes
  uint64_t since_ = 0, now_ = 0;
  unsigned char before_[3] = {0, 0, 0};  // the last three bytes fed before this slice
  uint64_t plain_[2] = {0, 0};  // set_plain_csi(): bit f - 0x40
  bool plain_any_ = false;
  bool skim_ok_ = false;  // the windows of term/skim.hpp take only plain CSIs
  bool (*plain_osc_)(std::string_view) = nullptr;
  Windows windows_;
};

}  // namespace blaude::term
