// The seed's behaviours of the plan: the dirs it creates, the WSL warning, the exec
// shim, the ssh-agent dir; and the probes behind them, over real temp dirs.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "temp_dir.hpp"
#include "fake_host.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;

namespace {

bool has_prep(const LaunchPlan& p, const std::string& path) {
  for (const auto& h : p.preparations)
    if (h.path == path && h.kind == HostPrep::Kind::MakeDir && h.mode == 0700) return true;
  return false;
}

void make_socket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  path.copy(a.sun_path, sizeof a.sun_path - 1);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  ::close(fd);
}

}  // namespace

TEST_CASE("notebooklm dirs: created 0700 when missing, bound; never over a link", "[sandbox]") {
  auto f = typical_host();
  auto p = plan(SandboxRequest{}, f);
  for (const char* d : {"/home/u/.notebooklm-mcp", "/home/u/.notebooklm-mcp-cli"}) {
    INFO(d);
    CHECK(has_prep(p, d));
    CHECK(has(p.argv, {"--bind-try", d, d}));
  }
  put(f, "/home/u/.notebooklm-mcp", Kind::Dir);
  put_link(f, "/home/u/.notebooklm-mcp-cli", "/elsewhere", "", Kind::Missing);  // dangling link
  p = plan(SandboxRequest{}, f);
  CHECK_FALSE(has_prep(p, "/home/u/.notebooklm-mcp"));
  CHECK(has(p.argv, {"--bind", "/home/u/.notebooklm-mcp", "/home/u/.notebooklm-mcp"}));
  CHECK_FALSE(has_prep(p, "/home/u/.notebooklm-mcp-cli"));
  CHECK_FALSE(has(p.argv, {"--bind-try", "/home/u/.notebooklm-mcp-cli", "/home/u/.notebooklm-mcp-cli"}));
}

TEST_CASE("~/.claude-mem: created only when the claude-mem plugin is installed", "[sandbox]") {
  auto f = typical_host();
  auto p = plan(SandboxRequest{}, f);
  CHECK_FALSE(has_prep(p, "/home/u/.claude-mem"));
  CHECK_FALSE(has(p.argv, {"--bind-try", "/home/u/.claude-mem", "/home/u/.claude-mem"}));
  f.claude_mem_plugin = true;
  p = plan(SandboxRequest{}, f);
  CHECK(has_prep(p, "/home/u/.claude-mem"));
  CHECK(has(p.argv, {"--bind-try", "/home/u/.claude-mem", "/home/u/.claude-mem"}));
}

TEST_CASE("probe_claude_mem: the seed's three checks and the newer cache layout") {
  TempDir t{"blaude-seed-test"};
  const std::string c = t.path + "/claude";
  CHECK_FALSE(probe_claude_mem(c));
  ::mkdir(c.c_str(), 0700);
  ::mkdir((c + "/plugins").c_str(), 0700);
  std::ofstream(c + "/plugins/installed_plugins.json") << R"({"version":2,"plugins":{"other@x":[]}})";
  CHECK_FALSE(probe_claude_mem(c));
  std::ofstream(c + "/plugins/installed_plugins.json") << R"({"version":2,"plugins":{"claude-mem@thedotmack":[]}})";
  CHECK(probe_claude_mem(c));
  std::ofstream(c + "/plugins/installed_plugins.json") << R"({"claude-mem": {}})";
  CHECK(probe_claude_mem(c));
  std::ofstream(c + "/plugins/installed_plugins.json") << "{}";
  ::mkdir((c + "/plugins/marketplaces").c_str(), 0700);
  ::mkdir((c + "/plugins/marketplaces/thedotmack").c_str(), 0700);
  CHECK(probe_claude_mem(c));
}

