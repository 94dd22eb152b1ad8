// The terminal state tracker: a pure streaming parser over the bytes the user's terminal
// receives from the child. It only observes: no byte is changed, held or reordered, and it does
// no I/O (the caller passes the clock in). Fed any split of a stream, it ends in the same state.
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

#include "term/params.hpp"
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

  const TermState& state() const { return st_; }
  const Title& title() const { return title_; }
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
    OscTitle,  // the payload of OSC 0/1/2
    OscSkip,   // any other OSC payload
    DcsEntry,  // parameters and intermediates up to the DCS final byte
    DcsPass,   // DCS payload: only `ESC \` ends it
    DcsEsc,
    DcsIgnore,
    StrSkip,   // APC, PM, SOS, screen's ESC k: skipped up to ESC, CAN or SUB
  };
  bool in_string() const { return state_ >= S::OscNum; }

  size_t step_ground(std::string_view in, size_t i);
  unsigned skim_window(const char* p, const char* end, bool& escapes);
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
  void log_sgrs(const char* base, uint64_t sgr, uint64_t reset, uint64_t esc);
  void apply_sgr_log();
  void settle_titles();
  // The attributes and the title brought up to date: nothing outside feed() sees the logs.
  void settle() {
    if (sgr_log_len_ || sgr_from_default_) apply_sgr_log();
    if (osc_log_len_) settle_titles();
  }

  TermState st_;
  Title title_;
  S state_ = S::Ground;
  Params params_;
  char prefix_ = 0;         // CSI private marker: one of < = > ?
  char interm_[2] = {0, 0};
  uint8_t interm_len_ = 0;  // 3: more than two (the sequence is not one we act on)
  uint32_t osc_num_ = 0;
  bool osc_title_long_ = false;
  Title pending_title_;
  uint64_t now_ = 0, string_since_ = 0;
  // SGRs not yet applied to st_.cur.sgr, a window's at a time: `ESC [ params m` with its ESC at
  // a bit of `esc` and its m at a bit of `sgr`, relative to `base`, a view into the bytes of
  // the current feed(), which applies them before it returns, so none outlives its bytes.
  struct SgrRun {
    const char* base;
    uint64_t sgr, esc;
  };
  static constexpr size_t kSgrLog = 24;
  std::array<SgrRun, kSgrLog> sgr_log_{};
  uint16_t sgr_log_len_ = 0;
  // The windows' OSCs since the last title another path set, likewise: the last of them that
  // is a title is kept (settle_titles), read from the end.
  struct OscRun {
    const char* base;
    uint64_t osc, end;
  };
  static constexpr size_t kOscLog = 32;
  std::array<OscRun, kOscLog> osc_log_{};
  uint16_t osc_log_len_ = 0;
  bool sgr_from_default_ = false;  // the log starts from the default attributes
};

}  // namespace blaude::term
