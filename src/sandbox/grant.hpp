// What the project or user policy opens to the sandbox: a path (the xclaude DSL's allow-* lines
// and toolchains) or a network destination (`allow-domain`, proxy mode). Produced by the policy
// parser; paths are consumed by the bwrap planner and the Seatbelt profile generator, network
// destinations by the proxy (the app layer separates them before a backend sees the grants).
#pragma once
#include <string>
#include <vector>

namespace blaude::sandbox {

enum class Access { Read, Write, Exec, Net };

struct Grant {
  Access access = Access::Read;
  std::string path;    // absolute, normalised, no trailing slash, no ".." segments;
                       // Net: the allow-domain pattern in its canonical spelling
  std::string origin;  // where it came from, e.g. "/repo/.blaude:3" or "tool node"
};

using Grants = std::vector<Grant>;

}  // namespace blaude::sandbox
