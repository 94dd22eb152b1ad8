// The sandbox environment, one golden test per rule of the seed's policy, plus the attacks:
// host secrets outside the allowlist, and forced/unset names trying to return via CLAUDE_*.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"
#include "app/launch.hpp"
#include "cli/parse.hpp"
#include "sandbox/env_policy.hpp"

using namespace blaude;
using sandbox::EnvList;
using Env = std::map<std::string, std::string>;

namespace {

sandbox::EnvContext ctx() {
  sandbox::EnvContext c;
  c.home = "/home/u";
  c.user = "u";
  c.path = "/home/u/.local/bin:/usr/bin:/bin";
  c.uid = 1000;
  return c;
}

// The rules as the app layer derives them from a command line.
sandbox::EnvRules opts(const std::vector<std::string>& args) {
  auto r = cli::parse(args);
  REQUIRE(std::holds_alternative<cli::Options>(r));
  return app::env_rules(std::get<cli::Options>(r));
}

Env run(const std::vector<std::string>& host, const std::vector<std::string>& args = {},
        const sandbox::EnvContext& c = ctx()) {
  auto list = sandbox::filter_env(host, opts(args), c);
  Env m;
  for (const auto& [k, v] : list) {
    INFO("duplicate name " << k);
    CHECK(m.count(k) == 0);
    m[k] = v;
  }
  return m;
}

bool has(const Env& e, const std::string& k) { return e.count(k) != 0; }

// A host environment full of things that must not leak.
const std::vector<std::string> kHostSecrets = {
    "GH_TOKEN=ghp_secret", "GITHUB_TOKEN=ghs_secret", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1",
    "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0", "XAUTHORITY=/home/u/.Xauthority",
    "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "AWS_CONFIG_FILE=/home/u/.aws/cfg",
    "AWS_SHARED_CREDENTIALS_FILE=/x", "ALL_PROXY=socks://x", "SHELL=/bin/bash", "EDITOR=vim",
    "PATH=/evil/bin:/usr/bin", "OLDPWD=/secret", "GPG_AGENT_INFO=/x", "KUBECONFIG=/k",
    "VAULT_TOKEN=s.xyz", "NPM_TOKEN=npm_x", "OTEL_SECRET_THING=1", "MCP_SOMETHING_ELSE=1",
    "LD_PRELOAD=/evil.so", "BASH_ENV=/evil.sh", "GOPATH=/host/go", "XDG_RUNTIME_DIR=/run/user/0",
};

}  // namespace

TEST_CASE("env rule 1: basics after clearing") {
  auto e = run({"HOME=/root", "USER=alice", "TERM=screen", "COLORTERM=truecolor"});
  CHECK(e["HOME"] == "/home/u");
  CHECK(e["USER"] == "u");  // the context decides (root is mapped to another uid)
  CHECK(e["TERM"] == "screen");
  CHECK(e["COLORTERM"] == "truecolor");
  auto d = run({"USER=alice"}, {}, [] { auto c = ctx(); c.user = ""; return c; }());
  CHECK(d["USER"] == "alice");
  CHECK(d["TERM"] == "xterm-256color");
  CHECK_FALSE(has(d, "COLORTERM"));
  auto l = run({"LOGNAME=bob"}, {}, [] { auto c = ctx(); c.user = ""; return c; }());
  CHECK(l["USER"] == "bob");
  CHECK_FALSE(has(run({"COLORTERM="}), "COLORTERM"));
}

