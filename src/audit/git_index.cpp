#include "audit/git_index.hpp"

#include <cstdint>
#include <cstring>

namespace blaude::audit {

namespace {

uint32_t be32(const unsigned char* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}
uint16_t be16(const unsigned char* p) { return uint16_t(p[0] << 8 | p[1]); }

constexpr uint32_t kGitlink = 0160000;
constexpr uint32_t kTypeMask = 0170000;
constexpr uint16_t kNameMask = 0x0fff;
constexpr uint16_t kExtended = 0x4000;
// The fixed part of an entry before the object name: ctime, mtime (8 each), dev, ino, mode, uid,
// gid, size (4 each).
constexpr size_t kStatPart = 40;

}  // namespace

IndexGitlinks index_gitlinks(std::string_view data, size_t hash_len, size_t max_gitlinks) {
  IndexGitlinks out;
  auto fail = [&out](std::string why) {
    out.error = std::move(why);
    return out;
  };
  const auto* d = reinterpret_cast<const unsigned char*>(data.data());
  const size_t n = data.size();
  if (n < 12 || std::memcmp(d, "DIRC", 4) != 0)
    return fail("not a git index");
  const uint32_t version = be32(d + 4);
  if (version < 2 || version > 4)
    return fail("index version " + std::to_string(version));
  const uint32_t count = be32(d + 8);
  size_t at = 12;
  std::string previous;  // version 4: the path the next one is compressed against
  for (uint32_t i = 0; i < count; ++i) {
    const size_t start = at;
    if (n - at < kStatPart + hash_len + 2)
      return fail("entry " + std::to_string(i) + " is cut short");
    const uint32_t mode = be32(d + at + 24);
    at += kStatPart + hash_len;
    const uint16_t flags = be16(d + at);
    at += 2;
    if (flags & kExtended) {
      if (n - at < 2)
        return fail("entry " + std::to_string(i) + " is cut short");
      at += 2;
    }
    const size_t flag_len = flags & kNameMask;
    std::string name;
    if (version == 4) {
      // git's varint: 7 bits a byte, high bit "more", +1 per continuation.
      uint64_t strip = 0;
      int bytes = 0;
      for (;;) {
        if (at >= n || ++bytes > 9)
          return fail("entry " + std::to_string(i) + ": bad path prefix");
        const unsigned char c = d[at++];
        strip = (strip << 7) | (c & 127);
        if (!(c & 128)) break;
        ++strip;
      }
      if (strip > previous.size())
        return fail("entry " + std::to_string(i) + ": path prefix longer than the previous path");
      const size_t keep = previous.size() - size_t(strip);
      const void* nul = std::memchr(d + at, 0, n - at);
      if (!nul)
        return fail("entry " + std::to_string(i) + ": path not terminated");
      size_t suffix = size_t(static_cast<const unsigned char*>(nul) - (d + at));
      if (flag_len != kNameMask) {
        if (flag_len < keep || flag_len - keep > suffix)
          return fail("entry " + std::to_string(i) + ": path length does not match");
        suffix = flag_len - keep;
      }
      name = previous.substr(0, keep);
      name.append(reinterpret_cast<const char*>(d + at), suffix);
      at += suffix + 1;
      previous = name;
    } else {
      size_t len = flag_len;
      if (len == kNameMask) {
        const void* nul = std::memchr(d + at, 0, n - at);
        if (!nul)
          return fail("entry " + std::to_string(i) + ": path not terminated");
        len = size_t(static_cast<const unsigned char*>(nul) - (d + at));
      }
      if (n - at < len + 1)
        return fail("entry " + std::to_string(i) + " is cut short");
      name.assign(reinterpret_cast<const char*>(d + at), len);
      // Padded with 1 to 8 NULs to a multiple of 8 from the entry's start.
      const size_t size = ((at - start) + len + 8) & ~size_t(7);
      if (n - start < size)
        return fail("entry " + std::to_string(i) + " is cut short");
      at = start + size;
    }
    if ((mode & kTypeMask) == kGitlink) {
      if (out.paths.size() >= max_gitlinks)
        return fail("more than " + std::to_string(max_gitlinks) + " gitlinks");
      out.paths.push_back(std::move(name));
    }
  }
  // Extensions: a 4-byte signature, a 32-bit size, the data; then the checksum.
  bool linked = false;
  while (n - at > hash_len) {
    if (n - at - hash_len < 8)
      return fail("an extension is cut short");
    const size_t size = be32(d + at + 4);
    if (n - at - hash_len - 8 < size)
      return fail("an extension is cut short");
    if (std::memcmp(d + at, "link", 4) == 0) {
      if (linked)
        return fail("two split index links");
      linked = true;
      if (size < hash_len)
        return fail("a split index link is cut short");
      static const char hex[] = "0123456789abcdef";
      for (size_t k = 0; k < hash_len; ++k) {
        out.shared += hex[d[at + 8 + k] >> 4];
        out.shared += hex[d[at + 8 + k] & 15];
      }
      // All zeros: no shared index.
      if (out.shared.find_first_not_of('0') == std::string::npos) out.shared.clear();
    }
    at += 8 + size;
  }
  if (n - at != hash_len)
    return fail("no checksum");
  return out;
}

bool gitlink_path_ok(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  size_t i = 0;
  for (;;) {
    size_t j = path.find('/', i);
    std::string_view c = path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
    if (c.empty() || c == "." || c == "..") return false;
    if (c.size() == 4 && c[0] == '.' && (c[1] | 0x20) == 'g' && (c[2] | 0x20) == 'i' && (c[3] | 0x20) == 't') return false;
    if (c.find('\0') != std::string_view::npos) return false;
    if (j == std::string_view::npos) return true;
    i = j + 1;
  }
}

}  // namespace blaude::audit
