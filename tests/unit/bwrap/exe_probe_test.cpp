// probe_exe over a real temp tree: PATH lookup as execvp, each link on the way (relative ones
// resolved from the link's real dir), the npm package root and what is not one.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "app/launch.hpp"
#include "cli/command.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
namespace fs = std::filesystem;

namespace {

struct TempTree {
  std::string root;
  TempTree() {
    char tmpl[] = "/tmp/blaude-exe-probe.XXXXXX";
    root = ::mkdtemp(tmpl);
    root = fs::canonical(root).string();
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::string file(const std::string& rel, const std::string& text, bool exec) {
    std::string p = root + "/" + rel;
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p) << text;
    ::chmod(p.c_str(), exec ? 0755 : 0644);
    return p;
  }
  std::string link(const std::string& rel, const std::string& target) {
    std::string p = root + "/" + rel;
    fs::create_directories(fs::path(p).parent_path());
    fs::create_symlink(target, p);
    return p;
  }
};

}  // namespace

TEST_CASE("probe_exe: npm's layout, a linked prefix dir and a link chain", "[sandbox][exe]") {
  TempTree t;
  const std::string pkg = t.root + "/prefix/lib/node_modules/@anthropic-ai/claude-code";
  t.file("prefix/lib/node_modules/@anthropic-ai/claude-code/package.json", "{}", false);
  // A nested package.json (e.g. {"type": "module"}) is not the package root.
  t.file("prefix/lib/node_modules/@anthropic-ai/claude-code/bin/package.json", "{}", false);
  const std::string exe = t.file("prefix/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe", "#!/bin/sh\n", true);
  t.link("prefix/bin/claude", "../lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe");
  t.link("linked-prefix", "prefix");
  t.link("other/bin/claude", t.root + "/linked-prefix/bin/claude");
  const std::string home = t.root + "/home";
  fs::create_directories(home);

  SECTION("straight through the prefix") {
    ExeFact e = probe_exe("claude", "relative/dir::" + t.root + "/prefix/bin:/usr/bin", home);
    CHECK(e.from_path);
    CHECK(e.found == t.root + "/prefix/bin/claude");
    CHECK(e.real == exe);
    CHECK(e.package_root == pkg);
    REQUIRE(e.hops.size() == 1);
    CHECK(e.hops[0].path == e.found);
    CHECK(e.hops[0].canon == e.found);
  }
  SECTION("through a linked prefix dir: the relative link resolves from its real dir") {
    ExeFact e = probe_exe("claude", t.root + "/linked-prefix/bin", home);
    CHECK(e.found == t.root + "/linked-prefix/bin/claude");
    CHECK(e.real == exe);
    REQUIRE(e.hops.size() == 1);
    CHECK(e.hops[0].canon == t.root + "/prefix/bin/claude");
  }
  SECTION("a chain of two links") {
    ExeFact e = probe_exe("claude", t.root + "/other/bin:" + t.root + "/prefix/bin", home);
    CHECK(e.found == t.root + "/other/bin/claude");
    REQUIRE(e.hops.size() == 2);
    CHECK(e.hops[1].path == t.root + "/linked-prefix/bin/claude");
    CHECK(e.real == exe);
  }
}

TEST_CASE("probe_exe: what is not found, and what is no npm package", "[sandbox][exe]") {
  TempTree t;
  const std::string home = t.root + "/home";
  fs::create_directories(home);
  t.file("plain/claude", "x", false);  // not executable: execvp would skip it
  const std::string tool = t.file("src/tool/bin/tool", "#!/bin/sh\n", true);
  t.file("src/tool/package.json", "{}", false);  // a dev checkout: its root is no node_modules entry
  const std::string inhome = t.file("home/node_modules/x/bin/x", "#!/bin/sh\n", true);
  t.file("home/node_modules/x/package.json", "{}", false);
  t.file("home/package.json", "{}", false);

  CHECK(probe_exe("claude", t.root + "/plain", home).found.empty());
  CHECK(probe_exe("claude", "", home).found.empty());

  ExeFact dev = probe_exe("tool", t.root + "/src/tool/bin", home);
  CHECK(dev.found == tool);
  CHECK(dev.real == tool);
  CHECK(dev.hops.empty());
  CHECK(dev.package_root.empty());

  // An absolute --exec path is taken as given; a relative one is left to the workspace inside.
  ExeFact abs = probe_exe(tool, "/nonexistent", home);
  CHECK_FALSE(abs.from_path);
  CHECK(abs.found == tool);
  CHECK(probe_exe("src/tool/bin/tool", t.root + "/src/tool/bin", home).found.empty());

  // Inside $HOME a package in node_modules is one; $HOME itself never is.
  CHECK(probe_exe("x", t.root + "/home/node_modules/x/bin", home).package_root == t.root + "/home/node_modules/x");
  CHECK(probe_exe("x", t.root + "/home/node_modules/x/bin", t.root + "/home/node_modules/x").package_root.empty());
  (void)inhome;
}

TEST_CASE("the program that runs: the request's command[0]", "[sandbox][exe]") {
  blaude::cli::Options o;
  auto program = [&] { return blaude::app::sandbox_request(o, blaude::cli::choose_command(o, true)).program(); };
  CHECK(program() == "claude");
  o.chic = true;
  CHECK(program() == "claudechic");
  o.chic = false;
  o.exec = {"bash", "-l"};
  CHECK(program() == "bash");
}
