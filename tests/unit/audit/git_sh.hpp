// What the audit's tests against the real git share: a file's bytes, and a shell command run
// with no global or system git config (only what the test writes counts).
#pragma once
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>

#include "audit/report.hpp"

namespace blaude::testing {

inline std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline int sh(const std::string& cmd) {
  return system(("env -i PATH=/usr/bin:/bin HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 sh -c " + audit::sh_quote(cmd)).c_str());
}

}  // namespace blaude::testing
