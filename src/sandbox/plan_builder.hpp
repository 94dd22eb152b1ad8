// Internal to the planner: accumulates bwrap arguments and remembers what it made writable,
// so later rules (protected paths) can find every alias of the workspace.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "cli/options.hpp"
#include "sandbox/host_facts.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::detail {

enum class Fallback { Bind, RoBind, Tmpfs };

struct Builder {
  const cli::Options& o;
  const HostFacts& f;
  LaunchPlan p;
  std::vector<std::pair<std::string, std::string>> rw_binds;  // (host canonical src, sandbox dst)
  std::vector<std::string> host_writable;                      // overlay fallbacks left writable

  void add(std::initializer_list<std::string> args) { p.argv.insert(p.argv.end(), args); }
  void ro(const std::string& src, const std::string& dst) { add({"--ro-bind", src, dst}); }
  void ro(const std::string& path) { ro(path, path); }
  void rw(const std::string& src, const std::string& dst);
  void rw(const std::string& path) { rw(path, path); }
  void tmpfs(const std::string& path) { add({"--tmpfs", path}); }
  void dir(const std::string& path) { add({"--dir", path}); }
  void overlay(const std::string& src, const std::string& dst) {
    add({"--overlay-src", src, "--tmp-overlay", dst});
  }
  // A host tool or config dir: write-discarding overlay where bwrap can, else the fallback.
  // Nothing unless the path is a directory.
  void overlay_or(const std::string& path, Fallback fb);
  bool is_dir(const std::string& path) const { return f.at(path).kind == Kind::Dir; }
  bool is_file(const std::string& path) const { return f.at(path).kind == Kind::File; }
  std::string home(const std::string& rel) const { return f.home + "/" + rel; }
};

// Workspace bind, protected paths and their pins (plan_protect.cpp).
void add_workspace(Builder& b);

}  // namespace blaude::sandbox::detail