TEST_CASE("env rule 2: sandbox PATH and locations, never the host's") {
  auto c = ctx();
  c.tool_env = {{"NVM_DIR", "/home/u/.nvm"}, {"PNPM_HOME", "/home/u/.local/share/pnpm"}};
  auto e = run({"PATH=/evil/bin", "GOPATH=/host/go", "XDG_RUNTIME_DIR=/run/user/0"}, {}, c);
  CHECK(e["PATH"] == "/home/u/.local/bin:/usr/bin:/bin");
  CHECK(e["XDG_RUNTIME_DIR"] == "/run/user/1000");
  CHECK(e["GOPATH"] == "/home/u/go");
  CHECK(e["CARGO_HOME"] == "/home/u/.cargo");
  CHECK(e["NVM_DIR"] == "/home/u/.nvm");
  CHECK(e["PNPM_HOME"] == "/home/u/.local/share/pnpm");
  // ... also under --keep-env, where everything else is inherited.
  auto k = run({"PATH=/evil/bin", "GOPATH=/host/go", "HOME=/root"}, {"--keep-env"}, c);
  CHECK(k["PATH"] == "/home/u/.local/bin:/usr/bin:/bin");
  CHECK(k["GOPATH"] == "/home/u/go");
  CHECK(k["HOME"] == "/home/u");
}

TEST_CASE("env rule 3: locale") {
  auto e = run({"LANG=de_DE.UTF-8", "LC_ALL=C", "LC_CTYPE=en_US.UTF-8", "LC_TIME=x"});
  CHECK(e["LANG"] == "de_DE.UTF-8");
  CHECK(e["LC_ALL"] == "C");
  CHECK(e["LC_CTYPE"] == "en_US.UTF-8");
  CHECK_FALSE(has(e, "LC_TIME"));
  CHECK(run({})["LANG"] == "C.UTF-8");
  CHECK_FALSE(has(run({"LC_ALL="}), "LC_ALL"));
}

TEST_CASE("env rule 4: forced values override the host, also under --keep-env") {
  std::vector<std::string> host;
  for (auto k : sandbox::forced_names(false)) host.push_back(std::string(k) + "=0");
  for (const auto& args : {std::vector<std::string>{}, std::vector<std::string>{"--keep-env"}}) {
    auto e = run(host, args);
    for (auto k : {"DO_NOT_TRACK", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER",
                   "DISABLE_ERROR_REPORTING", "DISABLE_BUG_COMMAND",
                   "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "DISABLE_INSTALL_GITHUB_APP_COMMAND",
                   "CLAUDE_DISABLE_CONFIG_WATCH", "DISABLE_GROWTHBOOK"}) {
      INFO(k);
      CHECK(e[k] == "1");
    }
  }
  CHECK(sandbox::forced_names(false).size() == 9);
}

TEST_CASE("env rule 5: outer-session markers are unset, also under --keep-env") {
  const std::vector<std::string> names = {
      "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_EXECPATH",
      "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_BRIDGE_SESSION_ID", "CLAUDE_CODE_CHILD_SESSION",
      "CLAUDE_CODE_TEAM_NAME", "CLAUDE_CODE_REMOTE", "CLAUDE_CODE_REMOTE_SESSION_ID",
      "CLAUDE_EFFORT", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_MESSAGING_SOCKET",
      "CLAUDE_CODE_MESSAGING_TOKEN", "CLAUDE_PID"};
  CHECK(sandbox::unset_names(false).size() == names.size());
  std::vector<std::string> host = {"CLAUDE_CODE_MESSAGING_FUTURE=x", "CLAUDE_CODE_OK=1"};
  for (const auto& n : names) host.push_back(n + "=0");
  for (const auto& args : {std::vector<std::string>{}, std::vector<std::string>{"--keep-env"}}) {
    auto e = run(host, args);
    for (const auto& n : names) {
      INFO(n);
      CHECK_FALSE(has(e, n));
    }
    CHECK_FALSE(has(e, "CLAUDE_CODE_MESSAGING_FUTURE"));
    CHECK(e["CLAUDE_CODE_OK"] == "1");  // control: the prefix still passes other names
  }
}

