// The index reader (audit/git_index.hpp) against indexes the real git writes (every version,
// split, SHA-256), against hand-made hostile ones, and end to end: an index whose gitlink leaves
// the work tree makes the real `git status` run another repository's fsmonitor; the audit moves
// that index aside, after which git status runs nothing.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/git_index.hpp"
#include "audit/report.hpp"
#include "audit/walk.hpp"
#include "catch.hpp"
#include "git_sh.hpp"
#include "temp_dir.hpp"

using namespace blaude;
using namespace blaude::audit;
using blaude::testing::TempDir;
using blaude::testing::sh;
using blaude::testing::slurp;
namespace fs = std::filesystem;

namespace {

// A repository at `dir` with one file, one gitlink (`sub`) and one entry that is intent-to-add
// (version 3's extended flags), made by the real git with `init_opts` and `cfg` commands.
std::string real_repo(const std::string& dir, const std::string& init_opts = "", const std::string& cfg = "") {
  const std::string q = sh_quote(dir);
  REQUIRE(sh("git init -q " + init_opts + " " + q + " && cd " + q + " && " + (cfg.empty() ? "true" : cfg) +
             " && echo a >a && git add a && git -c user.name=u -c user.email=u@h commit -q -m a"
             " && git init -q " + init_opts + " sub && git -C sub -c user.name=u -c user.email=u@h commit -q --allow-empty -m s"
             " && git -c advice.addEmbeddedRepo=false add sub && echo b >b && git add -N b && mkdir -p deep/er && echo c >deep/er/c && git add deep") == 0);
  return slurp(dir + "/.git/index");
}

void be32(std::string& s, uint32_t v) {
  for (int k = 3; k >= 0; --k) s += char((v >> (8 * k)) & 0xff);
}

// A version 2 index with the given (path, mode) entries, object names zero, checksum zero.
std::string index_v2(const std::vector<std::pair<std::string, uint32_t>>& entries) {
  std::string s = "DIRC";
  be32(s, 2);
  be32(s, uint32_t(entries.size()));
  for (const auto& [path, mode] : entries) {
    const size_t start = s.size();
    for (int k = 0; k < 6; ++k) be32(s, 0);
    be32(s, mode);
    for (int k = 0; k < 3; ++k) be32(s, 0);
    s.append(20, '\0');
    const size_t len = std::min<size_t>(path.size(), 0xfff);
    s += char(len >> 8);
    s += char(len & 0xff);
    s += path;
    do s += '\0'; while ((s.size() - start) % 8);
  }
  s.append(20, '\0');
  return s;
}

}  // namespace

TEST_CASE("git index: the gitlinks of every index the real git writes", "[audit][index]") {
  TempDir t{"blaude-git-index"};
  struct Case {
    const char* name;
    std::string init, cfg;
    size_t hash;
  };
  const Case cases[] = {
      {"v2/v3", "", "", 20},
      {"v4", "", "git config index.version 4", 20},
      {"many files (v4 and more)", "", "git config feature.manyFiles true", 20},
      {"sha256", "--object-format=sha256", "", 32},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const std::string dir = t.path + "/" + std::to_string(&c - cases);
    const std::string idx = real_repo(dir, c.init, c.cfg);
    auto g = index_gitlinks(idx, c.hash);
    CHECK(g.error == "");
    REQUIRE(g.paths.size() == 1);
    CHECK(g.paths[0] == "sub");
    CHECK(g.shared == "");
  }
  // Split index: the entries live in sharedindex.<hash>, which the index's link names.
  const std::string dir = t.path + "/split";
  real_repo(dir, "", "git config core.splitIndex true");
  REQUIRE(sh("cd " + sh_quote(dir) + " && git update-index --split-index && echo d >d && git add d") == 0);
  auto g = index_gitlinks(slurp(dir + "/.git/index"));
  CHECK(g.error == "");
  REQUIRE(g.shared.size() == 40);
  auto shared = index_gitlinks(slurp(dir + "/.git/sharedindex." + g.shared));
  CHECK(shared.error == "");
  CHECK((g.paths.size() + shared.paths.size()) >= 1);
}

