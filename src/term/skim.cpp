#include "term/skim.hpp"

#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(BLAUDE_SKIM_SCALAR)
#define BLAUDE_SKIM_X86 1
#include <immintrin.h>
// glibc (2.33+) answers from the CPU features its loader found at start. libgcc's
// __builtin_cpu_supports instead links a constructor (__cpu_indicator_init) that runs ~20 CPUID
// instructions in every process blaude starts, the exec shim's included; a CPUID traps to the
// hypervisor in a VM (~12 us each on the CI machine's): ~0.25 ms per start (docs/PERFORMANCE.md).
#if defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
// glibc 2.36's header spells C's _Bool, which clang's C++ does not take (g++ does); bool is the
// same type in the ABI.
#if defined(__clang__)
#define _Bool bool
#include <sys/platform/x86.h>
#undef _Bool
#else
#include <sys/platform/x86.h>
#endif
#define BLAUDE_SKIM_GLIBC_CPU 1
#endif
#endif

namespace blaude::term {

namespace {

constexpr unsigned char ESC = 0x1b, BEL = 0x07;

// Final bytes the tracker may act on (tracker.cpp's maybe_tracked_final: h l n p-u), but for
// `m`, and the untracked i j k o among them (rare; one range is two vector operations).
bool tracked_not_m(unsigned char f) { return f >= 'h' && f <= 'u' && f != 'm'; }

// One bit per byte of the window, per byte class.
struct Classes {
  uint64_t esc, lbracket, rbracket, backslash, param, final, m, tracked, marker, shift, ctl, bel;
};

[[gnu::always_inline]] inline Classes classify_scalar(const char* p) {
  Classes c{};
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
    if (b >= '<' && b <= '?') c.marker |= bit;
    if ((b & 0xfe) == 0x0e) c.shift |= bit;
    if (b < 0x20) c.ctl |= bit;
    if (b == BEL) c.bel |= bit;
  }
  return c;
}


// Each `ESC [` gives a bit X at the first byte after the '['; adding the parameter-byte mask
// to X carries across the run of parameter bytes, so (X + param) & ~param has one bit Y at
// the byte that ends each sequence (simdjson's trick for quoted strings). A sequence is
// "simple" when that byte is a final byte; Y - X covers its parameters. An OSC's body is found
// the same way: a bit after its ']' plus the mask of bytes >= 0x20 carries to the control that
// ends it, which must be a BEL or an ESC (the state machine skips any such OSC; which of them
// set a title the caller reads from the bytes). The first thing that is not simple (an ESC not
// followed by '[', '\' or ']', a marker, an intermediate, a control inside a CSI, a tracked
// final other than m, an OSC ended by another control, a sequence running past the window, SO
// or SI) ends the window. Inlined into each classifier's function: the masks stay in registers.
[[gnu::always_inline]] inline Window skim_classes(const Classes& c) {
  const uint64_t open = (c.esc << 1) & c.lbracket;  // '[' right after an ESC
  const uint64_t osc = (c.esc << 1) & c.rbracket;   // ']' right after an ESC
  const uint64_t xo = osc << 1;                     // the byte after it (lost past bit 63)
  const uint64_t sum_o = xo + ~c.ctl;
  const bool carry_o = sum_o < xo;                  // the last OSC's body reaches the end
  const uint64_t yo = sum_o & c.ctl;                // the control that ends each OSC
  // `ESC \` (ST) with no string open does nothing: the window takes it as two bytes of text.
  // An ESC at bit 63 is not alone but crossing, as is `ESC [` or `ESC ]` at bits 62-63.
  const uint64_t esc_alone =
      c.esc & ~(c.lbracket >> 1) & ~(c.backslash >> 1) & ~(osc >> 1) & ~(uint64_t{1} << 63);
  const uint64_t x = open << 1;                        // a '[' at bit 63 is lost: crossing
  const uint64_t sum = x + c.param;
  const uint64_t carry = sum < x;                      // the last parameter run reaches the end
  const uint64_t y = sum & ~c.param;
  const uint64_t crossing = (open >> 63) | (osc >> 63) | (c.esc >> 63) | carry | carry_o;
  const uint64_t whole_x = x & ~(carry << (63 - __builtin_clzll(x | 1)));
  const uint64_t params = y - whole_x;                 // the parameter bytes of whole sequences
  const uint64_t bad =
      (y & ~c.final) | (y & c.tracked) | (params & c.marker) | (yo & ~(c.bel | c.esc));
  // Kept: the bytes before the ESC of the first sequence that is not simple (none if no ESC is
  // before it), and before the first lone ESC, SO or SI. In escape-dense output nearly every
  // window is whole but for its last sequence, which runs past its end: that case is a
  // predicted branch, so that the next window need not wait for the rest of this one.
  const uint64_t alone = esc_alone | c.shift;
  uint64_t keep;
  if (__builtin_expect((bad | alone) == 0, 1)) {  // up to the last ESC, or all of it
    keep = ((uint64_t{1} << (63 - __builtin_clzll(c.esc | 1))) - 1) | (crossing - 1);
  } else {  // selects: (m & -m) - 1 is the bits below m's lowest, all of them when m is 0
    const uint64_t before = c.esc & ((bad & -bad) - 1);
    const uint64_t back = (uint64_t{1} << (63 - __builtin_clzll(before | 1))) - 1;
    const uint64_t all = ~uint64_t{0} + (crossing | (bad != 0));  // 0 when something stops it
    keep = ((back & ~all) | all) & ((alone & -alone) - 1);
  }
  Window w;
  w.stop = static_cast<unsigned>(__builtin_popcountll(keep));  // keep is a run from bit 0
  w.esc = c.esc & keep;
  w.sgr = y & c.m & keep;
  w.osc = (xo >> 2) & keep;
  w.osc_end = yo & (keep << 1 | 1);  // an OSC ended by an ESC may end at the stop
  return w;
}

#ifdef BLAUDE_SKIM_X86
// SSE2 (every x86-64) 16 bytes at a time, AVX2 32 at a time (two halves), AVX-512BW 64 at once
// into mask registers. The range test lo <= v <= hi: with SSE2/AVX2 the range moved (unsigned,
// wrapping) to the bottom of the signed bytes, then one signed compare.
typedef unsigned char v16 __attribute__((vector_size(16)));
typedef signed char s16 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline Classes classify_sse2(const char* p) {
  Classes c{};
  for (unsigned k = 0; k < 4; ++k) {
    v16 v;
    std::memcpy(&v, p + 16 * k, 16);
    auto bits = [k](auto m) {
      return uint64_t{static_cast<uint32_t>(_mm_movemask_epi8(reinterpret_cast<__m128i>(m)))} << (16 * k);
    };
    auto in = [&v](unsigned char lo, unsigned char hi) {
      return reinterpret_cast<s16>(v + static_cast<unsigned char>(0x80 - lo)) <
             static_cast<signed char>(-128 + hi - lo + 1);
    };
    const auto m = v == 'm';
    c.esc |= bits(v == ESC);
    c.lbracket |= bits(v == '[');
    c.rbracket |= bits(v == ']');
    c.backslash |= bits(v == '\\');
    c.param |= bits(in(0x30, 0x3f));
    c.final |= bits(in(0x40, 0x7e));
    c.m |= bits(m);
    c.tracked |= bits(in('h', 'u') & ~m);
    c.marker |= bits(in('<', '?'));
    c.shift |= bits(in(0x0e, 0x0f));
    c.ctl |= bits(in(0x00, 0x1f));
    c.bel |= bits(v == BEL);
  }
  return c;
}

// The classes the vector classifiers build from constants: by one byte value, and by a range
// of them (lo, hi); `tracked` then drops the m, and `ctl` (bytes <= 0x1f) is one compare.
#define BLAUDE_SKIM_BYTES(X) X(esc, ESC) X(lbracket, '[') X(rbracket, ']') X(backslash, '\\') X(m, 'm') X(bel, BEL)
#define BLAUDE_SKIM_RANGES(X) \
  X(param, 0x30, 0x3f) X(final, 0x40, 0x7e) X(tracked, 'h', 'u') X(marker, '<', '?') X(shift, 0x0e, 0x0f)
// The constants are made once per run and hidden from the optimizer (an empty asm that "may
// change" each), which otherwise builds each again in every window: 2 of the ~5 instructions
// per class.
#define BLAUDE_K_FIELD(name, v) name,
#define BLAUDE_K_RANGE_FIELDS(name, lo, hi) name##_lo, name##_hi,
#define BLAUDE_K_STRUCT(K, V)                                                        \
  struct K {                                                                         \
    V BLAUDE_SKIM_BYTES(BLAUDE_K_FIELD) BLAUDE_SKIM_RANGES(BLAUDE_K_RANGE_FIELDS) ctl_max; \
  };

// AVX2: two halves of 32 bytes, a compare and a movemask per half and class. A range is an add
// and a signed compare: v + (0x80 - lo) < -128 + (hi - lo) + 1 (stored as _lo, _hi).
#define BLAUDE_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
BLAUDE_K_STRUCT(K256, __m256i)

[[gnu::always_inline]] BLAUDE_AVX2 inline K256 k256() {
  K256 k;
#define BLAUDE_K(field, v)                          \
  k.field = _mm256_set1_epi8(static_cast<char>(v)); \
  __asm__("" : "+x"(k.field));
#define BLAUDE_K_RANGE(name, lo, hi) BLAUDE_K(name##_lo, 0x80 - (lo)) BLAUDE_K(name##_hi, -128 + (hi) - (lo) + 1)
  BLAUDE_SKIM_BYTES(BLAUDE_K)
  BLAUDE_SKIM_RANGES(BLAUDE_K_RANGE)
  BLAUDE_K(ctl_max, 0x1f)
#undef BLAUDE_K_RANGE
#undef BLAUDE_K
  return k;
}

[[gnu::always_inline]] BLAUDE_AVX2 inline Classes classify_avx2(const char* p, const K256& k) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
#define BLAUDE_BITS(expr_a, expr_b)                                      \
  (uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(expr_a))} |      \
   uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(expr_b))} << 32)