TEST_CASE("env rule 6: prefix passthrough") {
  auto e = run({"ANTHROPIC_API_KEY=sk", "ANTHROPIC_NEW_THING=1", "CLAUDE_CONFIG_DIR=/c",
                "CLAUDE_MEM_DATA_DIR=/m", "VERTEX_REGION_CLAUDE_X=eu", "DISABLE_PROMPT_CACHING_HAIKU=1",
                "MCP_SERVER_FOO=cfg", "SLACK_WEBHOOK=http://h", "WEBSHARE_API_KEY=w", "ANTHROPIC_EMPTY="});
  for (auto k : {"ANTHROPIC_API_KEY", "ANTHROPIC_NEW_THING", "CLAUDE_CONFIG_DIR", "CLAUDE_MEM_DATA_DIR",
                 "VERTEX_REGION_CLAUDE_X", "DISABLE_PROMPT_CACHING_HAIKU", "MCP_SERVER_FOO",
                 "SLACK_WEBHOOK", "WEBSHARE_API_KEY"}) {
    INFO(k);
    CHECK(has(e, k));
  }
  CHECK_FALSE(has(e, "ANTHROPIC_EMPTY"));  // empty values are not passed
  CHECK(e["ANTHROPIC_API_KEY"] == "sk");
}

TEST_CASE("env rule 6: enumerated allowlist, not prefixes") {
  auto e = run({"AWS_REGION=eu", "AWS_ACCESS_KEY_ID=a", "OTEL_EXPORTER_OTLP_ENDPOINT=h",
                "HTTPS_PROXY=p", "NO_COLOR=1", "HF_TOKEN=h", "GNUPGHOME=/g", "CLAUDECODE=1",
                "NOTEBOOKLM_MCP_HOST=h", "MCP_DISCOVERY_CACHE=1",
                "AWS_CONFIG_FILE=/x", "OTEL_SECRET_THING=1", "ALL_PROXY=x", "AZURE_OPENAI_OTHER=1"});
  for (auto k : {"AWS_REGION", "AWS_ACCESS_KEY_ID", "OTEL_EXPORTER_OTLP_ENDPOINT", "HTTPS_PROXY",
                 "NO_COLOR", "HF_TOKEN", "GNUPGHOME", "CLAUDECODE", "NOTEBOOKLM_MCP_HOST",
                 "MCP_DISCOVERY_CACHE"}) {
    INFO(k);
    CHECK(has(e, k));
  }
  for (auto k : {"AWS_CONFIG_FILE", "OTEL_SECRET_THING", "ALL_PROXY", "AZURE_OPENAI_OTHER"}) {
    INFO(k);
    CHECK_FALSE(has(e, k));
  }
}

// Exactly the seed's list. These the bash blaude passed, the seed does not name.
TEST_CASE("env rule 6: only the seed's names (not the bash script's extras)") {
  const std::vector<std::string> extras = {
      "WARP_API_KEY=w", "WARP_X=1", "MCP_DISCOVERY_CACHE_TTL=1", "MCP_PROTOCOL_NEGOTIATION=1",
      "MCP_SDK_GENERATION=1", "BETA_TRACING_ENDPOINT=h", "ENABLE_BETA_TRACING_DETAILED=1",
      "http_proxy=p", "https_proxy=p", "socks_proxy=p", "no_proxy=p", "TERM_PROGRAM=tmux",
      "TERM_PROGRAM_VERSION=3", "NOTEBOOKLM_QUERY_TIMEOUT=1", "NOTEBOOKLM_BL=1"};
  auto e = run(extras);
  for (const auto& kv : extras) {
    std::string k = kv.substr(0, kv.find('='));
    INFO(k);
    CHECK_FALSE(has(e, k));
    CHECK_FALSE(blaude::sandbox::passthrough_allowed(k));
  }
  // Control: --env still passes one, and the seed's own spellings pass.
  CHECK(run({"WARP_API_KEY=w"}, {"--env", "WARP_API_KEY=mine"})["WARP_API_KEY"] == "mine");
  CHECK(has(run({"HTTP_PROXY=p", "MCP_DISCOVERY_CACHE=1"}), "HTTP_PROXY"));
}

