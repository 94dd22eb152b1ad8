#include "term/reply_fence.hpp"

#include <algorithm>

namespace blaude::term {

namespace {
constexpr unsigned char ESC = 0x1b, BEL = 0x07, CAN = 0x18, SUB = 0x1a;
}

void ReplyFence::feed(std::string_view in, uint64_t now_ms) {
  if (in.empty()) return;
  discarded_ += in.size();
  last_ = now_ms;
  for (char ch : in) step(static_cast<unsigned char>(ch));
}

uint64_t ReplyFence::wait_ms(uint64_t now_ms) const {
  uint64_t end = start_ + kBoundMs;
  if (answered()) end = std::min(end, last_ + kQuietMs);
  return end > now_ms ? end - now_ms : 0;
}

void ReplyFence::start_string(bool osc, bool c1) {
  osc_ = osc;
  c1_string_ = c1;
  state_ = S::Str;
}

void ReplyFence::step(unsigned char c) {
  switch (state_) {
    case S::Str:
      // Only ST (and BEL for an OSC) ends a string reply: a lone ESC inside one is taken as
      // part of it, so that an echoed payload cannot open a CSI of its own.
      if (c == ESC) state_ = S::StrEsc;
      else if (c == 0x9c && c1_string_) state_ = S::Ground;
      else if (c == BEL && osc_) state_ = S::Ground;
      return;
    case S::StrEsc:
      state_ = c == '\\' ? S::Ground : (c == ESC ? S::StrEsc : S::Str);
      return;
    default:
      break;
  }
  if (c == CAN || c == SUB) {
    state_ = S::Ground;
    return;
  }
  if (c == ESC) {
    state_ = S::Esc;
    utf8_left_ = 0;
    return;
  }
  switch (state_) {
    case S::Ground:
      // 8-bit introducers (a terminal told to answer with them: S8C1T), but not the
      // continuation bytes of UTF-8 text the user typed.
      if (utf8_left_) {
        if ((c & 0xc0) == 0x80) {
          --utf8_left_;
          return;
        }
        utf8_left_ = 0;
      }
      if (c >= 0xc2 && c <= 0xf4) {
        utf8_left_ = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
        return;
      }
      if (c == 0x9b) {
        marker_ = 0, plain_ = true, inter_ = false, nparam_bytes_ = 0, first_param_ = 0;
        state_ = S::Csi;
      } else if (c == 0x90 || c == 0x9d || c == 0x98 || c == 0x9e || c == 0x9f) {
        start_string(c == 0x9d, true);
      }
      return;
    case S::Esc:
      if (c == '[') {
        marker_ = 0, plain_ = true, inter_ = false, nparam_bytes_ = 0, first_param_ = 0;
        state_ = S::Csi;
      } else if (c == 'P' || c == ']' || c == 'X' || c == '^' || c == '_') {
        start_string(c == ']', false);
      } else if (c < 0x20 || c >= 0x30) {
        state_ = S::Ground;  // an ESC sequence, or Alt+key typed: over
      }  // intermediates: still in the escape
      return;
    case S::Csi:
      csi_byte(c);
      return;
    default:
      return;
  }
}

void ReplyFence::csi_byte(unsigned char c) {
  if (c < 0x20) return;  // C0 controls inside a sequence are executed, not part of it
  if (c >= 0x40 && c <= 0x7e) {
    csi_end(c);
    state_ = S::Ground;
    return;
  }
  if (c >= 0x80) {  // not a sequence a terminal writes
    state_ = S::Ground;
    return;
  }
  if (c < 0x30) {
    inter_ = true;
    return;
  }
  if (inter_) plain_ = false;  // a parameter after an intermediate: malformed
  if (c >= '<' && c <= '?') {
    if (nparam_bytes_ == 0 && !marker_) marker_ = static_cast<char>(c);
    else plain_ = false;
    return;
  }
  if (c == ':') plain_ = false;
  if (nparam_bytes_ == 0) first_param_ = static_cast<char>(c);
  if (nparam_bytes_ < 255) ++nparam_bytes_;
}

void ReplyFence::csi_end(unsigned char final) {
  if (!plain_ || inter_) return;
  if (final == 'c' && marker_ == '?') da1_ = true;
  else if (final == 'n' && !marker_ && nparam_bytes_ == 1 && (first_param_ == '0' || first_param_ == '3'))
    dsr_ = true;
}

}  // namespace blaude::term
