// The one fake host of the unit tests: HostFacts filled by hand (nothing is probed), a typical
// merged-/usr Linux host to start from, and the argv helpers the planner tests share.
#pragma once
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/request.hpp"

namespace blaude::testing {

using Argv = std::vector<std::string>;
using sandbox::bwrap::HostFacts;
using sandbox::bwrap::Kind;
using sandbox::bwrap::PathFact;

inline void put(HostFacts& f, const std::string& p, Kind k) { f.paths[p] = PathFact{k, k, p, ""}; }
inline void put_link(HostFacts& f, const std::string& p, const std::string& link, const std::string& real, Kind k) {
  f.paths[p] = PathFact{Kind::Symlink, k, real, link};
}
inline PathFact fact(Kind k, const std::string& p) { return PathFact{k, k, k == Kind::Missing ? "" : p, ""}; }

// The probe's identities: every path the workspace scan's protections name, every dir above
// them, and the workspace itself (a synthetic dev/ino per path).
inline HostFacts& identify_all(HostFacts& f) {
  auto add = [&](std::string p) {
    for (; !p.empty(); p = p == "/" ? "" : p.substr(0, std::max<size_t>(1, p.rfind('/'))))
      f.ws.ids.emplace(p, sandbox::Identity{1, std::hash<std::string>{}(p), 0040000});
  };
  for (const auto& g : f.ws.git.protect) add(g.path);
  for (const auto& [rel, pf] : f.ws.hits) {
    add(f.cwd + "/" + rel);
    if (!pf.real.empty()) add(pf.real);
  }
  add(f.cwd);
  return f;
}

// uid 1000 "u", HOME /home/u, workspace /home/u/proj, bwrap 0.9+ (overlays), merged /usr,
// a host /tmp and an existing ~/.claude.
inline HostFacts typical_host() {
  HostFacts f;
  f.uid = f.gid = 1000;
  f.user = "u";
  f.home = f.home_real = "/home/u";
  f.cwd = "/home/u/proj";
  f.bwrap = "/usr/bin/bwrap";
  f.overlay = true;
  f.ipc.landlock_abi = 7;  // Linux 6.12+: abstract sockets and signals can be scoped
  f.nvm_dir = "/home/u/.nvm";
  f.fnm_dir = "/home/u/.local/share/fnm";
  f.pnpm_home = "/home/u/.local/share/pnpm";
  f.corepack_home = "/home/u/.cache/node/corepack";
  for (auto [d, t] : {std::pair{"/bin", "usr/bin"}, {"/sbin", "usr/sbin"}, {"/lib", "usr/lib"}, {"/lib64", "usr/lib64"}})
    put_link(f, d, t, std::string("/") + t, Kind::Dir);
  put(f, "/tmp", Kind::Dir);
  put(f, "/home/u/.claude", Kind::Dir);
  return f;
}

// What the planner gets besides the request's options: the environment and the command (the
// tests' old PlanInputs, kept as a value so each test states only what it varies).
struct PlanInputs {
  sandbox::EnvList env;
  std::vector<std::string> command{"claude", "--dangerously-skip-permissions"};
  sandbox::Grants grants;
};

inline sandbox::LaunchPlan plan(sandbox::SandboxRequest req, const HostFacts& f, const PlanInputs& in = {}) {
  req.command = in.command;
  req.grants = in.grants;
  return sandbox::bwrap::plan(req, f, in.env);
}

// The protect helper's mount at `path` in a plan, or null.
inline const sandbox::InnerMount* mount_at(const sandbox::LaunchPlan& p, const std::string& path) {
  for (const auto& m : p.inner_mounts)
    if (m.path == path) return &m;
  return nullptr;
}

// A plan with a plain HOME=/home/u and PATH=/usr/bin environment.
inline sandbox::LaunchPlan plan_of(const HostFacts& f, sandbox::SandboxRequest req = {}) {
  PlanInputs in;
  in.env = {{"HOME", "/home/u"}, {"PATH", "/usr/bin"}};
  return plan(req, f, in);
}

// Index of the first occurrence of `seq` as a contiguous run in argv, or -1.
inline long find(const Argv& argv, const Argv& seq) {
  auto it = std::search(argv.begin(), argv.end(), seq.begin(), seq.end());
  return it == argv.end() ? -1 : long(it - argv.begin());
}
inline bool has(const Argv& argv, const Argv& seq) { return find(argv, seq) >= 0; }
inline long count(const Argv& argv, const std::string& s) { return std::count(argv.begin(), argv.end(), s); }
inline bool mentions(const Argv& argv, const std::string& s) { return count(argv, s) > 0; }

}  // namespace blaude::testing
