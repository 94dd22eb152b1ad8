#include "common/clip_wire.hpp"

namespace blaude::clip {

namespace {
bool type_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '.' ||
         c == '_' || c == '+' || c == ';' || c == '=' || c == '-';
}
}  // namespace

Kind kind_of(std::string_view t) {
  if (t.empty() || t == "text/plain" || t == "text/plain;charset=utf-8" || t == "text/plain;charset=UTF-8" ||
      t == "UTF8_STRING" || t == "STRING" || t == "TEXT" || t == "text")
    return Kind::Text;
  if (t == "image/png") return Kind::Png;
  return Kind::Other;
}

std::string encode(const Request& r) {
  std::string b;
  b.reserve(3 + r.type.size() + r.data.size());
  b += char(r.op);
  b += char(r.sel);
  b += char(static_cast<unsigned char>(r.type.size()));
  b += r.type;
  b += r.data;
  return b;
}

std::optional<Request> parse_request(std::string_view body, std::string& why) {
  if (body.size() < 3) {
    why = "shorter than its header";
    return std::nullopt;
  }
  Request r;
  const char op = body[0], sel = body[1];
  if (op != 'c' && op != 'p' && op != 't') {
    why = "unknown operation";
    return std::nullopt;
  }
  if (sel != 'c' && sel != 'p') {
    why = "unknown selection";
    return std::nullopt;
  }
  r.op = Op(op);
  r.sel = Sel(sel);
  const size_t tlen = static_cast<unsigned char>(body[2]);
  if (tlen > kMaxType || 3 + tlen > body.size()) {
    why = "type length out of bounds";
    return std::nullopt;
  }
  r.type = std::string(body.substr(3, tlen));
  for (char c : r.type)
    if (!type_char(c)) {
      why = "a character outside [A-Za-z0-9/._+;=-] in the type";
      return std::nullopt;
    }
  std::string_view data = body.substr(3 + tlen);
  if (r.op != Op::Copy && !data.empty()) {
    why = "data after a read request";
    return std::nullopt;
  }
  if (r.op == Op::Copy && data.size() > (kind_of(r.type) == Kind::Text ? kMaxText : kMaxImage)) {
    why = "more data than a copy of this type may hold";
    return std::nullopt;
  }
  r.data = std::string(data);
  return r;
}

std::string encode(const Reply& r) {
  std::string b;
  b.reserve(1 + r.data.size());
  b += r.ok ? '\0' : '\1';
  b += r.data;
  return b;
}

std::optional<Reply> parse_reply(std::string_view body) {
  if (body.empty() || (body[0] != '\0' && body[0] != '\1')) return std::nullopt;
  Reply r;
  r.ok = body[0] == '\0';
  r.data = std::string(body.substr(1));
  if (!r.ok)
    for (char c : r.data)
      if (c < 0x20 || c > 0x7e) return std::nullopt;  // a refusal is one printable line
  return r;
}

bool looks_like_png(std::string_view d) { return d.starts_with(std::string_view("\x89PNG\r\n\x1a\n", 8)); }

}  // namespace blaude::clip
