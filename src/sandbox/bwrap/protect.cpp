// The workspace and its protected paths: files and dirs that run code on the host later
// (.git/hooks, .git/config, .bashrc, .vscode, ...) are made read-only or write-discarding,
// at every path through which the sandbox can write the workspace.
#include <algorithm>
#include <map>
#include <set>

#include "sandbox/bwrap/plan.hpp"
#include "sandbox/bwrap/plan_builder.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

enum class Guard {
  Pin,         // rw self-bind: a mount point cannot be renamed away and recreated
  File,        // ro-bind
  Dir,         // overlay (writes discarded) or ro-bind
  MissingDir,  // read-only empty tmpfs: the name cannot be created
};

struct Collector {
  const HostFacts& f;
  LaunchPlan& p;
  std::map<std::string, Guard> out;  // rel → guard; sorted, so parents come before children

  bool inside(const std::string& real) const { return !real.empty() && is_under(real, f.cwd) && real != f.cwd; }

  // A protected name that is a symlink is never bound (bwrap would follow it to wherever the
  // agent pointed it). Its target is protected instead when that lies inside the workspace.
  bool symlink(const std::string& rel, const PathFact& pf, Kind want) {
    if (pf.lkind != Kind::Symlink) return false;
    p.warnings.push_back("protected path " + rel + " is a symlink; it is not bound");
    if (inside(pf.real) && pf.kind == want)
      out.emplace(relative_to(pf.real, f.cwd), want == Kind::File ? Guard::File : Guard::Dir);
    return true;
  }
  void file(const std::string& rel, const PathFact& pf) {
    if (symlink(rel, pf, Kind::File)) return;
    if (pf.lkind == Kind::File) out.emplace(rel, Guard::File);
  }
  void dir(const std::string& rel, const PathFact& pf, bool guard_missing) {
    if (symlink(rel, pf, Kind::Dir)) return;
    if (pf.lkind == Kind::Dir) {
      out.emplace(rel, Guard::Dir);
    } else if (pf.lkind == Kind::Missing && guard_missing) {
      out.emplace(rel, Guard::MissingDir);
      p.notes.push_back(rel + " is missing; it is kept empty and read-only in the sandbox "
                              "(an empty directory appears on the host as the mount point)");
    }
  }
};

bool safe_link_target(const std::string& t) {
  for (const char* p : {"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev"})
    if (is_under(t, p)) return true;
  return false;
}

void warn_links(Builder& b) {
  std::string w;
  for (const auto& l : b.f.ws.links) {
    if (is_under(l.target, b.f.cwd) || safe_link_target(l.target)) continue;
    w += "\n  " + l.rel + " -> " + l.target;
  }
  if (!w.empty()) b.p.warnings.push_back("workspace contains symlinks pointing outside the tree:" + w);
}

std::map<std::string, Guard> collect(Builder& b) {
  Collector c{b.f, b.p, {}};
  for (const auto& [rel, pf] : b.f.ws.hits) {
    std::string name = basename_of(rel);
    if (name == ".vscode" || name == ".idea") {
      c.dir(rel, pf, false);
    } else if (name == ".git") {
      if (pf.lkind == Kind::Symlink) c.symlink(rel, pf, Kind::Missing);  // warn only
    } else {
      c.file(rel, pf);
    }
  }
  for (const auto& g : b.f.ws.gitdirs) {
    c.file(g.rel + "/config", g.config);
    // A missing hooks dir gets a read-only placeholder rather than covering all of .git,
    // so the agent's commits still land on the host.
    c.dir(g.rel + "/hooks", g.hooks, true);
    if (!g.hooks_path.empty()) c.dir(g.hooks_path, g.hooks_path_fact, true);
  }
  // Pin every ancestor of a protected path, or `mv .git x && mkdir -p .git/hooks` would get
  // around the mounts. Nothing is pinned or guarded inside a guarded dir: a rw pin there
  // would punch a host-writable hole through the overlay.
  std::map<std::string, Guard> all = c.out;
  for (const auto& [rel, g] : c.out)
    for (std::string a = dirname_of(rel); a != "." && a != "/"; a = dirname_of(a)) all.emplace(a, Guard::Pin);
  std::map<std::string, Guard> kept;
  std::string covered;  // the last Dir/MissingDir guard
  for (const auto& [rel, g] : all) {
    if (!covered.empty() && is_under(rel, covered)) continue;
    kept.emplace(rel, g);
    if (g == Guard::Dir || g == Guard::MissingDir) covered = rel;
  }
  return kept;
}

void emit(Builder& b, const std::map<std::string, Guard>& guards, const std::string& alias) {
  const std::string& ws = b.f.cwd;
  for (const auto& [rel, g] : guards) {
    std::string src = ws + "/" + rel, dst = alias + "/" + rel;
    switch (g) {
      case Guard::Pin: b.add({"--bind", src, dst}); break;
      case Guard::File: b.ro(src, dst); break;
      case Guard::Dir:
        if (b.f.overlay) {
          b.overlay(src, dst);
        } else {
          b.ro(src, dst);
        }
        break;
      case Guard::MissingDir: b.add({"--tmpfs", dst, "--remount-ro", dst}); break;
    }
  }
}

}  // namespace

void add_workspace(Builder& b) {
  const auto& f = b.f;
  if (!b.req.allow_protected_writes && is_under(f.home_real, f.cwd))
    throw PlanError("refusing to use your home directory (or a parent of it) as the workspace: " + f.cwd,
                    "Use a subdirectory instead, --tmp, or --allow-protected-writes to override.");
  const std::string w = workspace_dest(f.cwd);
  // Every place the workspace is writable from inside: its /workspaces alias, and any earlier
  // rw bind that contains it (host /tmp, -m DIR:rw, a policy grant, ~/.claude).
  std::vector<std::string> aliases = {w};
  for (const auto& [src, dst] : b.rw_binds) {
    if (!is_under(f.cwd, src)) continue;
    std::string a = f.cwd == src ? dst : join(dst, relative_to(f.cwd, src));
    if (std::find(aliases.begin(), aliases.end(), a) == aliases.end()) aliases.push_back(a);
  }
  b.add({"--bind", f.cwd, w});
  if (!b.req.allow_protected_writes) {
    warn_links(b);
    auto guards = collect(b);
    for (const auto& a : aliases) emit(b, guards, a);
  }
  b.add({"--chdir", w});
}

}  // namespace blaude::sandbox::bwrap::detail
