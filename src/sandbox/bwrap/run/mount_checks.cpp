#include "sandbox/bwrap/run/mount_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

#include <charconv>
#include <system_error>

#include "common/paths.hpp"
#include "sandbox/bwrap/plan/held.hpp"

namespace blaude::sandbox::bwrap {

namespace {

bool parse_num(std::string_view s, unsigned long long& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Splits "a b c d rest" into 4 words and the rest (the rest may hold spaces).
bool split4(std::string_view rec, std::string_view (&w)[4], std::string_view& rest) {
  for (auto& x : w) {
    size_t sp = rec.find(' ');
    if (sp == std::string_view::npos) return false;
    x = rec.substr(0, sp);
    rec.remove_prefix(sp + 1);
  }
  rest = rec;
  return true;
}

std::string why_not(const CheckLine& c) {
  UniqueFd fd;
  try {
    fd = hold_path(HeldPath{0, c.dst, {}, false});
  } catch (const HeldPathChanged&) {
    return c.dst + " is not where bwrap was to mount it (a symlink on the way, or missing)";
  } catch (const std::system_error& e) {
    return c.dst + ": " + e.what();
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return c.dst + ": cannot stat it";
  if (c.kind == MountCheck::Kind::Bind) {
    if ((unsigned long long)st.st_dev != c.dev || (unsigned long long)st.st_ino != c.ino)
      return c.dst + " shows another object than the one blaude checked on the host";
    struct statvfs vs;
    if (c.ro && (::fstatvfs(fd.get(), &vs) != 0 || !(vs.f_flag & ST_RDONLY)))
      return c.dst + " is not read-only";
    return {};
  }
#ifdef __linux__
  struct statfs fs;
  if (!S_ISDIR(st.st_mode) || ::fstatfs(fd.get(), &fs) != 0 || fs.f_type != TMPFS_MAGIC)
    return c.dst + " is not the empty tmpfs blaude put there";
  // Its own mount: a tmpfs has a device of its own, unlike the (maybe tmpfs) host dir around it.
  std::string parent = dirname_of(c.dst);
  struct stat pst;
  try {
    UniqueFd p = hold_path(HeldPath{0, parent, {}, false});
    if (::fstat(p.get(), &pst) != 0 || pst.st_dev == st.st_dev) return c.dst + " is not the tmpfs blaude put there";
  } catch (const std::exception&) {
    return parent + " is not where bwrap made it";
  }
  return {};
#else
  return c.dst + ": no tmpfs check off Linux";
#endif
}

}  // namespace

std::string format_check_lines(const std::vector<CheckLine>& lines) {
  std::string out;
  for (const auto& c : lines) {
    out += c.kind == MountCheck::Kind::Bind ? "B " : "T ";
    out += std::to_string(c.dev) + ' ' + std::to_string(c.ino) + ' ' + (c.ro ? '1' : '0') + ' ' + c.dst;
    out += '\0';
  }
  return out;
}

std::optional<std::vector<CheckLine>> parse_check_lines(std::string_view text) {
  std::vector<CheckLine> out;
  while (!text.empty()) {
    size_t end = text.find('\0');
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view rec = text.substr(0, end), w[4], rest;
    text.remove_prefix(end + 1);
    CheckLine c;
    unsigned long long ro = 0;
    if (!split4(rec, w, rest) || (w[0] != "B" && w[0] != "T") || !parse_num(w[1], c.dev) || !parse_num(w[2], c.ino) ||
        !parse_num(w[3], ro) || ro > 1 || rest.empty() || rest[0] != '/')
      return std::nullopt;
    c.kind = w[0] == "B" ? MountCheck::Kind::Bind : MountCheck::Kind::Tmpfs;
    c.ro = ro == 1;
    c.dst = std::string(rest);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<CheckLine> record_checks(const std::vector<MountCheck>& checks) {
  std::vector<CheckLine> out;
  for (const auto& m : checks) {
    CheckLine c{m.kind, 0, 0, m.ro, m.dst};
    if (m.kind == MountCheck::Kind::Bind) {
      UniqueFd fd = hold_path(HeldPath{0, m.host, m.id, false});
      struct stat st;
      if (::fstat(fd.get(), &st) != 0) throw std::system_error(errno, std::generic_category(), "stat " + m.host);
      c.dev = (unsigned long long)st.st_dev;
      c.ino = (unsigned long long)st.st_ino;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string verify_mounts(const std::vector<CheckLine>& lines) {
  for (const auto& c : lines)
    if (std::string w = why_not(c); !w.empty()) return w;
  return {};
}

std::string verify_mounts_file(const std::string& file) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return file + " (blaude's record of the mounts to check) is missing";
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) return "cannot read " + file;
    if (n == 0) break;
    text.append(buf, size_t(n));
    if (text.size() > (64u << 20)) return file + " is too large";
  }
  auto lines = parse_check_lines(text);
  if (!lines) return file + " is not blaude's record of the mounts to check";
  return verify_mounts(*lines);
}

}  // namespace blaude::sandbox::bwrap
