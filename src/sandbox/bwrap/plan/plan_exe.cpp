// The program blaude runs, at its own path inside the sandbox: whatever of it the mount table
// built so far does not show (an npm prefix in $HOME, /var/cache/..., a custom PATH dir) is
// bound read-only, and each link on the way from the PATH hit is recreated pointing at it.
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

// Where secrets live under $HOME: a program found in there is not worth exposing them.
const char* const kSecretDirs[] = {".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
                                   ".local/share/keyrings", ".config/gcloud", ".config/gh", ".pki",
                                   ".netrc", ".git-credentials", ".npmrc", ".pypirc"};

// Throws PlanError when mounting `path` would expose $HOME or a secrets dir.
void refuse_if_too_broad(const Builder& b, const std::string& path, const std::string& name) {
  const std::string what = "refusing to mount " + path + " to run " + name + " in the sandbox: ";
  const std::string hint = "Install " + name + " elsewhere (e.g. npm's prefix under ~/.local), or use --exec with a program outside it.";
  if (is_under(b.f.home_real, path) || is_under(b.f.home, path))
    throw PlanError(what + "it is your home directory or a parent of it", hint);
  for (const char* s : kSecretDirs) {
    for (const std::string& h : {b.f.home, b.f.home_real}) {
      const std::string secret = h + "/" + s;
      if (is_under(path, secret) || is_under(secret, path))
        throw PlanError(what + "it would expose " + secret, hint);
    }
  }
}

void make_reachable(Builder& b, const ExeFact& e) {
  auto shows = [&](const std::string& path, const std::string& canon) {
    std::string s = source_at(b.ops, path);
    return !s.empty() && (s == path || s == canon);
  };
  if (!shows(e.real, e.real)) {
    const std::string& what = e.package_root.empty() ? e.real : e.package_root;
    refuse_if_too_broad(b, what, e.name);
    b.ro(what);
  }
  // Straight at the canonical file: a relative link text would resolve through parent dirs
  // that the sandbox may not have (e.g. a linked ~/.npm-global).
  for (const auto& h : e.hops)
    if (h.path != e.real && !shows(h.path, h.canon)) b.add(OpKind::Symlink, e.real, h.path);
}

}  // namespace

void add_exe(Builder& b, const std::vector<std::string>& command) {
  const ExeFact& e = b.f.exe;
  if (!e.found.empty() && !e.real.empty() && !command.empty() && command.front() == e.name) make_reachable(b, e);
  // claude beside another program: a convenience, so a refusal only warns.
  const ExeFact& c = b.f.claude;
  if (c.name == "claude" && !c.found.empty() && !c.real.empty()) {
    try {
      make_reachable(b, c);
    } catch (const PlanError& err) {
      b.p.warnings.push_back(std::string(err.what()) + "; claude is not available inside");
    }
  }
}

}  // namespace blaude::sandbox::bwrap::detail
