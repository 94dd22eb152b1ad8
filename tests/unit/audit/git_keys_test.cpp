// The audit's list of git keys that run commands, against git's own list of keys: every key
// the installed git documents (`git help --config`) is either judged dangerous by classify()
// or on the reviewed list in golden/git_config_safe_keys.txt. A newer git's new key fails
// this test until someone reads its documentation and puts it on one side.
#include <stdio.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "audit/git_keys.hpp"
#include "catch.hpp"

using namespace blaude;
using namespace blaude::audit;

namespace {

KeyRisk risk(const std::string& key, const char* value = "cmd") { return classify({key, std::string(value), 1}); }

// "filter.<driver>.clean" -> "filter.x.clean"; "alias.*" -> "alias.x".
std::string instantiate(const std::string& listed) {
  std::string out;
  for (size_t i = 0; i < listed.size(); ++i) {
    if (listed[i] == '<') {
      size_t j = listed.find('>', i);
      out += "x";
      i = j == std::string::npos ? listed.size() : j;
    } else if (listed[i] == '*') {
      out += "x";
    } else {
      out += char(listed[i] >= 'A' && listed[i] <= 'Z' ? listed[i] - 'A' + 'a' : listed[i]);
    }
  }
  return out;
}

std::set<std::string> reviewed_safe() {
  std::set<std::string> s;
  std::ifstream in((std::filesystem::path(__FILE__).parent_path() / "golden" / "git_config_safe_keys.txt").string());
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') s.insert(line);
  return s;
}

}  // namespace

TEST_CASE("audit: keys that run commands or redirect git", "[audit]") {
  for (const char* k : {"core.fsmonitor", "core.hookspath", "core.sshcommand", "core.pager", "core.editor",
                        "core.askpass", "core.gitproxy", "credential.helper", "credential.https://x.helper",
                        "filter.lfs.clean", "filter.lfs.smudge", "filter.lfs.process", "diff.x.textconv",
                        "diff.x.command", "diff.external", "merge.x.driver", "alias.st", "sequence.editor",
                        "pager.log", "gpg.program", "gpg.ssh.program", "gpg.ssh.defaultkeycommand",
                        "sendemail.work.tocmd", "remote.origin.uploadpack", "include.path",
                        "includeif.gitdir:/x/.path", "url.ext::sh.insteadof", "protocol.ext.allow",
                        "hook.linter.command", "core.worktree", "init.templatedir"})
    CHECK(risk(k).risk != Risk::None);
  for (const char* k : {"core.bare", "user.name", "remote.origin.fetch", "branch.main.remote", "core.filemode",
                        "filter.lfs.required", "diff.x.binary", "credential.username", "gpg.format"})
    CHECK(risk(k).risk == Risk::None);
}

TEST_CASE("audit: values that decide whether git runs anything", "[audit]") {
  CHECK(risk("core.fsmonitor", "false").risk == Risk::None);
  CHECK(risk("core.fsmonitor", "").risk == Risk::None);
  CHECK(risk("core.fsmonitor", "true").risk != Risk::None);  // the built-in daemon: still flagged
  CHECK(classify({"core.fsmonitor", std::nullopt, 1}).risk != Risk::None);
  CHECK(risk("pager.log", "false").risk == Risk::None);
  CHECK(risk("pager.log", "less -R").risk != Risk::None);
  CHECK(risk("submodule.s.update", "rebase").risk == Risk::None);
  CHECK(risk("submodule.s.update", "!sh evil").risk == Risk::RunsCommand);
  CHECK(risk("remote.o.url", "https://host/x").risk == Risk::None);
  CHECK(risk("remote.o.url", "ext::sh -c evil").risk == Risk::Redirects);
}

TEST_CASE("audit: every key the installed git documents has been reviewed", "[audit][git]") {
  FILE* p = popen("git help --config 2>/dev/null", "r");
  REQUIRE(p);
  std::string all;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) all.append(buf, n);
  pclose(p);
  const auto safe = reviewed_safe();
  REQUIRE(safe.size() > 100);
  size_t listed = 0, dangerous = 0;
  std::string unreviewed;
  size_t i = 0;
  while (i < all.size()) {
    size_t nl = all.find('\n', i);
    std::string line = all.substr(i, nl == std::string::npos ? std::string::npos : nl - i);
    i = nl == std::string::npos ? all.size() : nl + 1;
    if (line.empty() || line.find(' ') != std::string::npos) continue;  // the trailer line
    ++listed;
    if (risk(instantiate(line), "!ext::cmd").risk != Risk::None) {
      ++dangerous;
    } else if (!safe.count(line)) {
      unreviewed += line + "\n";
    }
  }
  INFO("keys neither classified in src/audit/git_keys.cpp nor listed as reviewed-safe:\n" << unreviewed);
  CHECK(unreviewed.empty());
  CHECK(listed > 500);
  CHECK(dangerous > 30);
}
