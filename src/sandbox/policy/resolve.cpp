#include "sandbox/policy/resolve.hpp"

#include <climits>
#include <cstdlib>

namespace blaude::sandbox::policy {

ResolvedGrants resolve_grants(const Grants& grants, const PolicyContext& ctx) {
  ResolvedGrants out;
  for (const auto& g : grants) {
    out.grants.push_back(g);
    if (g.access == Access::Net) continue;  // a destination, not a path
    char buf[PATH_MAX];
    if (!::realpath(g.path.c_str(), buf)) continue;  // missing: bwrap's -try skips it
    std::string real(buf);
    if (real == g.path) continue;
    if (auto why = check_grant_path(g.access, real, ctx); !why.empty()) {
      out.errors.push_back({g.origin, 0, g.path + " resolves to " + real + ": " + why});
      continue;
    }
    if (!ctx.project_root.empty() && path_within(real, ctx.project_root)) {
      // A second mount of part of the project would dodge the protections of the first.
      out.errors.push_back({g.origin, 0, g.path + " resolves into the project (" + real + ")"});
      continue;
    }
    auto base = real.substr(real.rfind('/') + 1);
    if (base == kPolicyFileName || base == kXclaudeFileName) {
      out.errors.push_back({g.origin, 0, g.path + " resolves to a policy file"});
      continue;
    }
    out.grants.push_back({g.access, real, g.origin + " (via symlink)"});
  }
  return out;
}

}  // namespace blaude::sandbox::policy
