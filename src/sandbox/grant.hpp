// A path the project or user policy opens to the sandbox (the xclaude DSL's allow-* lines and
// toolchains). Produced by the policy parser, consumed by the bwrap planner and the Seatbelt
// profile generator.
#pragma once
#include <string>
#include <vector>

namespace blaude::sandbox {

enum class Access { Read, Write, Exec };

struct Grant {
  Access access = Access::Read;
  std::string path;    // absolute, normalised, no trailing slash, no ".." segments
  std::string origin;  // where it came from, e.g. "/repo/.blaude:3" or "tool node"
};

using Grants = std::vector<Grant>;

}  // namespace blaude::sandbox