TEST_CASE("attack: no host secret outside the allowlist reaches the sandbox") {
  auto e = run(kHostSecrets);
  for (const auto& kv : kHostSecrets) {
    std::string k = kv.substr(0, kv.find('='));
    std::string v = kv.substr(kv.find('=') + 1);
    INFO(k);
    // Either absent, or replaced by the sandbox's own value (PATH, GOPATH, XDG_RUNTIME_DIR).
    CHECK((!has(e, k) || e[k] != v));
  }
  // Control: the same variables do reach a --keep-env sandbox, so the test sees a leak.
  auto k = run(kHostSecrets, {"--keep-env"});
  CHECK(k["GH_TOKEN"] == "ghp_secret");
  CHECK(k["SSH_AUTH_SOCK"] == "/tmp/ssh-x/agent.1");
  CHECK(k["DISPLAY"] == ":0");
}

TEST_CASE("attack: forced and unset names cannot come back through the CLAUDE_* prefix") {
  // Every denied name is itself CLAUDE_* or would match a passthrough rule; none may survive.
  for (bool rc : {false, true}) {
    std::vector<std::string> host;
    for (auto k : sandbox::unset_names(rc)) host.push_back(std::string(k) + "=host");
    for (auto k : sandbox::forced_names(false)) host.push_back(std::string(k) + "=host");
    auto e = run(host, rc ? std::vector<std::string>{"--remote-control"} : std::vector<std::string>{});
    for (const auto& [k, v] : e) {
      INFO(k << "=" << v);
      CHECK(v != "host");
    }
  }
  // Control: a CLAUDE_ name outside the deny-set does pass with its host value.
  CHECK(run({"CLAUDE_CODE_USE_BEDROCK=host"})["CLAUDE_CODE_USE_BEDROCK"] == "host");
  CHECK(sandbox::denied("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB", false));
  CHECK(sandbox::passthrough_allowed("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"));
}

TEST_CASE("env: --git passes GitHub tokens (after the clear, unlike the bash blaude)") {
  auto e = run({"GH_TOKEN=g", "GITHUB_TOKEN=h"}, {"--git"});
  CHECK(e["GH_TOKEN"] == "g");
  CHECK(e["GITHUB_TOKEN"] == "h");
  CHECK_FALSE(has(run({"GH_TOKEN=g"}), "GH_TOKEN"));
}

TEST_CASE("env: --ssh passes the validated agent socket, never the host value") {
  auto c = ctx();
  c.ssh_auth_sock = "/run/user/1000/ssh-agent.sock";
  auto e = run({"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1"}, {"--ssh"}, c);
  CHECK(e["SSH_AUTH_SOCK"] == "/run/user/1000/ssh-agent.sock");
  CHECK_FALSE(has(run({"SSH_AUTH_SOCK=/tmp/a"}, {"--ssh"}), "SSH_AUTH_SOCK"));  // none found
  CHECK_FALSE(has(run({"SSH_AUTH_SOCK=/tmp/a"}, {}, c), "SSH_AUTH_SOCK"));      // no --ssh
}

TEST_CASE("env: --keyring passes the D-Bus address") {
  CHECK(run({"DBUS_SESSION_BUS_ADDRESS=unix:x"}, {"--keyring"})["DBUS_SESSION_BUS_ADDRESS"] == "unix:x");
  CHECK_FALSE(has(run({"DBUS_SESSION_BUS_ADDRESS=unix:x"}), "DBUS_SESSION_BUS_ADDRESS"));
}

TEST_CASE("env: Remote Control turns the privacy opt-outs off and drops narrow credentials") {
  const std::vector<std::string> host = {"ANTHROPIC_API_KEY=sk", "CLAUDE_CODE_OAUTH_TOKEN=t",
                                         "DO_NOT_TRACK=1", "ANTHROPIC_MODEL=m"};
  for (const auto& args : {std::vector<std::string>{"--remote-control"},
                           std::vector<std::string>{"remote-control"},
                           std::vector<std::string>{"--remote-control", "--keep-env"}}) {
    auto e = run(host, args);
    for (auto k : {"DO_NOT_TRACK", "DISABLE_TELEMETRY", "DISABLE_GROWTHBOOK", "ANTHROPIC_API_KEY",
                   "CLAUDE_CODE_OAUTH_TOKEN"}) {
      INFO(k);
      CHECK_FALSE(has(e, k));
    }
    CHECK(e["DISABLE_AUTOUPDATER"] == "1");
    CHECK(e["ANTHROPIC_MODEL"] == "m");
  }
  auto normal = run(host);
  CHECK(normal["ANTHROPIC_API_KEY"] == "sk");
  CHECK(normal["DO_NOT_TRACK"] == "1");
}

