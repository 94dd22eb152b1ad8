#include "term/sgr.hpp"

namespace blaude::term {

namespace {

uint8_t byte_of(uint32_t v) { return v > 255 ? 255 : static_cast<uint8_t>(v); }

// 38/48/58: `5;N`, `2;R;G;B` (semicolons: they are the next parameters) or `5:N`, `2:R:G:B`,
// `2::R:G:B` (colons: sub-parameters, with an optional colour-space id). Returns the index of
// the first parameter after the colour.
size_t read_color(const Params& p, size_t i, size_t subs_end, Color& c) {
  bool colon = subs_end > i + 1;
  uint32_t kind = p.get(i + 1, Params::kNone);
  size_t next = colon ? subs_end : i + 2;
  if (kind == 5) {
    c.kind = Color::Index;
    c.v[0] = byte_of(p.get(i + 2, 0));
    c.v[1] = c.v[2] = 0;
    if (!colon) next = i + 3;
  } else if (kind == 2) {
    size_t first = colon && subs_end - i >= 6 ? i + 3 : i + 2;  // skip the colour-space id
    c.kind = Color::Rgb;
    for (size_t k = 0; k < 3; ++k) c.v[k] = byte_of(p.get(first + k, 0));
    if (!colon) next = i + 5;
  }
  return next;
}

void code_color(Color& c, uint32_t offset) {
  c.kind = Color::Code;
  c.v[0] = static_cast<uint8_t>(offset);
  c.v[1] = c.v[2] = 0;
}

void append_num(std::string& out, uint32_t v) { out += std::to_string(v); }

void append_color(std::string& out, const Color& c, uint32_t base) {
  if (c.kind == Color::Default) return;
  out += ';';
  if (c.kind == Color::Code) {
    append_num(out, base - 8 + c.v[0]);  // 30 + offset for fg, 40 + offset for bg
    return;
  }
  append_num(out, base);
  if (c.kind == Color::Index) {
    out += ";5;";
    append_num(out, c.v[0]);
  } else {
    out += ";2;";
    append_num(out, c.v[0]);
    out += ';';
    append_num(out, c.v[1]);
    out += ';';
    append_num(out, c.v[2]);
  }
}

}  // namespace

void apply_sgr(Sgr& s, const Params& p) {
  if (p.n == 0) {
    s = Sgr{};
    return;
  }
  size_t i = 0;
  while (i < p.n) {
    size_t end = i + 1;  // past this parameter's sub-parameters
    while (p.sub(end)) ++end;
    size_t next = end;
    uint32_t v = p.get(i, 0);
    switch (v) {
      case 0: s = Sgr{}; break;
      case 1: s.attrs |= Sgr::Bold; break;
      case 2: s.attrs |= Sgr::Dim; break;
      case 3: s.attrs |= Sgr::Italic; break;
      case 4: {
        uint32_t style = end > i + 1 ? p.get(i + 1, 1) : 1;  // 4:0 is "no underline"
        s.underline = static_cast<uint8_t>(style > 5 ? 1 : style);
        break;
      }
      case 5: case 6: s.attrs |= Sgr::Blink; break;
      case 7: s.attrs |= Sgr::Inverse; break;
      case 8: s.attrs |= Sgr::Hidden; break;
      case 9: s.attrs |= Sgr::Strike; break;
      case 21: s.underline = 2; break;
      case 22: s.attrs &= ~(Sgr::Bold | Sgr::Dim); break;
      case 23: s.attrs &= ~Sgr::Italic; break;
      case 24: s.underline = 0; break;
      case 25: s.attrs &= ~Sgr::Blink; break;
      case 27: s.attrs &= ~Sgr::Inverse; break;
      case 28: s.attrs &= ~Sgr::Hidden; break;
      case 29: s.attrs &= ~Sgr::Strike; break;
      case 38: next = read_color(p, i, end, s.fg); break;
      case 39: s.fg = Color{}; break;
      case 48: next = read_color(p, i, end, s.bg); break;
      case 49: s.bg = Color{}; break;
      case 53: s.attrs |= Sgr::Overline; break;
      case 55: s.attrs &= ~Sgr::Overline; break;
      case 58: next = read_color(p, i, end, s.ul); break;
      case 59: s.ul = Color{}; break;
      default:
        if (v >= 30 && v <= 37) code_color(s.fg, v - 30);
        else if (v >= 90 && v <= 97) code_color(s.fg, v - 30);
        else if (v >= 40 && v <= 47) code_color(s.bg, v - 40);
        else if (v >= 100 && v <= 107) code_color(s.bg, v - 40);
        else s.attrs |= Sgr::Other;
    }
    i = next > i ? next : i + 1;
  }
}

void append_sgr(const Sgr& s, std::string& out) {
  out += "\x1b[0";
  static constexpr struct {
    uint16_t bit;
    const char* code;
  } kAttrs[] = {{Sgr::Bold, ";1"},    {Sgr::Dim, ";2"},    {Sgr::Italic, ";3"},
                {Sgr::Blink, ";5"},   {Sgr::Inverse, ";7"}, {Sgr::Hidden, ";8"},
                {Sgr::Strike, ";9"},  {Sgr::Overline, ";53"}};
  for (const auto& a : kAttrs)
    if (s.attrs & a.bit) out += a.code;
  if (s.underline == 1) out += ";4";
  else if (s.underline > 1) out += ";4:" + std::to_string(s.underline);
  append_color(out, s.fg, 38);
  append_color(out, s.bg, 48);
  if (s.ul.kind != Color::Code) append_color(out, s.ul, 58);
  out += 'm';
}

}  // namespace blaude::term
