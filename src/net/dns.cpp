#include "net/dns.hpp"

#include <algorithm>

namespace blaude::net::dns {

namespace {

uint16_t be16(std::string_view s, size_t at) {
  return uint16_t((uint8_t(s[at]) << 8) | uint8_t(s[at + 1]));
}

void put16(std::string& out, uint16_t v) {
  out.push_back(char(v >> 8));
  out.push_back(char(v & 0xff));
}

void put32(std::string& out, uint32_t v) {
  put16(out, uint16_t(v >> 16));
  put16(out, uint16_t(v & 0xffff));
}

bool name_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

std::string header(uint16_t id, bool rd, uint8_t rcode, uint16_t qd, uint16_t an) {
  std::string out;
  put16(out, id);
  // QR (an answer), AA (this server is the authority for every name it gives), RD copied, RA.
  put16(out, uint16_t(0x8000 | 0x0400 | (rd ? 0x0100 : 0) | 0x0080 | (rcode & 0x0f)));
  put16(out, qd);
  put16(out, an);
  put16(out, 0);
  put16(out, 0);
  return out;
}

}  // namespace

std::variant<Query, Error> parse_query(std::string_view in) {
  Error e;
  if (in.size() < 12) {
    e.reason = "shorter than a DNS header";
    return e;
  }
  e.id = be16(in, 0);
  const uint16_t flags = be16(in, 2);
  e.recursion_desired = (flags & 0x0100) != 0;
  if (flags & 0x8000) {
    e.reason = "a response, not a query";
    return e;  // never answered: answering responses makes loops
  }
  e.answerable = true;
  if (in.size() > kMaxMessage) {
    e.reason = "longer than " + std::to_string(kMaxMessage) + " bytes";
    return e;
  }
  if (((flags >> 11) & 0x0f) != 0) {
    e.rcode = kNotImp;
    e.reason = "not a standard query (opcode " + std::to_string((flags >> 11) & 0x0f) + ")";
    return e;
  }
  const uint16_t qd = be16(in, 4), an = be16(in, 6), ns = be16(in, 8), ar = be16(in, 10);
  if (qd != 1 || an != 0 || ns != 0 || ar > 1) {
    e.reason = "not one question (" + std::to_string(qd) + " questions, " + std::to_string(an) + " answers, " +
               std::to_string(ns) + " authority, " + std::to_string(ar) + " additional records)";
    return e;
  }
  Query q;
  q.id = e.id;
  q.recursion_desired = e.recursion_desired;
  size_t at = 12;
  for (int labels = 0;; ++labels) {
    if (at >= in.size()) {
      e.reason = "the name runs past the message";
      return e;
    }
    const uint8_t len = uint8_t(in[at++]);
    if (len == 0) break;
    if (len & 0xc0) {
      e.reason = "a compressed or extended label in the question";
      return e;
    }
    if (labels >= 127 || at + len > in.size()) {
      e.reason = "the name runs past the message";
      return e;
    }
    if (!q.name.empty()) q.name.push_back('.');
    for (size_t i = 0; i < len; ++i) {
      const unsigned char c = uint8_t(in[at + i]);
      if (!name_char(c)) {
        e.reason = "a byte that is not a letter, digit, '-' or '_' in the name";
        return e;
      }
      q.name.push_back(char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    }
    at += len;
    if (q.name.size() > 253) {
      e.reason = "a name longer than 253 characters";
      return e;
    }
  }
  if (at + 4 > in.size()) {
    e.reason = "the question has no type and class";
    return e;
  }
  q.type = be16(in, at);
  q.klass = be16(in, at + 2);
  at += 4;
  // Only an EDNS record (ar == 1) may follow; it is not read (answers stay under 512 bytes).
  if (ar == 0 && at != in.size()) {
    e.reason = "bytes after the question";
    return e;
  }
  return q;
}

std::string encode_answer(const Query& q, uint8_t rcode, std::optional<uint32_t> a4, uint32_t ttl) {
  std::string out = header(q.id, q.recursion_desired, rcode, 1, a4 ? 1 : 0);
  size_t start = 0;
  while (start < q.name.size()) {
    size_t dot = q.name.find('.', start);
    if (dot == std::string::npos) dot = q.name.size();
    out.push_back(char(dot - start));
    out.append(q.name, start, dot - start);
    start = dot + 1;
  }
  out.push_back('\0');
  put16(out, q.type);
  put16(out, q.klass);
  if (a4) {
    put16(out, 0xc00c);  // the question's name, at offset 12
    put16(out, kTypeA);
    put16(out, kClassIN);
    put32(out, ttl);
    put16(out, 4);
    put32(out, *a4);
  }
  return out;
}

std::string encode_error(const Error& e) { return header(e.id, e.recursion_desired, e.rcode, 0, 0); }

AddressMap::AddressMap(size_t capacity) : capacity_(std::min<size_t>(capacity, kSize - 2)) {}

std::optional<uint32_t> AddressMap::assign(const std::string& name) {
  if (auto it = by_name_.find(name); it != by_name_.end()) return it->second;
  if (names_.size() >= capacity_) return std::nullopt;
  const uint32_t addr = kBase + 2 + uint32_t(names_.size());
  names_.push_back(name);
  by_name_.emplace(name, addr);
  return addr;
}

const std::string* AddressMap::name_of(uint32_t addr) const {
  if (!in_range(addr) || addr < kBase + 2) return nullptr;
  const uint32_t i = addr - kBase - 2;
  return i < names_.size() ? &names_[i] : nullptr;
}

}  // namespace blaude::net::dns
