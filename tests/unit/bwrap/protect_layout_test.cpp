// Protections at every writable alias of the workspace, with pins, in an order the helper can apply.
#include <algorithm>
#include <map>

#include "catch.hpp"
#include "sandbox/bwrap/plan/protect_layout.hpp"

using namespace blaude::sandbox::bwrap;

namespace {

IdentityOf any_identity() {
  return [](const std::string& p) -> std::optional<Identity> {
    return Identity{1, std::hash<std::string>{}(p), 0040000};
  };
}

std::map<std::string, InnerKind> by_path(const ProtectLayout& l) {
  std::map<std::string, InnerKind> m;
  for (const auto& x : l.mounts) m[x.path] = x.kind;
  return m;
}

}  // namespace

TEST_CASE("layout: a nested repo's config and hooks, with pins on every dir above them") {
  std::vector<HostGuard> g = {{"/src/w/pkg/a/.git/config", Guard::ReadOnly, ""}, {"/src/w/pkg/a/.git/hooks", Guard::ReadOnly, ""}};
  auto l = layout_protections(g, {{"/src/w", "/workspaces/w"}}, "/src/w", any_identity());
  CHECK(l.missing.empty());
  CHECK(by_path(l) == std::map<std::string, InnerKind>{{"/workspaces/w/pkg", InnerKind::Pin},
                                                       {"/workspaces/w/pkg/a", InnerKind::Pin},
                                                       {"/workspaces/w/pkg/a/.git", InnerKind::Pin},
                                                       {"/workspaces/w/pkg/a/.git/config", InnerKind::ReadOnly},
                                                       {"/workspaces/w/pkg/a/.git/hooks", InnerKind::ReadOnly}});
  CHECK(check_inner_mounts(l.mounts).empty());
}

TEST_CASE("layout: the workspace under a writable /tmp gets the same set there, and is pinned with the dirs above it") {
  std::vector<HostGuard> g = {{"/tmp/a/w/.git/config", Guard::ReadOnly, ""}};
  auto l = layout_protections(g, {{"/tmp", "/tmp"}, {"/tmp/a/w", "/workspaces/w"}}, "/tmp/a/w", any_identity());
  auto m = by_path(l);
  CHECK(m["/tmp/a"] == InnerKind::Pin);
  CHECK(m["/tmp/a/w"] == InnerKind::Pin);
  CHECK(m["/tmp/a/w/.git/config"] == InnerKind::ReadOnly);
  CHECK(m["/workspaces/w/.git/config"] == InnerKind::ReadOnly);
  CHECK_FALSE(m.count("/workspaces/w"));  // bwrap's bind root: cannot be renamed anyway
  CHECK_FALSE(m.count("/tmp"));
  CHECK(check_inner_mounts(l.mounts).empty());
}

TEST_CASE("layout: with a view alias, the workspace under /tmp is one mirror of its own bind there, pinned above") {
  std::vector<HostGuard> g = {{"/tmp/a/w/.git/config", Guard::ReadOnly, ""},
                              {"/tmp/a/w/pkg/b/.git/hooks", Guard::EmptyDir, ""},
                              {"/tmp/cfg/blaude", Guard::ReadOnly, ""}};  // outside the workspace
  std::vector<Alias> aliases = {{"/tmp", "/tmp"}, {"/tmp/a/w", "/workspaces/w"}};
  auto l = layout_protections(g, aliases, "/tmp/a/w", any_identity(), {}, "/tmp");
  auto m = by_path(l);
  CHECK(m["/tmp/a"] == InnerKind::Pin);
  CHECK(m["/tmp/a/w"] == InnerKind::Mirror);
  CHECK(l.mounts.back().path == "/tmp/a/w");  // after every mount in what it clones
  CHECK(l.mounts.back().from == "/workspaces/w");
  CHECK_FALSE(m.count("/tmp/a/w/.git/config"));  // inside the mirror: carried by the clone
  CHECK_FALSE(m.count("/tmp/a/w/pkg"));
  CHECK(m["/tmp/cfg/blaude"] == InnerKind::ReadOnly);  // a guard outside the workspace: as before
  CHECK(m["/workspaces/w/.git/config"] == InnerKind::ReadOnly);  // the workspace's own bind: every guard
  CHECK(m["/workspaces/w/pkg/b/.git/hooks"] == InnerKind::EmptyDir);
  CHECK(check_inner_mounts(l.mounts).empty());
  // Control: without the view the alias gets every guard again (the test above), more mounts.
  auto full = layout_protections(g, aliases, "/tmp/a/w", any_identity());
  CHECK(by_path(full)["/tmp/a/w/.git/config"] == InnerKind::ReadOnly);
  CHECK(full.mounts.size() > l.mounts.size());
  // The view applies only at the named alias: a -m PARENT:rw alias keeps every guard.
  auto other = by_path(layout_protections(g, {{"/tmp", "/tmp"}, {"/tmp/a/w", "/workspaces/w"}}, "/tmp/a/w",
                                          any_identity(), {}, "/data"));
  CHECK(other["/tmp/a/w"] == InnerKind::Pin);
  // As bwrap options (--dry-run's form) the mirror is the pin plus every mount of its source again.
  auto o = as_bwrap_options(l.mounts);
  auto has = [&](std::vector<std::string> want) { return std::search(o.begin(), o.end(), want.begin(), want.end()) != o.end(); };
  CHECK(has({"--bind", "/tmp/a/w", "/tmp/a/w"}));
  CHECK(has({"--ro-bind", "/tmp/a/w/.git/config", "/tmp/a/w/.git/config"}));
  CHECK(has({"--tmpfs", "/tmp/a/w/pkg/b/.git/hooks", "--remount-ro", "/tmp/a/w/pkg/b/.git/hooks"}));
}

