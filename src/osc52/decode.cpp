#include "osc52/decode.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>

namespace blaude::osc52 {

namespace {

constexpr std::array<int8_t, 256> make_b64_table() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(abc[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr auto kB64 = make_b64_table();

const char* outcome_text(Outcome o) {
  switch (o) {
    case Outcome::Complete: return "complete";
    case Outcome::Oversized: return "payload over the size cap, discarded";
    case Outcome::Malformed: return "malformed (no data field)";
  }
  return "?";
}

}  // namespace

const char* target_name(Target t) {
  switch (t) {
    case Target::Clipboard: return "CLIPBOARD";
    case Target::Primary: return "PRIMARY";
    case Target::Secondary: return "SECONDARY";
  }
  return "?";
}

std::vector<Target> parse_targets(std::string_view pc) {
  std::vector<Target> out;
  auto add = [&](Target t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  if (pc.empty()) add(Target::Clipboard);
  for (char c : pc) {
    if (c == 'c' || c == 's') add(Target::Clipboard);
    else if (c == 'p') add(Target::Primary);
    else if (c == 'q') add(Target::Secondary);
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  size_t len = text.size();
  size_t pad = 0;
  while (pad < 2 && len > 0 && text[len - 1] == '=') {
    --len;
    ++pad;
  }
  if (pad > 0 && (len + pad) % 4 != 0) return std::nullopt;
  if (len % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(len / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; ++i) {
    int v = kB64[static_cast<unsigned char>(text[i])];
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

bool valid_utf8(std::string_view bytes) {
  auto* p = reinterpret_cast<const utf8proc_uint8_t*>(bytes.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(bytes.size());
  while (left > 0) {
    if (*p < 0x80) {  // ASCII needs no table lookup
      ++p;
      --left;
      continue;
    }
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0 || cp < 0) return false;
    p += n;
    left -= n;
  }
  return true;
}

std::string strip_controls(std::string_view utf8, size_t& removed) {
  std::string out;
  out.reserve(utf8.size());
  auto* base = reinterpret_cast<const utf8proc_uint8_t*>(utf8.data());
  utf8proc_ssize_t off = 0, size = static_cast<utf8proc_ssize_t>(utf8.size());
  while (off < size) {
    unsigned char b = base[off];
    if (b < 0x80) {  // ASCII: C0 and DEL are the controls
      if ((b >= 0x20 && b != 0x7f) || b == '\t' || b == '\n' || b == '\r') out.push_back(static_cast<char>(b));
      else ++removed;
      ++off;
      continue;
    }
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(base + off, size - off, &cp);
    if (n <= 0) break;  // callers validate first; stop rather than copy garbage
    bool keep = cp == '\t' || cp == '\n' || cp == '\r' ||
                utf8proc_category(cp) != UTF8PROC_CATEGORY_CC;
    if (keep) out.append(utf8.data() + off, static_cast<size_t>(n));
    else ++removed;
    off += n;
  }
  return out;
}

Verdict interpret(const Sequence& s) {
  Verdict v;
  if (s.outcome != Outcome::Complete) {
    v.note = outcome_text(s.outcome);
    return v;
  }
  if (s.payload == "?") {
    v.note = "read request refused (the host clipboard is never sent to the sandbox)";
    return v;
  }
  std::vector<Target> targets = parse_targets(s.selection);
  if (targets.empty()) {
    v.note = "no supported selection in '" + s.selection + "' (cut buffers are ignored)";
    return v;
  }
  if (s.payload.empty()) {
    v.note = "empty data ignored (it would only clear the selection)";
    return v;
  }
  std::optional<std::string> raw = base64_decode(s.payload);
  if (!raw) {
    v.note = "invalid base64, nothing copied";
    return v;
  }
  if (!valid_utf8(*raw)) {
    v.note = "decoded data is not valid UTF-8, nothing copied";
    return v;
  }
  Copy c;
  c.targets = std::move(targets);
  c.text = strip_controls(*raw, c.removed_controls);
  if (c.removed_controls > 0)
    v.note = "removed " + std::to_string(c.removed_controls) +
             " control character(s) from the copied text (possible paste-jacking)";
  if (c.text.empty()) {
    v.note += v.note.empty() ? "" : "; ";
    v.note += "nothing left to copy";
    return v;
  }
  v.copy = std::move(c);
  return v;
}

}  // namespace blaude::osc52
