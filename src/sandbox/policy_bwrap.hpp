// Linux backend of the policy: grants → bwrap mount arguments (read → --ro-bind, write → --bind,
// exec → --ro-bind; bwrap has no separate exec permission). The "-try" forms skip paths that do
// not exist on this host (toolchain tables list both platforms' cache dirs). The planner must
// emit these after the base mounts and the $HOME tmpfs and BEFORE its protected-path rules, so
// no grant can re-open a protected file.
#pragma once
#include <string>
#include <vector>

#include "sandbox/grant.hpp"

namespace blaude::sandbox {

std::vector<std::string> policy_bwrap_args(const Grants& grants);

}  // namespace blaude::sandbox