TEST_CASE("layout: a workspace with nothing to protect is still pinned at a wider writable bind") {
  auto l = layout_protections({}, {{"/data", "/data"}, {"/data/w", "/workspaces/w"}}, "/data/w", any_identity());
  CHECK(by_path(l) == std::map<std::string, InnerKind>{{"/data/w", InnerKind::Pin}});
}

TEST_CASE("layout: nothing is mounted inside a read-only or empty dir (a pin there would open a hole)") {
  std::vector<HostGuard> g = {{"/w/.husky", Guard::ReadOnly, ""}, {"/w/.husky/_/h", Guard::ReadOnly, ""},
                              {"/w/.git/hooks", Guard::EmptyDir, ""}, {"/w/.git/hooks/x", Guard::ReadOnly, ""}};
  auto m = by_path(layout_protections(g, {{"/w", "/workspaces/w"}}, "/w", any_identity()));
  CHECK(m.count("/workspaces/w/.husky"));
  CHECK_FALSE(m.count("/workspaces/w/.husky/_"));
  CHECK_FALSE(m.count("/workspaces/w/.husky/_/h"));
  CHECK(m["/workspaces/w/.git/hooks"] == InnerKind::EmptyDir);
  CHECK_FALSE(m.count("/workspaces/w/.git/hooks/x"));
}

TEST_CASE("layout: a guard outside every writable alias needs no mount; a missing identity is reported") {
  std::vector<HostGuard> g = {{"/etc/gitconfig", Guard::ReadOnly, ""}, {"/w/.git/config", Guard::ReadOnly, ""}};
  auto l = layout_protections(g, {{"/w", "/workspaces/w"}}, "/w", [](const std::string& p) -> std::optional<Identity> {
    if (p == "/w/.git") return std::nullopt;
    return Identity{1, 2, 0100000};
  });
  CHECK(l.missing == std::vector<std::string>{"/w/.git"});
  for (const auto& m : l.mounts) CHECK(m.path.rfind("/workspaces/w", 0) == 0);
}

TEST_CASE("layout: an empty dir is checked against its parent's identity") {
  auto want = Identity{7, 8, 0040000};
  auto l = layout_protections({{"/w/.git/hooks", Guard::EmptyDir, ""}}, {{"/w", "/workspaces/w"}}, "/w",
                              [&](const std::string& p) -> std::optional<Identity> {
                                if (p == "/w/.git") return want;
                                return Identity{1, 1, 0040000};
                              });
  REQUIRE(l.mounts.size() == 2);
  CHECK(l.mounts[1].kind == InnerKind::EmptyDir);
  CHECK(l.mounts[1].id == want);
}

TEST_CASE("layout: the bwrap-option form of the same mounts") {
  std::vector<InnerMount> m = {{"/workspaces/w/.git", InnerKind::Pin, {}, "/w/.git", "", ""},
                               {"/workspaces/w/.git/config", InnerKind::ReadOnly, {}, "/w/.git/config", "", ""},
                               {"/workspaces/w/.git/hooks", InnerKind::EmptyDir, {}, "/w/.git/hooks", "", ""}};
  CHECK(as_bwrap_options(m) == std::vector<std::string>{"--bind", "/w/.git", "/workspaces/w/.git", "--ro-bind",
                                                        "/w/.git/config", "/workspaces/w/.git/config", "--tmpfs",
                                                        "/workspaces/w/.git/hooks", "--remount-ro",
                                                        "/workspaces/w/.git/hooks"});
}
