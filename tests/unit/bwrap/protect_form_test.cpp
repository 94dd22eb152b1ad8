// Every protected path is listed with the form it took (protect_form.hpp), as --dry-run prints
// it: one fake host per form, and the form read back from the plan the launcher gets.
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_host.hpp"
#include "bwrap/pending_host.hpp"
#include "sandbox/bwrap/plan/format.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/protect_form.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;

namespace {

HostFacts git_host() {
  auto f = typical_host();
  f.self_exe = "/home/u/.local/bin/blaude";  // an exec shim: by-path mounts are re-checked
  f.cwd_id = {1, 42, S_IFDIR};
  f.ws.git.protect.push_back({f.cwd + "/.git/config", Guard::ReadOnly, "config of .git"});
  f.ws.git.protect.push_back({f.cwd + "/.git/hooks", Guard::ReadOnly, "hooks of .git"});
  put(f, "/home/u/.config", Kind::Dir);
  put(f, "/home/u/.config/git", Kind::Dir);
  identify_all(f);
  return f;
}

const Protection* at(const std::vector<Protection>& list, const std::string& suffix) {
  for (const auto& p : list)
    if (p.path.size() >= suffix.size() && p.path.compare(p.path.size() - suffix.size(), suffix.size(), suffix) == 0)
      return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("protected paths: the helper's mounts and bwrap's overlay", "[sandbox][protect_form]") {
  auto f = git_host();
  f.inner_mounts = true;
  const auto p = plan(SandboxRequest{}, f);
  const auto list = protections_of(p);
  REQUIRE(at(list, "/.git/hooks"));
  CHECK(at(list, "/.git/hooks")->form == ProtectForm::Helper);
  CHECK(at(list, "/.git/hooks")->what == "read-only");
  CHECK(at(list, "/.git/hooks")->why == "hooks of .git");
  REQUIRE(at(list, "/home/u/.config"));
  CHECK(at(list, "/home/u/.config")->form == ProtectForm::Overlay);
  CHECK(at(list, "/home/u/.config")->what == "writes discarded");
  // ~/.config/git is a read-only bind of bwrap's under the overlay: kept by bwrap, re-checked.
  REQUIRE(at(list, "/home/u/.config/git"));
  CHECK(at(list, "/home/u/.config/git")->form == ProtectForm::ByPathChecked);
  // In path order.
  CHECK(std::is_sorted(list.begin(), list.end(), [](const Protection& a, const Protection& b) { return a.path < b.path; }));
}

TEST_CASE("protected paths: held descriptors where the helper cannot run", "[sandbox][protect_form]") {
  auto f = git_host();
  f.inner_mounts = false;
  const auto p = plan(SandboxRequest{}, f);
  const auto list = protections_of(p);
  REQUIRE(at(list, "/.git/hooks"));
  CHECK(at(list, "/.git/hooks")->form == ProtectForm::Held);
  CHECK(at(list, "/.git/config")->form == ProtectForm::Held);
  // Control: with the helper the same path is the helper's (the form follows the host).
  f.inner_mounts = true;
  CHECK(at(protections_of(plan(SandboxRequest{}, f)), "/.git/hooks")->form == ProtectForm::Helper);
}

TEST_CASE("protected paths: bwrap < 0.9 (blaude's overlay, or writable and said)", "[sandbox][protect_form]") {
  auto f = git_host();
  f.overlay = false;
  f.ipc.own_overlay = true;
  auto list = protections_of(plan(SandboxRequest{}, f));
  REQUIRE(at(list, "/home/u/.config"));
  CHECK(at(list, "/home/u/.config")->form == ProtectForm::OwnOverlay);
  f.ipc.own_overlay = false;
  const auto p = plan(SandboxRequest{}, f);
  list = protections_of(p);
  REQUIRE(at(list, "/home/u/.config"));
  CHECK(at(list, "/home/u/.config")->form == ProtectForm::HostWritable);
  CHECK(at(list, "/home/u/.config")->what == "writable");
  // The list's word agrees with the warning.
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& w) { return w.find("\n  /home/u/.config") != std::string::npos; }));
}

TEST_CASE("protected paths: a deferred layout, and none under --allow-protected-writes", "[sandbox][protect_form]") {
  auto f = git_host();
  SandboxRequest r;
  r.allow_protected_writes = true;
  const auto list = protections_of(plan(r, f));
  CHECK_FALSE(at(list, "/.git/hooks"));
  CHECK_FALSE(at(list, "/home/u/.config"));
  // The scan still running: the workspace's guards are one entry, laid out later by the helper.
  f.inner_mounts = true;
  const auto later = protections_of(plan(SandboxRequest{}, pending_host(f)));
  CHECK_FALSE(at(later, "/.git/hooks"));
  CHECK(std::any_of(later.begin(), later.end(), [&](const Protection& p) {
    return p.form == ProtectForm::HelperLater && p.path == f.cwd;  // the workspace at its host path
  }));
}

TEST_CASE("protected paths: --dry-run's block is comments, with names escaped", "[sandbox][protect_form]") {
  auto f = git_host();
  f.inner_mounts = true;
  // A repository below the workspace whose name carries a line break and a command.
  const std::string evil = f.cwd + "/x\ntouch /tmp/pwned #";
  f.ws.git.protect.push_back({evil + "/.git/hooks", Guard::ReadOnly, "hooks of x\n$(id)"});
  identify_all(f);
  const std::string block = format_protections(plan(SandboxRequest{}, f));
  REQUIRE_FALSE(block.empty());
  size_t lines = 0;
  for (size_t at = 0; at < block.size();) {
    const size_t nl = block.find('\n', at);
    REQUIRE(nl != std::string::npos);
    CHECK(block.compare(at, 1, "#") == 0);
    at = nl + 1;
    ++lines;
  }
  CHECK(lines > 3);
  CHECK(block.find("x\\ntouch /tmp/pwned #/.git/hooks") != std::string::npos);  // there, escaped
  CHECK(block.find("helper: blaude mounts it inside") != std::string::npos);     // the legend
  // The whole --dry-run text starts with it.
  CHECK(format_command(plan(SandboxRequest{}, f)).rfind(block, 0) == 0);
}
