// The program blaude runs, at its own path inside the sandbox: whatever of it the mount table
// built so far does not show (an npm prefix in $HOME, /var/cache/..., a custom PATH dir) is
// bound read-only, and each link on the way from the PATH hit is recreated pointing at it.
#include <map>

#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

enum class Op { Bind, Link, Opaque };
struct Mount {
  Op op;
  std::string src;  // host source (Bind) or link text (Link)
  std::string dst;
};

// The mount table an argv builds, in order. --dir, --remount-ro, --chmod change no source.
std::vector<Mount> mounts_of(const std::vector<std::string>& a) {
  static const std::map<std::string, int> skip = {
      {"--uid", 1}, {"--gid", 1}, {"--hostname", 1}, {"--cap-drop", 1}, {"--cap-add", 1},
      {"--chdir", 1}, {"--unsetenv", 1}, {"--args", 1}, {"--seccomp", 1}, {"--perms", 1},
      {"--remount-ro", 1}, {"--dir", 1}, {"--size", 1}, {"--setenv", 2}, {"--chmod", 2}};
  std::vector<Mount> out;
  std::string overlay_src;
  for (size_t i = 1; i < a.size() && a[i] != "--"; ++i) {
    const std::string& o = a[i];
    auto arg = [&](size_t k) { return i + k < a.size() ? a[i + k] : std::string(); };
    if (o == "--bind" || o == "--ro-bind" || o == "--dev-bind" || o == "--bind-try" || o == "--ro-bind-try") {
      out.push_back({Op::Bind, arg(1), arg(2)});
      i += 2;
    } else if (o == "--symlink") {
      out.push_back({Op::Link, arg(1), arg(2)});
      i += 2;
    } else if (o == "--overlay-src") {
      overlay_src = arg(1);
      i += 1;
    } else if (o == "--tmp-overlay" || o == "--ro-overlay") {
      out.push_back({Op::Bind, overlay_src, arg(1)});
      i += 1;
    } else if (o == "--tmpfs" || o == "--dev" || o == "--proc" || o == "--mqueue") {
      out.push_back({Op::Opaque, "", arg(1)});
      i += 1;
    } else if (o == "--ro-bind-data" || o == "--bind-data" || o == "--file") {
      out.push_back({Op::Opaque, "", arg(2)});
      i += 2;
    } else if (auto it = skip.find(o); it != skip.end()) {
      i += size_t(it->second);
    }
  }
  return out;
}

std::string source_in(const std::vector<Mount>& table, const std::string& path, int depth) {
  if (depth > 16) return {};
  for (auto m = table.rbegin(); m != table.rend(); ++m) {
    if (!is_under(path, m->dst)) continue;
    std::string rest = relative_to(path, m->dst);
    switch (m->op) {
      case Op::Bind:
        return rest.empty() ? m->src : join(m->src, rest);
      case Op::Link:
        return source_in(table, join(join(dirname_of(m->dst), m->src), rest), depth + 1);
      case Op::Opaque:
        return {};
    }
  }
  return {};  // bwrap's own root: an empty tmpfs
}

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

}  // namespace

std::string sandbox_source(const std::vector<std::string>& argv, const std::string& path) {
  return source_in(mounts_of(argv), normalize(path), 0);
}

std::function<std::string(const std::string&)> sandbox_sources(const std::vector<std::string>& argv) {
  return [table = mounts_of(argv)](const std::string& path) { return source_in(table, normalize(path), 0); };
}

namespace {

void make_reachable(Builder& b, const ExeFact& e) {
  auto shows = [&](const std::string& path, const std::string& canon) {
    std::string s = sandbox_source(b.p.argv, path);
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
    if (h.path != e.real && !shows(h.path, h.canon)) b.add({"--symlink", e.real, h.path});
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
