#include "common/host_env.hpp"

#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/paths.hpp"

extern char** environ;

namespace blaude {

namespace {

std::string real_of(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

}  // namespace

std::string HostEnv::get(const std::string& key, const std::string& fallback) const {
  auto it = env.find(key);
  return it == env.end() || it->second.empty() ? fallback : it->second;
}

HostEnv HostEnv::from_environ(std::vector<std::string> list) {
  HostEnv h;
  h.environ = std::move(list);
  for (const auto& kv : h.environ) {
    auto eq = kv.find('=');
    if (eq != std::string::npos && eq > 0) h.env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return h;
}

HostEnv HostEnv::read() {
  std::vector<std::string> list;
  for (char** e = ::environ; e && *e; ++e) list.emplace_back(*e);
  HostEnv h = from_environ(std::move(list));
  h.uid = ::getuid();
  h.gid = ::getgid();
  const passwd* pw = ::getpwuid(h.uid);
  h.user = h.get("USER", h.get("LOGNAME", pw ? pw->pw_name : "user"));
  std::string home = h.get("HOME");
  if (home.empty() || home[0] != '/') home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : "/";
  h.home = normalize(home);
  h.home_real = real_of(h.home);
  if (h.home_real.empty()) h.home_real = h.home;
  char buf[PATH_MAX];
  h.cwd = ::getcwd(buf, sizeof buf) ? real_of(buf) : "";
  h.stdin_tty = ::isatty(STDIN_FILENO) == 1;
  h.stdout_tty = ::isatty(STDOUT_FILENO) == 1;
  return h;
}

}  // namespace blaude