#define BLAUDE_EQ(name, v) c.name = BLAUDE_BITS(_mm256_cmpeq_epi8(a, k.name), _mm256_cmpeq_epi8(b, k.name));
#define BLAUDE_IN(name, lo, hi)                                                       \
  c.name = BLAUDE_BITS(_mm256_cmpgt_epi8(k.name##_hi, _mm256_add_epi8(a, k.name##_lo)), \
                       _mm256_cmpgt_epi8(k.name##_hi, _mm256_add_epi8(b, k.name##_lo)));
  Classes c;
  BLAUDE_SKIM_BYTES(BLAUDE_EQ)
  BLAUDE_SKIM_RANGES(BLAUDE_IN)
  c.tracked &= ~c.m;
  c.ctl = BLAUDE_BITS(_mm256_cmpeq_epi8(_mm256_min_epu8(a, k.ctl_max), a),
                      _mm256_cmpeq_epi8(_mm256_min_epu8(b, k.ctl_max), b));
#undef BLAUDE_BITS
#undef BLAUDE_EQ
#undef BLAUDE_IN
  return c;
}

// AVX-512BW: one compare per class straight into a 64-bit mask; a range is a subtract and an
// unsigned compare: v - lo <= hi - lo (stored as _lo, _hi).
#define BLAUDE_AVX512 __attribute__((target("avx512bw,bmi,bmi2,popcnt")))
BLAUDE_K_STRUCT(K512, __m512i)

[[gnu::always_inline]] BLAUDE_AVX512 inline K512 k512() {
  K512 k;
#define BLAUDE_K(field, v)                          \
  k.field = _mm512_set1_epi8(static_cast<char>(v)); \
  __asm__("" : "+v"(k.field));
#define BLAUDE_K_RANGE(name, lo, hi) BLAUDE_K(name##_lo, lo) BLAUDE_K(name##_hi, (hi) - (lo))
  BLAUDE_SKIM_BYTES(BLAUDE_K)
  BLAUDE_SKIM_RANGES(BLAUDE_K_RANGE)
  BLAUDE_K(ctl_max, 0x1f)
#undef BLAUDE_K_RANGE
#undef BLAUDE_K
  return k;
}

[[gnu::always_inline]] BLAUDE_AVX512 inline Classes classify_avx512(const char* p, const K512& k) {
  const __m512i v = _mm512_loadu_si512(p);
#define BLAUDE_EQ(name, value) c.name = _mm512_cmpeq_epi8_mask(v, k.name);
#define BLAUDE_IN(name, lo, hi) \
  c.name = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, k.name##_lo), k.name##_hi);
  Classes c;
  BLAUDE_SKIM_BYTES(BLAUDE_EQ)
  BLAUDE_SKIM_RANGES(BLAUDE_IN)
  c.tracked &= ~c.m;
  c.ctl = _mm512_cmple_epu8_mask(v, k.ctl_max);
#undef BLAUDE_EQ
#undef BLAUDE_IN
  return c;
}
#undef BLAUDE_K_STRUCT
#undef BLAUDE_K_FIELD
#undef BLAUDE_K_RANGE_FIELDS
#undef BLAUDE_SKIM_BYTES
#undef BLAUDE_SKIM_RANGES
#endif

// The run loop of skim_run(), in each classifier's own function (a template would not inline
// a classifier built for another target into it).
#define BLAUDE_SKIM_RUN(CLASSIFY)                                                          \
  Skimmed r;                                                                               \
  const char* const start = p;                                                             \
  for (;;) {                                                                               \
    const size_t left = static_cast<size_t>(end - p);                                      \
    Window w;                                                                              \
    if (left >= Window::kSize) {                                                           \
      w = skim_classes(CLASSIFY(p));                                                       \
    } else {                                                                               \
      char pad[Window::kSize];                                                             \
      std::memcpy(pad, p, left);                                                           \
      std::memset(pad + left, 0x0e, Window::kSize - left);  /* SO: the window ends there */ \
      w = skim_classes(CLASSIFY(pad));                                                     \
    }                                                                                      \
    found[r.found] = Found{p, w.sgr, w.esc, w.osc, w.osc_end};                           \
    r.found += (w.sgr | w.osc) != 0;                                                       \
    p += w.stop;                                                                           \
    if (w.stop == 0) {                                                                     \
      r.at_control = true;                                                                 \
      break;                                                                               \
    }                                                                                      \
    if (w.esc == 0 || p >= end || r.found == room) break;                                  \
  }                                                                                        \
  r.taken = static_cast<size_t>(p - start);                                                \
  return r;

Window skim_scalar(const char* p) { return skim_classes(classify_scalar(p)); }
Skimmed run_scalar(const char* p, const char* end, Found* found, size_t room) {
  BLAUDE_SKIM_RUN(classify_scalar)
}
#ifdef BLAUDE_SKIM_X86
Window skim_sse2(const char* p) { return skim_classes(classify_sse2(p)); }
Skimmed run_sse2(const char* p, const char* end, Found* found, size_t room) {
  BLAUDE_SKIM_RUN(classify_sse2)
}
BLAUDE_AVX2 Window skim_avx2(const char* p) { return skim_classes(classify_avx2(p, k256())); }
BLAUDE_AVX2 Skimmed run_avx2(const char* p, const char* end, Found* found, size_t room) {
  const K256 k = k256();
#define BLAUDE_CLASSIFY_256(q) classify_avx2(q, k)
  BLAUDE_SKIM_RUN(BLAUDE_CLASSIFY_256)
#undef BLAUDE_CLASSIFY_256
}
BLAUDE_AVX512 Window skim_avx512(const char* p) { return skim_classes(classify_avx512(p, k512())); }
BLAUDE_AVX512 Skimmed run_avx512(const char* p, const char* end, Found* found, size_t room) {
  const K512 k = k512();
#define BLAUDE_CLASSIFY_512(q) classify_avx512(q, k)
  BLAUDE_SKIM_RUN(BLAUDE_CLASSIFY_512)
#undef BLAUDE_CLASSIFY_512
}
#endif
#undef BLAUDE_SKIM_RUN

using SkimFn = Window (*)(const char*);
using RunFn = Skimmed (*)(const char*, const char*, Found*, size_t);

struct Fns {
  SkimFn skim;
  RunFn run;
};

Fns fns(Isa isa) {
#ifdef BLAUDE_SKIM_X86
  switch (isa) {
    case Isa::Avx512: return {skim_avx512, run_avx512};
    case Isa::Avx2: return {skim_avx2, run_avx2};
    case Isa::Sse2: return {skim_sse2, run_sse2};
    case Isa::Scalar: break;
  }
#else
  (void)isa;
#endif
  return {skim_scalar, run_scalar};
}

}  // namespace

bool isa_supported(Isa isa) {
#ifdef BLAUDE_SKIM_X86
  switch (isa) {
#ifdef BLAUDE_SKIM_GLIBC_CPU
    // ACTIVE: the CPU has it and the kernel saves its registers (XCR0), as libgcc checks too.
    case Isa::Avx512: return CPU_FEATURE_ACTIVE(AVX512BW) && CPU_FEATURE_ACTIVE(BMI2);
    case Isa::Avx2: return CPU_FEATURE_ACTIVE(AVX2) && CPU_FEATURE_ACTIVE(BMI2);
#else
    case Isa::Avx512: return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi2");
    case Isa::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#endif
    default: return true;
  }
#else
  return isa == Isa::Scalar;
#endif
}

// Chosen once, the widest the CPU has (valgrind hides AVX-512: under it this is AVX2).
namespace {
const Fns& best() {
  static const Fns f = fns(isa_supported(Isa::Avx512) ? Isa::Avx512
                           : isa_supported(Isa::Avx2) ? Isa::Avx2
                           : isa_supported(Isa::Sse2) ? Isa::Sse2
                                                      : Isa::Scalar);
  return f;
}
}  // namespace

Window skim(const char* p) { return best().skim(p); }

Skimmed skim_run(const char* p, const char* end, Found* found, size_t room) {
  return best().run(p, end, found, room);
}

Window skim_with(Isa isa, const char* p) { return fns(isa).skim(p); }

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
    if (i + 1 < Window::kSize && p[i + 1] == ']') {  // ESC ] body, then BEL or ESC
      unsigned j = i + 2;
      while (j < Window::kSize && at(j) >= 0x20) ++j;
      if (j >= Window::kSize || (at(j) != BEL && at(j) != ESC)) break;
      w.esc |= uint64_t{1} << i;
      w.osc |= uint64_t{1} << i;
      w.osc_end |= uint64_t{1} << j;
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
    if (f == 'm') w.sgr |= uint64_t{1} << j;
    i = j + 1;
  }
  w.stop = i;
  return w;
}

}  // namespace blaude::term
