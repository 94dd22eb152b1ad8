// Launch-time check of a policy's grants against the real file system. The parser only sees
// text; a hostile commit can add a symlink (`./cache -> ~` or `-> /`) so that an innocent-looking
// `allow-write ./cache` would bind the whole home. bwrap binds follow symlinks and Seatbelt
// matches resolved paths, so every grant is resolved here and the resolved path must pass the
// same rules as a written one. Not pure (realpath); run once, right before planning.
#pragma once
#include <vector>

#include "sandbox/policy/policy.hpp"

namespace blaude::sandbox::policy {

struct ResolvedGrants {
  // Every grant as written, plus (when it resolves elsewhere) the same grant on the resolved
  // path, origin suffixed " (via symlink)". Missing paths are kept as written.
  Grants grants;
  std::vector<PolicyError> errors;  // non-empty: refuse to start
};

ResolvedGrants resolve_grants(const Grants& grants, const PolicyContext& ctx);

}  // namespace blaude::sandbox::policy
