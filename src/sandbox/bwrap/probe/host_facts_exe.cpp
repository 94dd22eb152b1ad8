// probe_exe: where the program blaude runs lives on the host, so plan() can make it reachable
// at the same path inside (an npm prefix, a custom PATH dir, a node_modules/.bin link).
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "common/path_search.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

std::string exe_real_of(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool is_exe_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// execvp's lookup; relative and empty PATH entries are skipped (they would depend on the cwd,
// which is /workspaces/<dir> inside in the seed's layout).
std::string lookup(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) return {};
  auto found = find_executable(name, path, RelativeEntries::Skip);
  return found ? normalize(*found) : std::string();
}

// The parent dir with every link resolved, then the last component as it is.
std::string canon_of(const std::string& p) {
  std::string d = exe_real_of(dirname_of(p));
  return d.empty() ? p : join(d, basename_of(p));
}

// The installed package above `real`: the nearest dir that holds a package.json and sits
// directly in node_modules (or in node_modules/@scope). A dev checkout with a package.json
// is not one: binding it could expose a whole source tree. Never $HOME or above it.
std::string npm_package_root(const std::string& real, const std::string& home_real) {
  for (std::string d = dirname_of(real); d != "/" && !is_under(home_real, d); d = dirname_of(d)) {
    std::string parent = dirname_of(d);
    bool in_nm = basename_of(parent) == "node_modules" ||
                 (basename_of(parent).rfind('@', 0) == 0 && basename_of(dirname_of(parent)) == "node_modules");
    if (in_nm && is_file(d + "/package.json")) return d;
  }
  return {};
}

}  // namespace

ExeFact probe_exe(const std::string& name, const std::string& path_env, const std::string& home_real) {
  ExeFact e;
  e.name = name;
  if (e.name.empty()) return e;
  if (e.name.find('/') == std::string::npos) {
    e.from_path = true;
    e.found = lookup(e.name, path_env);
  } else if (e.name.front() == '/' && is_exe_file(e.name)) {
    e.found = normalize(e.name);
  }
  // A relative path with a '/' is resolved against the workspace inside: nothing to mount.
  if (e.found.empty()) return e;
  e.real = exe_real_of(e.found);
  if (e.real.empty()) {
    e.found.clear();
    return e;
  }
  // Each link on the way: the sandbox needs every one it cannot already see (at most 40, as
  // the kernel's own limit).
  std::string p = e.found;
  for (int i = 0; i < 40 && p != e.real; ++i) {
    e.hops.push_back({p, canon_of(p)});
    struct stat st;
    char buf[PATH_MAX];
    ssize_t n = ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode) ? ::readlink(p.c_str(), buf, sizeof buf - 1) : -1;
    if (n <= 0) break;  // a regular file reached through linked parent dirs: canon == real
    std::string text(buf, size_t(n));
    p = text.front() == '/' ? normalize(text) : join(dirname_of(e.hops.back().canon), text);
  }
  e.package_root = npm_package_root(e.real, home_real);
  return e;
}

}  // namespace blaude::sandbox::bwrap