TEST_CASE("git index: hostile bytes are errors, never a crash or a partial answer", "[audit][index]") {
  const std::string good = index_v2({{"a", 0100644}, {"sub", 0160000}});
  auto g = index_gitlinks(good);
  CHECK(g.error == "");
  REQUIRE(g.paths.size() == 1);
  CHECK(g.paths[0] == "sub");
  // Every truncation of it is an error.
  for (size_t n = 0; n < good.size(); ++n) {
    INFO(n);
    CHECK(index_gitlinks(good.substr(0, n)).error != "");
  }
  CHECK(index_gitlinks("DIRC\0\0\0\x05\0\0\0\0" + std::string(20, '\0')).error != "");  // version 5
  std::string many = good;
  many[11] = 3;  // three entries announced, two present
  CHECK(index_gitlinks(many).error != "");
  std::string ext = good.substr(0, good.size() - 20) + "EXTN";
  be32(ext, 0x7fffffff);  // an extension longer than the file
  CHECK(index_gitlinks(ext + std::string(20, '\0')).error != "");
  CHECK(index_gitlinks(index_v2({{"s", 0160000}, {"t", 0160000}}), 20, 1).error != "");  // past the cap
}

TEST_CASE("git index: gitlink paths that leave the work tree", "[audit][index]") {
  for (const char* ok : {"sub", "a/b/c", "x.git", ".gitx", "a/.github"}) CHECK(gitlink_path_ok(ok));
  for (const char* bad : {"", "/tmp/evil", "../evil", "./../evil", "a/../../evil", "a//b", "a/./b", "a/", ".git",
                          "a/.GIT/b", "a/..", "."})
    CHECK_FALSE(gitlink_path_ok(bad));
}

TEST_CASE("git index: a gitlink outside the work tree runs nothing after the audit", "[audit][index]") {
  TempDir t{"blaude-git-index-e2e"};
  const std::string ws = t.path + "/ws", evil = t.path + "/evil", mark = t.path + "/RAN";
  REQUIRE(sh("git init -q " + sh_quote(ws) + " && git -C " + sh_quote(ws) +
             " -c user.name=u -c user.email=u@h commit -q --allow-empty -m i && git init -q " + sh_quote(evil) +
             " && git -C " + sh_quote(evil) + " -c user.name=u -c user.email=u@h commit -q --allow-empty -m e") == 0);
  REQUIRE(sh("git -C " + sh_quote(evil) + " config core.fsmonitor " + sh_quote("touch " + mark + "; false")) == 0);
  WalkInput in{{ws}, "/nonexistent", 5.0, 256};
  in.read_indexes = true;
  Snapshot before = take_snapshot(in);
  CHECK(before.bad_indexes.empty());
  for (const std::string& path : {evil, std::string("../evil")}) {
    INFO(path);
    {
      std::ofstream(ws + "/.git/index", std::ios::binary) << index_v2({{path, 0160000}});
    }
    // Control: the real git status enters it and runs the other repository's fsmonitor.
    ::unlink(mark.c_str());
    sh("cd " + sh_quote(ws) + " && git status --porcelain >/dev/null 2>&1");
    REQUIRE(::access(mark.c_str(), F_OK) == 0);
    Snapshot after = take_snapshot(in);
    auto findings = compare(before, after, AuditContext{{ws}, "20250101T000000Z-" + std::to_string(path.size())});
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].path == ws + "/.git/index");
    auto applied = apply_findings(findings, {ws});
    CHECK(applied[0].error == "");
    ::unlink(mark.c_str());
    sh("cd " + sh_quote(ws) + " && git status --porcelain >/dev/null 2>&1");
    CHECK(::access(mark.c_str(), F_OK) != 0);
  }
}
