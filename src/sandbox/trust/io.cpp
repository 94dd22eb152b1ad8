#include "sandbox/trust/io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/file_io.hpp"
#include "common/sha256.hpp"

namespace blaude::sandbox::trust {


namespace {

std::string realpath_or_empty(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string parent_of(const std::string& p) {
  auto slash = p.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return p.substr(0, slash);
}

std::string trim_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string resolve_against(const std::string& base_dir, const std::string& p) {
  return p.starts_with('/') ? p : base_dir + "/" + p;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) { return blaude::sha256_hex(bytes); }

FileRead read_file_once(const std::string& path, size_t max_bytes) {
  FileRead r;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    if (errno == ENOENT) return r;
    r.exists = true;
    r.error = errno == ELOOP ? "is a symbolic link (policy files must be regular files)"
                             : "cannot be read: " + errno_text();
    return r;
  }
  r.exists = true;
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    r.error = "is not a regular file";
    return r;
  }
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.error = "cannot be read: " + errno_text();
      return r;
    }
    if (n == 0) break;
    r.content.append(buf, static_cast<size_t>(n));
    if (r.content.size() > max_bytes) {
      r.error = "is too large (over " + std::to_string(max_bytes) + " bytes)";
      r.content.clear();
      return r;
    }
  }
  return r;
}

std::string find_git_common_dir(const std::string& dir) {
  std::string d = realpath_or_empty(dir);
  while (!d.empty()) {
    const std::string dotgit = (d == "/" ? "" : d) + "/.git";
    struct stat st{};
    if (::lstat(dotgit.c_str(), &st) == 0) {
      std::string gitdir;
      if (S_ISDIR(st.st_mode)) {
        gitdir = dotgit;
      } else if (S_ISREG(st.st_mode)) {
        auto f = read_file_once(dotgit, 4096);
        auto line = trim_line(f.content);
        if (!line.starts_with("gitdir: ")) return "";
        gitdir = resolve_against(d, line.substr(8));
      } else {
        return "";
      }
      auto common = read_file_once(gitdir + "/commondir", 4096);
      std::string result = gitdir;
      if (common.exists && common.error.empty())
        result = resolve_against(gitdir, trim_line(common.content));
      return realpath_or_empty(result);
    }
    if (d == "/") break;
    d = parent_of(d);
  }
  return "";
}

std::string trust_scope(const std::string& project_root, const std::string& policy_file) {
  auto common = find_git_common_dir(project_root);
  if (!common.empty()) return "repo:" + common;
  auto real = realpath_or_empty(policy_file);
  return "path:" + (real.empty() ? policy_file : real);
}

std::optional<LedgerLock> LedgerLock::acquire(const std::string& config_dir, std::string& error) {
  if (!make_dirs(config_dir, 0700)) {
    error = "cannot create " + config_dir + ": " + errno_text();
    return std::nullopt;
  }
  const std::string path = config_dir + "/trusted.lock";
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    error = "cannot open " + path + ": " + errno_text();
    return std::nullopt;
  }
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) {
      error = "cannot lock " + path + ": " + errno_text();
      return std::nullopt;
    }
  }
  return LedgerLock(std::move(fd));
}

std::optional<Ledger> load_ledger(const std::string& config_dir, std::string& error) {
  const std::string path = config_dir + "/trusted";
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022)) {
      error = path + " is not a private file of yours (expected mode 0600, owned by you)";
      return std::nullopt;
    }
  }
  auto f = read_file_once(path, 16 * 1024 * 1024);
  if (!f.error.empty()) {
    error = path + " " + f.error;
    return std::nullopt;
  }
  std::string why;
  auto l = parse_ledger(f.content, why);
  if (!l) error = path + " is damaged: " + why;
  return l;
}

bool save_ledger(const std::string& config_dir, const Ledger& ledger, std::string& error) {
  if (!make_dirs(config_dir, 0700)) {
    error = "cannot create " + config_dir + ": " + errno_text();
    return false;
  }
  if (std::string why = atomic_replace(config_dir + "/trusted", format_ledger(ledger), 0600); !why.empty()) {
    error = why;
    return false;
  }
  return true;
}

}  // namespace blaude::sandbox::trust
