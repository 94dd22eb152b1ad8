#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "catch.hpp"
#include "sandbox/policy/resolve.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
namespace fs = std::filesystem;

namespace {

struct TempHome {
  std::string dir;
  TempHome() {
    std::string t = (fs::temp_directory_path() / "blaude-resolve-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()));
    dir = fs::canonical(t).string();
  }
  ~TempHome() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("policy resolve: symlinks cannot widen a grant", "[policy][resolve]") {
  TempHome t;
  const std::string home = t.dir + "/home";
  const std::string proj = home + "/proj";
  fs::create_directories(proj);
  fs::create_directories(home + "/.cache/real");
  fs::create_directories(home + "/.ssh");
  fs::create_directory_symlink(home, proj + "/to-home");
  fs::create_directory_symlink("/", proj + "/to-root");
  fs::create_directory_symlink(home + "/.ssh", proj + "/to-ssh");
  fs::create_directory_symlink(home + "/.cache/real", proj + "/cache");
  fs::create_directories(proj + "/.git/hooks");
  fs::create_directory_symlink(proj + "/.git", home + "/git-alias");
  PolicyContext ctx{home, proj, {}, home + "/.config/blaude"};

  SECTION("attack: a committed symlink to $HOME, / or ~/.ssh is refused, naming the line") {
    for (const char* link : {"/to-home", "/to-root", "/to-ssh"}) {
      INFO(link);
      auto r = resolve_grants({{Access::Write, proj + link, "/p/.blaude:3"}}, ctx);
      REQUIRE(r.errors.size() == 1);
      CHECK(r.errors[0].file == "/p/.blaude:3");
      CHECK(r.errors[0].why.find("resolves to") != std::string::npos);
    }
  }
  SECTION("attack: a symlink from outside into the project is refused (second path to .git)") {
    auto r = resolve_grants({{Access::Write, home + "/git-alias", "/p/.blaude:2"}}, ctx);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].why.find("resolves into the project") != std::string::npos);
  }
  SECTION("control: the same grant without the symlink is accepted") {
    auto r = resolve_grants({{Access::Write, proj + "/plain", "/p/.blaude:3"}}, ctx);
    CHECK(r.errors.empty());
    CHECK(r.grants.size() == 1);
  }
  SECTION("a harmless symlink is granted under both spellings") {
    auto r = resolve_grants({{Access::Read, proj + "/cache", "/p/.blaude:1"}}, ctx);
    REQUIRE(r.errors.empty());
    REQUIRE(r.grants.size() == 2);
    CHECK(r.grants[1].path == home + "/.cache/real");
    CHECK(r.grants[1].origin == "/p/.blaude:1 (via symlink)");
  }
}
