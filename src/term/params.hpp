// The numeric parameters of one control sequence, in a fixed array: the tracker keeps no heap
// memory per sequence. `CSI 38:2::1:2:3 m` has sub-parameters (introduced by ':').
#pragma once
#include <cstddef>
#include <cstdint>

namespace blaude::term {

struct Params {
  static constexpr size_t kMax = 32;  // xterm keeps 30; more are counted as overflow
  static constexpr uint32_t kNone = UINT32_MAX;  // an empty parameter
  static constexpr uint32_t kCap = 65535;        // larger values saturate here

  uint32_t v[kMax];
  uint32_t colon = 0;  // bit i: parameter i follows a ':' (a sub-parameter of the one before)
  uint8_t n = 0;
  bool overflow = false;

  void clear() {
    n = 0;
    colon = 0;
    overflow = false;
  }
  uint32_t get(size_t i, uint32_t dflt) const { return i < n && v[i] != kNone ? v[i] : dflt; }
  bool sub(size_t i) const { return i < n && (colon >> i & 1u); }
  // Parser steps: a digit, a separator (';' or ':'), the end of the parameter string.
  void digit(unsigned d) {
    if (n == 0) start(false);
    if (overflow) return;  // digits of parameters past kMax go nowhere
    uint32_t& x = v[n - 1];
    uint64_t y = (x == kNone ? 0 : uint64_t{x} * 10) + d;
    x = y > kCap ? kCap : static_cast<uint32_t>(y);
  }
  void separator(bool is_colon) {
    if (n == 0) start(false);
    start(is_colon);
  }
  // A whole parameter at once (the tracker's one-pass path accumulates digits in a register).
  void add(uint32_t value, bool is_colon) {
    if (n == kMax) {
      overflow = true;
      return;
    }
    v[n] = value;
    if (is_colon) colon |= 1u << n;
    ++n;
  }

private:
  void start(bool is_colon) {
    if (n == kMax) {
      overflow = true;
      return;
    }
    v[n] = kNone;
    if (is_colon) colon |= 1u << n;
    ++n;
  }
};

}  // namespace blaude::term