TEST_CASE("WSL: the seed's warning for a /mnt workspace, once", "[sandbox]") {
  const std::string wsl = "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@x) (gcc ...) #1 SMP";
  CHECK(wsl_warning("5.15.167.4-microsoft-standard-WSL2", wsl, "/mnt/c/proj").size() == 1);
  CHECK(wsl_warning("", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)", "/mnt/d/x").size() == 1);
  CHECK(wsl_warning("6.1.0-18-amd64", "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)", "/mnt/c/proj").empty());
  CHECK(wsl_warning("5.15.167.4-microsoft-standard-WSL2", wsl, "/home/u/proj").empty());
  CHECK(wsl_warning("5.15.167.4-microsoft-standard-WSL2", wsl, "/mnt").empty());
  CHECK(wsl_warning("x", wsl, "/mnt/c/proj")[0].find("Windows filesystem (/mnt/*)") != std::string::npos);

  auto f = typical_host();
  f.kernel_osrelease = "5.15.167.4-microsoft-standard-WSL2";
  f.proc_version = wsl;
  f.cwd = "/mnt/c/proj";
  auto p = plan(SandboxRequest{}, f);
  REQUIRE(!p.warnings.empty());
  CHECK(p.warnings.back().find("9P protocol") != std::string::npos);
  bool marker = false;
  for (const auto& h : p.preparations) marker = marker || h.path == "/home/u/.cache/blaude/wsl-mnt-warned";
  CHECK(marker);
  put(f, "/home/u/.cache/blaude/wsl-mnt-warned", Kind::File);  // shown before
  for (const auto& w : plan(SandboxRequest{}, f).warnings) CHECK(w.find("9P") == std::string::npos);
}

TEST_CASE("the command starts through the exec shim when blaude's binary is known", "[sandbox]") {
  auto f = typical_host();
  auto a = plan(SandboxRequest{}, f).argv;
  CHECK(find(a, {"--", "claude", "--dangerously-skip-permissions"}) == long(a.size()) - 3);
  f.self_exe = "/home/u/.local/bin/blaude";
  a = plan(SandboxRequest{}, f).argv;
  CHECK(has(a, {"--ro-bind", "/home/u/.local/bin/blaude", kSandboxSelf}));
  CHECK(find(a, {"--", kSandboxSelf, kExecShim, "claude", "--dangerously-skip-permissions"}) == long(a.size()) - 5);
}

TEST_CASE("the static exec shim, where it is installed, starts the command instead of blaude", "[sandbox]") {
  auto f = typical_host();
  f.self_exe = "/home/u/.local/bin/blaude";
  f.shim_exe = "/home/u/.local/libexec/blaude/blaude-exec";
  auto a = plan(SandboxRequest{}, f).argv;
  CHECK(has(a, {"--ro-bind", f.shim_exe, kSandboxShim}));
  CHECK(find(a, {"--", kSandboxShim, kShimVerb, "claude", "--dangerously-skip-permissions"}) == long(a.size()) - 5);
  CHECK(find(a, {kSandboxSelf}) < 0);  // blaude's own binary is not bound then
  // The checks file comes with it: the shim verifies bwrap's by-path mounts as blaude's does.
  CHECK(!plan(SandboxRequest{}, f).checks.empty());
  // Proxy mode: the relay (blaude's binary, bound by the proxy's arguments) runs the shim in its
  // own process, with blaude's verb, and no blaude-exec is bound.
  SandboxRequest px;
  px.proxy = NetworkProxy{{"--unshare-net", "--dir", "/run/blaude", "--ro-bind", f.self_exe, kSandboxSelf},
                          {kSandboxSelf, "__net-relay", "--"}};
  a = plan(px, f).argv;
  CHECK(find(a, {"--", kSandboxSelf, kExecShim, "claude"}) >= 0);
  CHECK(find(a, {kSandboxShim}) < 0);
}

TEST_CASE("a probe that could not find blaude's binary refuses: the command never runs unshimmed", "[sandbox]") {
  auto f = typical_host();
  f.self_exe_problem = "blaude cannot find its own binary";
  try {
    (void)plan(SandboxRequest{}, f);
    FAIL("planned a launch with no exec shim");
  } catch (const PlanError& e) {
    CHECK(std::string(e.what()).find("cannot find its own binary") != std::string::npos);
  }
  f.self_exe = "/home/u/.local/bin/blaude";  // control: found, the same facts plan
  auto a = plan(SandboxRequest{}, f).argv;
  CHECK(find(a, {"--", kSandboxSelf, kExecShim, "claude", "--dangerously-skip-permissions"}) == long(a.size()) - 5);
}

TEST_CASE("--ssh: a dedicated agent dir is bound, a shared one never", "[sandbox]") {
  TempDir t{"blaude-seed-test"};
  const uid_t me = ::getuid();
  const std::string agent = t.path + "/ssh-XXXX";
  ::mkdir(agent.c_str(), 0700);
  make_socket(agent + "/agent.1");
  CHECK(probe_ssh_agent_dir(agent + "/agent.1", me, {}) == agent);
  CHECK(probe_ssh_agent_dir(agent + "/agent.1", me, {agent}).empty());  // listed as shared
  CHECK(probe_ssh_agent_dir(agent + "/agent.1", me + 1, {}).empty());   // someone else's
  ::chmod(agent.c_str(), 0750);
  CHECK(probe_ssh_agent_dir(agent + "/agent.1", me, {}).empty());  // others may enter
  ::chmod(agent.c_str(), 0700);
  std::ofstream(agent + "/bus") << "x";                            // not the agent's alone
  CHECK(probe_ssh_agent_dir(agent + "/agent.1", me, {}).empty());
  ::unlink((agent + "/bus").c_str());
  CHECK(probe_ssh_agent_dir(agent + "/agent.1", me, {}) == agent);  // control
  ::symlink(agent.c_str(), (t.path + "/link").c_str());
  CHECK(probe_ssh_agent_dir(t.path + "/link/agent.1", me, {}).empty());  // dir reached by a link
  CHECK(probe_ssh_agent_dir(agent + "/missing", me, {}).empty());

  auto f = typical_host();
  f.env["SSH_AUTH_SOCK"] = "/tmp/ssh-abc/agent.9";
  put(f, "/tmp/ssh-abc/agent.9", Kind::Socket);
  put(f, "/tmp/ssh-abc", Kind::Dir);
  f.tmp_socket_dirs = {"/tmp/ssh-abc", "/tmp/ssh-other"};
  SandboxRequest r;
  r.ssh = true;
  CHECK(has(plan(r, f).argv, {"--bind", "/tmp/ssh-abc/agent.9", "/tmp/ssh-abc/agent.9"}));
  f.ssh_agent_dir = "/tmp/ssh-abc";
  auto a = plan(r, f).argv;
  CHECK(has(a, {"--bind", "/tmp/ssh-abc", "/tmp/ssh-abc"}));
  CHECK_FALSE(has(a, {"--bind", "/tmp/ssh-abc/agent.9", "/tmp/ssh-abc/agent.9"}));
  CHECK_FALSE(has(a, {"--tmpfs", "/tmp/ssh-abc"}));  // bound instead of shadowed
  CHECK(has(a, {"--tmpfs", "/tmp/ssh-other"}));      // another agent's dir stays shadowed
  r.ssh = false;
  CHECK(has(plan(r, f).argv, {"--tmpfs", "/tmp/ssh-abc"}));  // without --ssh: shadowed
}
