// The terminal state tracker: what the user's terminal was told by the child's output (modes,
// keyboard protocols, rendition, title, colours), for the undo at exit and on suspend. It only
// observes: no byte is changed, held or reordered, and it does no I/O (the caller passes the
// clock in). Fed any split of a stream, it ends in the same state.
//
// It is fed in one of two ways:
//  - the lexer's tokens (term/lexer.hpp), those the terminal firewall lets through, with the
//    windows the lexer ran over the text (see_tokens()): what the session does, so that the
//    child's output is lexed once. The firewall passes only whole sequences, so the tracker is
//    in the ground state between them; their meaning is what feed() of their bytes would give.
//  - raw bytes (feed()), through the state machine below: blaude's own undo and reset bytes,
//    and a session without a filter.
//
// The parser is the DEC/ANSI state machine of Paul Williams as tmux's input.c implements it,
// 7-bit only (in UTF-8 output the C1 bytes are continuation bytes): CSI and ESC sequences are
// dispatched; OSC, DCS, APC, PM and SOS payloads are skipped, so nothing inside them is taken for
// a mode. As in tmux, an OSC ends at BEL or ESC, a DCS only at `ESC \` (tmux passthrough doubles
// the ESCs inside it), CAN and SUB abort everything but a DCS, and a string open for 5 s is
// abandoned.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "term/colours.hpp"
#include "term/lexer.hpp"
#include "term/params.hpp"
#include "term/skim.hpp"
#include "term/state.hpp"

namespace blaude::term {

// The last window or icon title the child set (OSC 0/1/2), kept for reapply().
struct Title {
  static constexpr size_t kMax = 256;  // longer titles are not kept (and not re-sent)
  uint8_t code = 0;                    // the OSC number
  bool set = false;
  uint16_t len = 0;
  std::array<char, kMax> text{};
  std::string_view view() const { return {text.data(), len}; }
};

class Tracker {
public:
  static constexpr uint64_t kStringTimeoutMs = 5000;  // tmux's input timer

  void feed(std::string_view bytes, uint64_t now_ms = 0);

  // The tokens of one Lexer::feed() that reach the terminal, in order: begin_tokens() with that
  // feed's windows, token() for each, end_tokens() before the bytes they view go away.
  void begin_tokens(const Windows& w, uint64_t now_ms);
  void token(const Token& t);
  void end_tokens() { settle(); }

  const TermState& state() const { return st_; }
  const Title& title() const { return title_; }
  const Colours& colours() const { return colours_; }
  // True when the stream stopped inside a sequence: undo() then first ends it.
  bool mid_sequence() const { return state_ != S::Ground; }
  bool in_dcs() const { return state_ == S::DcsPass || state_ == S::DcsEsc; }
  // The terminal was moved back to the ground state by bytes the tracker did not see (the CAN
  // that undo() starts with).
  void to_ground() { state_ = S::Ground; }

private:
  enum class S : uint8_t {
    Ground,
    Esc,
    EscInter,
    CsiEntry,
    CsiParam,
    CsiInter,
    CsiIgnore,
    OscNum,    // the OSC number, up to ';'
    OscTitle,  // the payload of OSC 0/1/2, or of a colour OSC (Colours::wanted)
    OscSkip,   // any other OSC payload
    DcsEntry,  // parameters and intermediates up to the DCS final byte
    DcsPass,   // DCS payload: only `ESC \` ends it
    DcsEsc,
    DcsIgnore,
    StrSkip,   // APC, PM, SOS, screen's ESC k: skipped up to ESC, CAN or SUB
  };
  bool in_string() const { return state_ >= S::OscNum; }

  void text_token(std::string_view text);
  void osc_token(std::string_view body);
  void osc_ended(uint32_t num, const Title& kept, bool cut);
  void log_window(const Found& w);
  size_t step_ground(std::string_view in, size_t i);
  const char* skim_windows(const char* p, const char* end, bool& at_control);
  bool window_title(const char* p, uint64_t end);
  size_t step_string(std::string_view in, size_t i);
  size_t scan_params(std::string_view in, size_t i);
  size_t whole_csi(std::string_view in, size_t i);
  size_t whole_osc(std::string_view in, size_t i);
  void step(unsigned char c);
  void step_esc(unsigned char c);
  void step_csi(unsigned char c);
  void step_dcs_entry(unsigned char c);
  bool anywhere(unsigned char c);
  void enter_string(S s);
  void end_osc();
  void esc_dispatch(unsigned char final);
  void csi_dispatch(unsigned char final);
  void csi_private(unsigned char final);
  void csi_plain(unsigned char final);
  void title_op();
  void add_interm(unsigned char c);
  void log_sgr(std::string_view raw);
  void apply_sgr_log();
  void settle_titles();
  void settle_colours();
  void colour_osc(uint32_t num, std::string_view payload, bool cut);
  // The attributes and the title brought up to date: nothing outside feed() sees the log.
  void settle() {
    if (log_len_) apply_log();
  }
  void apply_log() {
    apply_sgr_log();
    settle_colours();
    settle_titles();
    log_len_ = titles_from_ = 0;
  }

  TermState st_;
  Title title_;
  Colours colours_;
  S state_ = S::Ground;
  Params params_;
  char prefix_ = 0;         // CSI private marker: one of < = > ?
  char interm_[2] = {0, 0};
  uint8_t interm_len_ = 0;  // 3: more than two (the sequence is not one we act on)
  uint32_t osc_num_ = 0;
  bool osc_title_long_ = false;
  Title pending_title_;
  uint64_t now_ = 0, string_since_ = 0;
  // What the windows found (skim_run: their SGRs and OSCs) and the SGRs of whole_csi(), not
  // yet applied: views into the bytes of the current feed(), which applies them before it
  // returns, so none outlives its bytes. Applied when something reads the attributes (before
  // any other dispatch that needs them), at the end of each feed(), or when the log is full:
  // the SGRs from the last one that starts from the default, and the last OSC that sets a
  // title (only from titles_from_ on: a title the state machine set came after those before).
  static constexpr size_t kLog = 128;
  std::array<Found, kLog> log_{};
  uint16_t log_len_ = 0;
  uint16_t titles_from_ = 0;
  // Between begin_tokens() and end_tokens(): the lexer's windows, and the first span and entry
  // of them that the tokens have not passed yet.
  const Windows* windows_ = nullptr;
  size_t span_ = 0, found_ = 0;
};

}  // namespace blaude::term
