// Files and dirs that claude's own environment variables point at (CLAUDE_ENV_FILE, client
// certificates, plugin dirs, ...): they must be bound at the same path or the variable dangles
// inside the sandbox. Pure: the probe lstats these paths, the planner binds what exists.
#pragma once
#include <string>
#include <vector>

#include "sandbox/bwrap/probe/host_facts.hpp"

namespace blaude::sandbox::bwrap {

struct EnvBind {
  std::string var;   // the variable that named the path
  std::string path;  // absolute, normalised
  Kind want = Kind::File;
  bool rw = false;
};

// In the order bwrap gets them. Relative values are ignored (they would depend on the cwd).
std::vector<EnvBind> env_binds(const HostFacts& facts);

}  // namespace blaude::sandbox::bwrap
