// The fence blaude puts between the child's session and whatever reads the terminal next (the
// user's shell at exit, on Ctrl-Z): a query every terminal answers, then the terminal's input
// read and thrown away until the answer is in. A terminal answers in the order it reads, so the
// replies to everything the child asked come before the fence's answer, including the replies a
// terminal held back (kitty answers nothing while synchronized output is on, and the undo turns
// it off only after the child is gone). Without it those replies are typed into the shell: in a
// vi-mode shell they run as commands.
//
// Pure: fed the bytes read from the terminal and the clock, it says how long to wait for more.
// The bytes are recognised as a terminal writes them (CSI replies; DCS, OSC, APC, PM and SOS
// strings skipped whole), so text inside a string reply (kitty echoes the text of a DECRQSS it
// does not know) is never taken for the fence's answer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace blaude::term {

class ReplyFence {
public:
  // Device status (answer `CSI 0 n`) then primary device attributes (`CSI ? ... c`): DA1 is what
  // every VT100-descended terminal answers (the kitty keyboard protocol's spec uses it as the
  // fence for the same reason), DSR covers a terminal that has no DA1.
  static constexpr std::string_view kQuery = "\x1b[5n\x1b[c";
  // The whole fence, answered or not: a terminal that never answers costs this much at exit.
  static constexpr uint64_t kBoundMs = 500;
  // After an answer, input must be quiet this long: the child may have sent the same queries
  // itself just before its last words, and their answers look like the fence's. Answers to
  // queries written together come back together; the real answer follows the copy at once.
  static constexpr uint64_t kQuietMs = 50;

  explicit ReplyFence(uint64_t start_ms) : start_(start_ms), last_(start_ms) {}

  void feed(std::string_view in, uint64_t now_ms);
  // How long to wait for more input before asking again; 0 when the fence is over.
  uint64_t wait_ms(uint64_t now_ms) const;
  bool done(uint64_t now_ms) const { return wait_ms(now_ms) == 0; }

  bool answered() const { return da1_ || dsr_; }
  bool saw_da1() const { return da1_; }
  bool saw_dsr() const { return dsr_; }
  size_t discarded() const { return discarded_; }  // every byte fed

private:
  enum class S : uint8_t { Ground, Esc, Csi, Str, StrEsc };
  void step(unsigned char c);
  void csi_byte(unsigned char c);
  void csi_end(unsigned char final);
  void start_string(bool osc, bool c1);

  uint64_t start_, last_;
  size_t discarded_ = 0;
  bool da1_ = false, dsr_ = false;
  S state_ = S::Ground;
  uint8_t utf8_left_ = 0;   // continuation bytes still due in text (then 0x80-0x9f is no C1)
  bool osc_ = false;        // the string is an OSC (BEL ends it too)
  bool c1_string_ = false;  // opened by an 8-bit introducer: the 8-bit ST ends it too (not
                            // in a 7-bit one, where 0x9c is part of UTF-8 text)
  // The CSI being read: its private marker, whether its parameters are digits and ';' only,
  // and a summary of them enough for the two answers (DSR's is one of `0` or `3`).
  char marker_ = 0;
  bool plain_ = true;
  bool inter_ = false;
  uint8_t nparam_bytes_ = 0;
  char first_param_ = 0;
};

}  // namespace blaude::term
