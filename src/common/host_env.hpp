// The process's view of the host, read once at start: who runs blaude, where, with which
// environment, on which terminals. Every module that needs one of these takes it from here, so
// no two places can disagree (say, about HOME when it is unset).
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace blaude {

struct HostEnv {
  uid_t uid = 1000;
  gid_t gid = 1000;
  std::string user;       // $USER, else $LOGNAME, else the passwd name, else "user"
  std::string home;       // $HOME when absolute, else the passwd dir, else "/"; normalised
  std::string home_real;  // its canonical path (a symlinked HOME resolves here); home if none
  std::string cwd;        // the canonical working directory; "" when it cannot be resolved
  bool stdin_tty = false;
  bool stdout_tty = false;
  std::vector<std::string> environ;        // KEY=VALUE, as the process got them
  std::map<std::string, std::string> env;  // the same, by name (first definition wins)

  // The value, or `fallback` when unset or empty.
  std::string get(const std::string& key, const std::string& fallback = "") const;
  bool stdio_tty() const { return stdin_tty && stdout_tty; }

  static HostEnv read();
  // A host with just these variables (tests, the pure parts); the rest as given.
  static HostEnv from_environ(std::vector<std::string> environ);
};

}  // namespace blaude
