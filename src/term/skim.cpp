#include "term/skim.hpp"

#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(BLAUDE_SKIM_SCALAR)
#include <immintrin.h>
#endif

namespace blaude::term {

namespace {

constexpr unsigned char ESC = 0x1b, BEL = 0x07;

// Final bytes the tracker may act on (tracker.cpp's maybe_tracked_final: h l n p-u), but for
// `m`, and the untracked i j k o among them (rare; one range is two vector operations).
bool tracked_not_m(unsigned char f) { return f >= 'h' && f <= 'u' && f != 'm'; }

// One bit per byte of the window, per byte class.
struct Classes {
  uint64_t esc = 0, lbracket = 0, rbracket = 0, backslash = 0, param = 0, final = 0, m = 0, tracked = 0,
           zero = 0, semi = 0, marker = 0, shift = 0, ctl = 0, bel = 0, digit = 0, tdigit = 0;
};

Classes classify_scalar(const char* p) {
  Classes c;
  for (unsigned i = 0; i < Window::kSize; ++i) {
    unsigned char b = static_cast<unsigned char>(p[i]);
    uint64_t bit = uint64_t{1} << i;
    if (b == ESC) c.esc |= bit;
    if (b == '[') c.lbracket |= bit;
    if (b == ']') c.rbracket |= bit;
    if (b == '\\') c.backslash |= bit;
    if ((b & 0xf0) == 0x30) c.param |= bit;
    if (b >= 0x40 && b <= 0x7e) c.final |= bit;
    if (b == 'm') c.m |= bit;
    if (tracked_not_m(b)) c.tracked |= bit;
    if (b == '0') c.zero |= bit;
    if (b == ';') c.semi |= bit;
    if (b >= '<' && b <= '?') c.marker |= bit;
    if ((b & 0xfe) == 0x0e) c.shift |= bit;
    if (b < 0x20) c.ctl |= bit;
    if (b == BEL) c.bel |= bit;
    if (b >= '0' && b <= '9') c.digit |= bit;
    if (b >= '0' && b <= '2') c.tdigit |= bit;
  }
  return c;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(BLAUDE_SKIM_SCALAR)
#define BLAUDE_SKIM_X86 1
// SSE2 (every x86-64) 16 bytes at a time, or AVX2 32 at a time: the compiler's vector
// extension, so one body serves both. AVX-512BW compares 64 bytes into a mask register.
typedef unsigned char v16 __attribute__((vector_size(16)));
typedef unsigned char v32 __attribute__((vector_size(32)));
typedef signed char s16 __attribute__((vector_size(16)));
typedef signed char s32 __attribute__((vector_size(32)));
// lo <= v <= hi in two operations: the range moved (unsigned, wrapping) to the bottom of the
// signed bytes, then one signed compare.
#define BLAUDE_IN(v, lo, hi) \
  (reinterpret_cast<SV>((v) + static_cast<unsigned char>(0x80 - (lo))) < \
   static_cast<signed char>(-128 + (hi) - (lo) + 1))
#define BLAUDE_SKIM_CLASSES(VT, S, STEP, MOVEMASK)                                            \
  for (unsigned k = 0; k < Window::kSize / STEP; ++k) {                                       \
    using SV = S;                                                                             \
    VT v;                                                                                     \
    std::memcpy(&v, p + STEP * k, STEP);                                                      \
    const unsigned sh = STEP * k;                                                             \
    auto bits = [sh](uint32_t m) { return uint64_t{m} << sh; };                               \
    const auto m = v == 'm';                                                                  \
    c.esc |= bits(MOVEMASK(v == ESC));                                                        \
    c.lbracket |= bits(MOVEMASK(v == '['));                                                   \
    c.rbracket |= bits(MOVEMASK(v == ']'));                                                   \
    c.backslash |= bits(MOVEMASK(v == '\\'));                                                \
    c.param |= bits(MOVEMASK(BLAUDE_IN(v, 0x30, 0x3f)));                                      \
    c.final |= bits(MOVEMASK(BLAUDE_IN(v, 0x40, 0x7e)));                                      \
    c.m |= bits(MOVEMASK(m));                                                                 \
    c.tracked |= bits(MOVEMASK(BLAUDE_IN(v, 'h', 'u') & ~m));                                 \
    c.zero |= bits(MOVEMASK(v == '0'));                                                       \
    c.semi |= bits(MOVEMASK(v == ';'));                                                       \
    c.marker |= bits(MOVEMASK(BLAUDE_IN(v, '<', '?')));                                       \
    c.shift |= bits(MOVEMASK(BLAUDE_IN(v, 0x0e, 0x0f)));                                      \
    c.ctl |= bits(MOVEMASK(BLAUDE_IN(v, 0x00, 0x1f)));                                        \
    c.bel |= bits(MOVEMASK(v == BEL));                                                        \
    c.digit |= bits(MOVEMASK(BLAUDE_IN(v, '0', '9')));                                        \
    c.tdigit |= bits(MOVEMASK(BLAUDE_IN(v, '0', '2')));                                       \
  }
#define BLAUDE_MOVEMASK16(m) static_cast<uint32_t>(_mm_movemask_epi8(reinterpret_cast<__m128i>(m)))
#define BLAUDE_MOVEMASK32(m) static_cast<uint32_t>(_mm256_movemask_epi8(reinterpret_cast<__m256i>(m)))

Classes classify_sse2(const char* p) {
  Classes c;
  BLAUDE_SKIM_CLASSES(v16, s16, 16, BLAUDE_MOVEMASK16)
  return c;
}

__attribute__((target("avx2"))) Classes classify_avx2(const char* p) {
  Classes c;
  BLAUDE_SKIM_CLASSES(v32, s32, 32, BLAUDE_MOVEMASK32)
  return c;
}
#undef BLAUDE_SKIM_CLASSES
#undef BLAUDE_IN
#undef BLAUDE_MOVEMASK16
#undef BLAUDE_MOVEMASK32

// One compare per class straight into a 64-bit mask: a third of the AVX2 body's instructions.
__attribute__((target("avx512bw"))) Classes classify_avx512(const char* p) {
  const __m512i v = _mm512_loadu_si512(p);
#define BLAUDE_EQ(ch) _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(static_cast<char>(ch)))
#define BLAUDE_IN(lo, hi)                                                      \
  _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(static_cast<char>(lo))), \
                         _mm512_set1_epi8(static_cast<char>((hi) - (lo))))
  Classes c;
  c.esc = BLAUDE_EQ(ESC);
  c.lbracket = BLAUDE_EQ('[');
  c.rbracket = BLAUDE_EQ(']');
  c.backslash = BLAUDE_EQ('\\');
  c.param = BLAUDE_IN(0x30, 0x3f);
  c.final = BLAUDE_IN(0x40, 0x7e);
  c.m = BLAUDE_EQ('m');
  c.tracked = BLAUDE_IN('h', 'u') & ~c.m;
  c.zero = BLAUDE_EQ('0');
  c.semi = BLAUDE_EQ(';');
  c.marker = BLAUDE_IN('<', '?');
  c.shift = BLAUDE_IN(0x0e, 0x0f);
  c.ctl = BLAUDE_IN(0x00, 0x1f);
  c.bel = BLAUDE_EQ(BEL);
  c.digit = BLAUDE_IN('0', '9');
  c.tdigit = BLAUDE_IN('0', '2');
#undef BLAUDE_EQ
#undef BLAUDE_IN
  return c;
}
#endif

Classes classify_with(Isa isa, const char* p) {
#ifdef BLAUDE_SKIM_X86
  switch (isa) {
    case Isa::Avx512: return classify_avx512(p);
    case Isa::Avx2: return classify_avx2(p);
    case Isa::Sse2: return classify_sse2(p);
    case Isa::Scalar: break;
  }
#else
  (void)isa;
#endif
  return classify_scalar(p);
}

Classes classify(const char* p) {
#ifdef BLAUDE_SKIM_X86
  // Valgrind hides AVX-512 from the program: under it this is the AVX2 body.
  static const Isa isa = isa_supported(Isa::Avx512) ? Isa::Avx512
                         : isa_supported(Isa::Avx2) ? Isa::Avx2
                                                    : Isa::Sse2;
  switch (isa) {
    case Isa::Avx512: return classify_avx512(p);
    case Isa::Avx2: return classify_avx2(p);
    default: return classify_sse2(p);
  }
#else
  return classify_scalar(p);
#endif
}

unsigned lowest(uint64_t m) { return m ? static_cast<unsigned>(__builtin_ctzll(m)) : 64; }
unsigned highest(uint64_t m) { return 63 - static_cast<unsigned>(__builtin_clzll(m)); }
uint64_t below(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// Each `ESC [` gives a bit X at the first byte after the '['; adding the parameter-byte mask
// to X carries across the run of parameter bytes, so (X + param) & ~param has one bit Y at
// the byte that ends each sequence (simdjson's trick for quoted strings). A sequence is
// "simple" when that byte is a final byte; Y - X covers its parameters. An OSC's payload is
// found the same way: a bit at its first byte plus the mask of bytes >= 0x20 carries to the
// control that ends it, which must be a BEL or an ESC. The first thing that is not simple (an
// ESC not followed by '[', '\' or a one-digit OSC number and ';', a marker, an intermediate, a
// control inside a CSI, a tracked final other than m, an OSC ended by another control, a
// sequence running past the window, SO or SI) ends the window.
Window skim_classes(const Classes& c) {
  const uint64_t open = (c.esc << 1) & c.lbracket;  // '[' right after an ESC
  const uint64_t osc = (c.esc << 1) & c.rbracket;   // ']' right after an ESC
  // The first payload byte of each `ESC ] D ;` (one past bit 63 is lost: not whole here).
  const uint64_t xo = ((((osc << 1) & c.digit) << 1) & c.semi) << 1;
  const uint64_t sum_o = xo + ~c.ctl;
  const bool carry_o = sum_o < xo;                  // the last payload reaches the end
  const uint64_t yo = sum_o & c.ctl;                // the control that ends each payload
  // `ESC \` (ST) with no string open does nothing: the window takes it as two bytes of text.
  const uint64_t esc_alone = c.esc & ~(c.lbracket >> 1) & ~(c.backslash >> 1) & ~(xo >> 4);  // and bit 63
  const uint64_t x = open << 1;                        // a '[' at bit 63 is lost: crossing
  const uint64_t sum = x + c.param;
  const bool carry = sum < x;                          // the last parameter run reaches the end
  const uint64_t y = sum & ~c.param;
  const bool crossing = (open >> 63) != 0 || carry || carry_o;
  const uint64_t whole_x = carry ? x & ~(uint64_t{1} << highest(x)) : x;
  const uint64_t params = y - whole_x;                 // the parameter bytes of whole sequences
  const uint64_t bad =
      (y & ~c.final) | (y & c.tracked) | (params & c.marker) | (yo & ~(c.bel | c.esc));
  const unsigned first_bad = lowest(bad);
  Window w;
  if (bad || crossing) {  // back to the ESC of the sequence that is not simple
    const uint64_t before = c.esc & below(first_bad);
    w.stop = before ? highest(before) : 0;
  } else {
    w.stop = 64;
  }
  const unsigned first_alone = lowest(esc_alone | c.shift);
  if (first_alone < w.stop) w.stop = first_alone;
  const uint64_t keep = below(w.stop);
  w.esc = c.esc & keep;
  w.sgr = y & c.m & keep;
  const uint64_t zero_semi = (((x & c.zero & (c.semi >> 1)) + c.param) & ~c.param);  // "0;..."
  w.sgr_reset = w.sgr & (zero_semi | (x & y) | ((x & c.zero) << 1 & y));
  w.title = ((xo & (((osc << 1) & c.tdigit) << 2)) >> 4) & keep;
  w.osc_end = yo & below(w.stop + 1);  // an OSC ended by an ESC may end at the stop
  return w;
}

}  // namespace

Window skim(const char* p) { return skim_classes(classify(p)); }

bool isa_supported(Isa isa) {
#ifdef BLAUDE_SKIM_X86
  switch (isa) {
    case Isa::Avx512: return __builtin_cpu_supports("avx512bw");
    case Isa::Avx2: return __builtin_cpu_supports("avx2");
    default: return true;
  }
#else
  return isa == Isa::Scalar;
#endif
}

Window skim_with(Isa isa, const char* p) { return skim_classes(classify_with(isa, p)); }

Window skim_reference(const char* p) {
  Window w;
  unsigned i = 0;
  auto at = [p](unsigned k) { return static_cast<unsigned char>(p[k]); };
  while (i < Window::kSize) {
    unsigned char b = at(i);
    if (b == 0x0e || b == 0x0f) break;
    if (b != ESC) {
      ++i;
      continue;
    }
    if (i + 1 < Window::kSize && p[i + 1] == '\\') {  // ST with nothing open: nothing
      w.esc |= uint64_t{1} << i;
      i += 2;
      continue;
    }
    if (i + 1 < Window::kSize && p[i + 1] == ']') {  // ESC ] D ; payload, then BEL or ESC
      if (i + 3 >= Window::kSize || at(i + 2) < '0' || at(i + 2) > '9' || p[i + 3] != ';') break;
      unsigned j = i + 4;
      while (j < Window::kSize && at(j) >= 0x20) ++j;
      if (j >= Window::kSize || (at(j) != BEL && at(j) != ESC)) break;
      w.esc |= uint64_t{1} << i;
      w.osc_end |= uint64_t{1} << j;
      if (at(i + 2) <= '2') w.title |= uint64_t{1} << i;
      i = at(j) == BEL ? j + 1 : j;
      continue;
    }
    if (i + 1 >= Window::kSize || p[i + 1] != '[') break;
    unsigned j = i + 2;
    bool marker = false;
    for (; j < Window::kSize && (at(j) & 0xf0) == 0x30; ++j) marker |= p[j] >= '<';
    if (j >= Window::kSize) break;
    unsigned char f = at(j);
    if (f < 0x40 || f > 0x7e || marker || tracked_not_m(f)) break;
    w.esc |= uint64_t{1} << i;
    if (f == 'm') {
      w.sgr |= uint64_t{1} << j;
      if (j == i + 2 || (p[i + 2] == '0' && (j == i + 3 || p[i + 3] == ';')))
        w.sgr_reset |= uint64_t{1} << j;
    }
    i = j + 1;
  }
  w.stop = i;
  return w;
}

}  // namespace blaude::term