TEST_CASE("env rule 7: --env comes last and may override anything") {
  auto e = run({"FOO=host"}, {"--env", "FOO=mine", "--env", "DO_NOT_TRACK=0", "--env",
                              "PATH=/p", "--env", "CLAUDE_PID=7", "--env", "X=a=b"});
  CHECK(e["FOO"] == "mine");
  CHECK(e["DO_NOT_TRACK"] == "0");
  CHECK(e["PATH"] == "/p");
  CHECK(e["CLAUDE_PID"] == "7");
  CHECK(e["X"] == "a=b");
  auto twice = run({}, {"--env", "A=1", "--env", "A=2"});
  CHECK(twice["A"] == "2");
}

TEST_CASE("env: --no-sandbox keeps the host's own paths, applies forced values and unsets") {
  auto c = ctx();
  c.sandboxed = false;
  auto e = run({"PATH=/usr/bin", "HOME=/root", "GH_TOKEN=g", "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=0"},
               {}, c);
  CHECK(e["PATH"] == "/usr/bin");
  CHECK(e["HOME"] == "/root");
  CHECK(e["GH_TOKEN"] == "g");
  CHECK_FALSE(has(e, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"));
  CHECK_FALSE(has(e, "XDG_RUNTIME_DIR"));
  CHECK(e["DISABLE_AUTOUPDATER"] == "1");
}

TEST_CASE("env: the output is deterministic and values are kept byte for byte") {
  const std::string tricky = "x y;$(rm -rf /)\n\"'";
  std::vector<std::string> host = {"ANTHROPIC_B=2", "ANTHROPIC_A=" + tricky, "NOEQUALS", "=novalue",
                                   "LANG=C"};
  auto a = sandbox::filter_env(host, opts({}), ctx());
  std::reverse(host.begin(), host.end());
  CHECK(a == sandbox::filter_env(host, opts({}), ctx()));  // host order does not matter
  auto e = run(host);
  CHECK(e["ANTHROPIC_A"] == tricky);
  CHECK_FALSE(has(e, "NOEQUALS"));
  CHECK_FALSE(has(e, ""));
  CHECK(run({"ANTHROPIC_B=first", "ANTHROPIC_B=second"})["ANTHROPIC_B"] == "first");
  auto env = sandbox::to_environ(a);
  CHECK(std::find(env.begin(), env.end(), "ANTHROPIC_B=2") != env.end());
}

TEST_CASE("env notices: CLAUDE_CODE_RESTRICTED and Remote Control") {
  auto n = sandbox::env_notices({"CLAUDE_CODE_RESTRICTED=1"}, opts({}));
  REQUIRE(n.size() == 3);
  CHECK(n[0].find("CLAUDE_CODE_RESTRICTED=1") != std::string::npos);
  CHECK(sandbox::env_notices({"CLAUDE_CODE_RESTRICTED=0"}, opts({})).empty());
  auto rc = sandbox::env_notices({"ANTHROPIC_API_KEY=sk"}, opts({"--remote-control", "--no-network"}));
  auto joined = [&] { std::string s; for (auto& l : rc) s += l + "\n"; return s; }();
  CHECK(joined.find("ANTHROPIC_API_KEY") != std::string::npos);
  CHECK(joined.find("--no-network") != std::string::npos);
  auto quiet = sandbox::env_notices({}, opts({"remote-control"}));
  auto q = [&] { std::string s; for (auto& l : quiet) s += l + "\n"; return s; }();
  CHECK(q.find("ANTHROPIC_API_KEY") == std::string::npos);
  CHECK(q.find("telemetry") != std::string::npos);
}
