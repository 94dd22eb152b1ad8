#include "common/file_io.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

#include "common/paths.hpp"
#include "common/unique_fd.hpp"

namespace blaude {

std::string errno_text() { return std::strerror(errno); }

std::optional<std::string> read_small_file(const std::string& path, size_t cap, Follow follow) {
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (follow == Follow::No ? O_NOFOLLOW : 0);
  UniqueFd fd(::open(path.c_str(), flags));
  if (!fd) return std::nullopt;
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out;
  char buf[4096];
  while (out.size() < cap) {
    ssize_t n = ::read(fd.get(), buf, std::min(sizeof buf, cap - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  return out;
}

std::optional<std::string> read_first_line(const std::string& path) {
  auto text = read_small_file(path, 4096);
  if (!text) return std::nullopt;
  std::string line = text->substr(0, text->find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
  return line;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    data.remove_prefix(size_t(n));
  }
  return true;
}

std::string atomic_replace(const std::string& path, std::string_view content, mode_t mode) {
  const std::string dir = dirname_of(path);
  std::string tmp = path + ".blaude-XXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (!fd) return "cannot write in " + dir + ": " + errno_text();
  auto fail = [&](const std::string& what) {
    std::string why = what + ": " + errno_text();
    ::unlink(tmp.c_str());
    return why;
  };
  if (::fchmod(fd.get(), mode) != 0) return fail("cannot set the mode of " + tmp);
  if (!write_all(fd.get(), content)) return fail("cannot write " + tmp);
  if (::fsync(fd.get()) != 0) return fail("cannot sync " + tmp);
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot replace " + path);
  if (UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); d) ::fsync(d.get());
  return {};
}

bool make_dirs(const std::string& path, mode_t mode) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    errno = ENOTDIR;
    return false;
  }
  const std::string parent = dirname_of(path);
  if (parent != path && !make_dirs(parent, mode)) return false;
  return ::mkdir(path.c_str(), mode) == 0 || errno == EEXIST;
}

bool is_dir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool path_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}
std::string canonical_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

}  // namespace blaude
