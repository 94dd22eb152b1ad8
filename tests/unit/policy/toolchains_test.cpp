#include <string>

#include "catch.hpp"
#include "policy/test_context.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/policy/toolchains.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using blaude::sandbox::testing::test_context;

namespace {

std::string expand(std::string_view p) {
  return p.starts_with("~/") ? "/Users/alice" + std::string(p.substr(1)) : std::string(p);
}

}  // namespace

TEST_CASE("toolchains: the promised set exists", "[policy][toolchains]") {
  for (const char* n : {"node", "bun", "uv", "python", "rust", "go", "deno", "gh", "huggingface"}) {
    INFO(n);
    CHECK(find_toolchain(n) != nullptr);
  }
  CHECK(find_toolchain("nope") == nullptr);
}

TEST_CASE("toolchains: every path passes the same rules as a policy line",
          "[policy][toolchains]") {
  // A PATH with the usual per-user tool dirs on it: none of them may become writable.
  auto ctx = test_context();
  for (const char* d : {"/Users/alice/go/bin", "/Users/alice/.bun/bin", "/Users/alice/.deno/bin",
                        "/Users/alice/.nvm/versions/node/v20/bin", "/Users/alice/.pyenv/shims"})
    ctx.path_dirs.push_back(d);
  for (const auto& t : toolchains()) {
    INFO(t.name);
    CHECK(!t.summary.empty());
    CHECK(!(t.read.empty() && t.write.empty() && t.exec.empty()));
    for (auto p : t.read) CHECK(check_grant_path(Access::Read, expand(p), ctx) == "");
    for (auto p : t.write) CHECK(check_grant_path(Access::Write, expand(p), ctx) == "");
    for (auto p : t.exec) CHECK(check_grant_path(Access::Exec, expand(p), ctx) == "");
    for (auto p : {t.read, t.write, t.exec})
      for (auto q : p) CHECK((q.starts_with("~/") || q.starts_with("/")));
  }
}

TEST_CASE("toolchains: nothing is both writable and executable", "[policy][toolchains]") {
  // Otherwise a binary planted inside the sandbox runs unsandboxed the next time the user
  // uses the tool on the host (xclaude's rust/go/deno/pyenv toolchains, reference A.3).
  for (const auto& t : toolchains())
    for (const auto& u : toolchains())
      for (auto w : t.write)
        for (auto x : u.exec) {
          INFO(t.name << " writes " << w << ", " << u.name << " executes " << x);
          CHECK_FALSE(path_within(expand(w), expand(x)));
          CHECK_FALSE(path_within(expand(x), expand(w)));
        }
}

TEST_CASE("toolchains: `tool NAME` yields exactly the table's grants", "[policy][toolchains]") {
  for (const auto& t : toolchains()) {
    INFO(t.name);
    auto r = parse_policy("tool " + std::string(t.name) + "\n", "/p/.blaude", test_context());
    REQUIRE(r.ok());
    size_t expected = t.read.size() + t.write.size() + t.exec.size() + t.run.size();
    REQUIRE(r.policy.grants.size() == expected);
    size_t i = 0;
    for (auto p : t.read) CHECK((r.policy.grants[i].access == Access::Read && r.policy.grants[i++].path == expand(p)));
    for (auto p : t.write) CHECK((r.policy.grants[i].access == Access::Write && r.policy.grants[i++].path == expand(p)));
    for (auto p : t.exec) CHECK((r.policy.grants[i].access == Access::Exec && r.policy.grants[i++].path == expand(p)));
    for (auto p : t.run) CHECK((r.policy.grants[i].access == Access::Exec && r.policy.grants[i++].path == expand(p)));
  }
}

TEST_CASE("toolchains: the run exception is only a dir inside the same toolchain's writable cache", "[policy][toolchains]") {
  // npx/pnpm dlx/uvx run what they download from there; anything else executable and writable
  // would break the invariant above. Control: xclaude's writable ~/.cargo/bin would not pass.
  auto inside_own_write = [](const Toolchain& t, std::string_view r) {
    for (auto w : t.write)
      if (path_within(expand(r), expand(w)) && expand(r) != expand(w)) return true;
    return false;
  };
  size_t runs = 0;
  for (const auto& t : toolchains())
    for (auto r : t.run) {
      INFO(t.name << " runs from " << r);
      CHECK(inside_own_write(t, r));
      ++runs;
    }
  CHECK(runs > 0);
  Toolchain xclaude_rust{"rust", "", {}, {"~/.cargo"}, {}, {"~/.cargo/bin"}};
  CHECK(inside_own_write(xclaude_rust, "~/.cargo/bin"));  // the check can say yes
  Toolchain bad{"x", "", {}, {"~/.cache/x"}, {}, {"~/.local/bin"}};
  CHECK_FALSE(inside_own_write(bad, "~/.local/bin"));
}
