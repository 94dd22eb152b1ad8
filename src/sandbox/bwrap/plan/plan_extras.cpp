// Mount rules driven by what other programs configured on the host: packages linked into node
// tools, paths in claude's environment variables, managed settings' helper programs.
#include "sandbox/bwrap/probe/env_binds.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap::detail {

// After every tool dir (a later ro-bind must not cover a token file) and in two passes for the
// same reason: one package's node_modules mount may contain another package's root.
void add_linked_packages(Builder& b) {
  const HostFacts& f = b.f;
  const std::string claude_dir = claude_config_dir(f);
  std::vector<const LinkedPackage*> kept;
  for (const auto& p : f.linked_packages) {
    // Never $HOME or above it; nothing under ~/.claude, which is writable already.
    if (is_under(f.home_real, p.mount) || is_under(f.home, p.mount) || is_under(p.mount, claude_dir)) continue;
    kept.push_back(&p);
    if (b.linked_mounts.insert(p.mount).second) b.ro(p.mount);
  }
  for (const LinkedPackage* p : kept) {
    for (auto [name, fact] : {std::pair{".token-cache.json", &p->token_cache},
                              {".selected-account.json", &p->selected_account}}) {
      const std::string path = p->root + "/" + name;
      if (fact->lkind == Kind::File) {
        b.rw(path);
      } else if (fact->lkind == Kind::Missing) {
        // MCP servers keep a login only in a file that exists when the sandbox starts. The
        // prepare step creates it (never through a link); -try: if that fails, no bind.
        b.p.preparations.push_back({HostPrep::Kind::CreateFile, path, 0600, "", false,
                                    "token file of the linked package " + p->root});
        b.add(OpKind::BindTry, path, path);
        b.rw_binds.emplace_back(path, path);
      } else if (fact->lkind == Kind::Symlink) {
        // bwrap would follow it: a package under development could point it at ~/.bashrc.
        b.p.warnings.push_back("linked package token file " + path + " is a symlink; it is not mounted");
      }
    }
  }
}

void add_env_binds(Builder& b) {
  for (const auto& e : env_binds(b.f)) {
    const PathFact& pf = b.f.at(e.path);
    if (pf.kind != e.want) continue;
    if (!e.rw) {
      // Already visible as it is (e.g. NODE_EXTRA_CA_CERTS in /etc/ssl): no second mount.
      bool visible = false;
      for (const char* d : {"/usr", "/etc"}) visible = visible || (is_under(e.path, d) && is_under(pf.real, d));
      if (!visible) b.ro(e.path);
    } else if (is_under(b.f.home_real, pf.real) || is_under(b.f.home, e.path)) {
      b.p.warnings.push_back("not mounting " + e.var + " (" + e.path +
                             "): it is your home directory or a parent of it");
    } else if (const std::string git = b.home(".config/git"); is_under(git, e.path) || is_under(e.path, git)) {
      // A writable ~/.config would undo the read-only ~/.config/git (run by the host's next git).
      b.p.warnings.push_back("not mounting " + e.var + " (" + e.path + ") read-write: it holds ~/.config/git");
    } else {
      b.rw(e.path);
    }
  }
}

void add_managed_dirs(Builder& b) {
  for (const auto& m : b.f.managed_dirs) {
    if (m.root_owned) {
      b.ro(m.path);
    } else {
      b.p.warnings.push_back("not mounting managed path " + m.path +
                             ": it must be root-owned and not writable by group or others");
    }
  }
}

}  // namespace blaude::sandbox::bwrap::detail
