#include "app/audit.hpp"

#include <limits.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ctime>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/report.hpp"
#include "common/claude_keys.hpp"
#include "common/file_io.hpp"
#include "common/paths.hpp"

namespace blaude::app {

namespace {

// The walk before the session holds up the child's start; the one after only blaude's exit.
constexpr double kBeforeSeconds = 3.0;
constexpr double kAfterSeconds = 10.0;

std::string utc_stamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

void log_text(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    spdlog::warn("audit: {}", text.substr(i, nl == std::string::npos ? std::string::npos : nl - i));
    i = nl == std::string::npos ? text.size() : nl + 1;
  }
}

// claude's files can be megabytes (~/.claude.json keeps every project's history): generous, bounded.
std::optional<std::string> read_claude(const std::string& path) { return read_small_file(path, 64u << 20); }

// Claude's files that changed what claude runs: one finding each, to rewrite (claude_files.hpp).
std::vector<audit::Finding> claude_findings(const std::vector<WatchedClaude>& watched, const std::string& stamp) {
  std::vector<audit::Finding> out;
  for (const auto& w : watched) {
    const auto text = read_claude(w.path);
    if (text == w.text) continue;  // the usual case for settings: nothing to parse
    const auto after = audit::project_claude(w.kind, text);
    auto changes = audit::claude_changes(audit::project_claude(w.kind, w.text), after);
    if (changes.empty()) continue;
    audit::Finding f;
    f.path = w.path;
    if (w.kind == audit::ClaudeFile::Script)
      changes = {w.text ? "a program claude's settings name, rewritten" : "a program claude's settings name, created"};
    f.details = std::move(changes);
    f.act = audit::Act::Rewrite;
    f.aside = w.path + ".blaude-audit-" + stamp;
    f.claude = w.kind;
    f.claude_before = w.text;
    out.push_back(std::move(f));
  }
  return out;
}

// The snapshot before the session; only with it does the session's end compare repositories.
void take_before(AuditSession& s, const std::vector<audit::PriorWalk>& prior) {
  if (s.test_delay_ms > 0) {  // to the end, signals or not (the supervisor's SIGCHLD interrupts a sleep)
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::min(s.test_delay_ms, 5000));
    while (std::chrono::steady_clock::now() < end) std::this_thread::sleep_until(end);
  }
  s.before = audit::take_snapshot(s.walk, prior);  // the after walk walks everything
  s.enabled = true;
  spdlog::info("audit: before the session: {} repos, {} files, {} dirs in {:.1f} ms{}", s.before.repos.size(),
               s.before.files.size(), s.before.dirs, s.before.seconds * 1000,
               s.before.complete ? "" : " (incomplete)");
}

}  // namespace

std::vector<std::pair<std::string, audit::ClaudeFile>> claude_watched_files(const std::string& home,
                                                                          const std::string& config_dir_env,
                                                                          const std::string& workspace) {
  using K = audit::ClaudeFile;
  const std::string cd = config_dir_env.empty() || config_dir_env[0] != '/' ? home + "/.claude" : normalize(config_dir_env);
  std::vector<std::pair<std::string, K>> out{{cd + "/settings.json", K::Settings}, {home + "/.claude.json", K::State}};
  if (cd != home + "/.claude") out.push_back({cd + "/.claude.json", K::State});
  if (!workspace.empty()) {
    out.push_back({workspace + "/.claude/settings.json", K::Settings});
    out.push_back({workspace + "/.claude/settings.local.json", K::Settings});
  }
  return out;
}

std::vector<std::string> claude_watched_scripts(const std::vector<WatchedClaude>& settings, const std::string& home,
                                                const std::string& workspace, const std::vector<std::string>& writable) {
  constexpr size_t kMaxScripts = 64;
  std::vector<std::string> out;
  for (const auto& w : settings) {
    if (w.kind != audit::ClaudeFile::Settings || !w.text) continue;
    auto doc = nlohmann::json::parse(*w.text, nullptr, false, true);
    if (doc.is_discarded()) continue;
    for (const auto& cmd : claude_setting_commands(doc))
      for (const auto& p : claude_command_paths(cmd, home, workspace)) {
        const bool w = std::any_of(writable.begin(), writable.end(), [&](const std::string& d) { return is_under(p, d); });
        if (w && out.size() < kMaxScripts && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
  }
  return out;
}

std::vector<std::string> audit_roots(const std::vector<std::string>& writable_dirs) {
  std::vector<std::string> dirs;
  for (const auto& d : writable_dirs) {
    char buf[PATH_MAX];
    struct stat st;
    if (!::realpath(d.c_str(), buf) || ::stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    std::string r = buf;
    if (r == "/tmp" || r == "/") continue;  // not a place the user keeps repositories
    dirs.push_back(r);
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<std::string> out;
  for (const auto& d : dirs)
    if (out.empty() || !is_under(d, out.back())) out.push_back(d);
  return out;
}

std::optional<audit::PriorWalk> prior_walk(const sandbox::bwrap::WorkspaceScan& ws) {
  if (ws.truncated || ws.root.empty()) return std::nullopt;
  audit::PriorWalk p;
  p.root = ws.root;
  p.dirs = ws.dirs;
  p.unreadable = ws.unreadable;
  using F = sandbox::bwrap::FoundGit;
  for (const auto& g : ws.walk_found) {
    const auto k = g.kind == F::Dir    ? audit::PriorWalk::GitDir
                   : g.kind == F::File ? audit::PriorWalk::GitFile
                   : g.kind == F::Symlink ? audit::PriorWalk::GitLink
                                          : audit::PriorWalk::Bare;
    p.found.push_back({k, g.path});
  }
  return p;
}

AuditSession audit_begin(const HostEnv& host, const cli::Options& o, const Launch& l) {
  AuditSession s;
  if (!l.sandboxed || o.allow_protected_writes) return s;
  for (auto& [path, kind] : claude_watched_files(host.home, host.get("CLAUDE_CONFIG_DIR"), o.tmp ? "" : host.cwd)) {
    // Only read here (the start is on the way to the child's exec); parsed at the end, and only
    // when the file changed.
    s.claude.push_back(WatchedClaude{path, kind, read_claude(path)});
  }
  for (const auto& path : claude_watched_scripts(s.claude, host.home, o.tmp ? "" : host.cwd, l.plan.writable_dirs)) {
    s.claude.push_back(WatchedClaude{path, audit::ClaudeFile::Script, read_claude(path)});
  }
  s.walk.roots = audit_roots(l.plan.writable_dirs);
  if (s.walk.roots.empty()) return s;
  s.walk.home = host.home;
  s.walk.seconds = kBeforeSeconds;
  s.test_delay_ms = std::atoi(host.get("BLAUDE_TEST_AUDIT_DELAY_MS").c_str());
  if (l.plan.deferred) return s;  // audit_before(), once the scan is done
  take_before(s, l.prior_walks);
  return s;
}

void audit_before(AuditSession& s, const sandbox::bwrap::WorkspaceScan& ws) {
  if (s.walk.roots.empty() || s.enabled) return;
  std::vector<audit::PriorWalk> prior;
  if (auto w = prior_walk(ws)) prior.push_back(std::move(*w));
  take_before(s, prior);
}

void audit_end(AuditSession& s) {
  const std::string stamp = utc_stamp();
  std::vector<audit::Finding> findings;
  std::vector<audit::Applied> applied;
  // Claude's files first: a git finding cannot touch them, and their rewrite is in their own dir
  // only (the paths are blaude's, not the agent's: their dirs are the roots).
  if (!s.claude.empty()) {
    findings = claude_findings(s.claude, stamp);
    // Each file's own dir, canonical (also in /tmp: a status line kept there is watched too).
    std::vector<std::string> dirs;
    for (const auto& f : findings) {
      char buf[PATH_MAX];
      if (::realpath(dirname_of(f.path).c_str(), buf)) dirs.push_back(buf);
    }
    applied = audit::apply_findings(findings, dirs);
  }
  audit::Snapshot after;
  if (s.enabled) {
    s.walk.seconds = kAfterSeconds;
    after = audit::take_snapshot(s.walk);
    auto git = audit::compare(s.before, after, {s.walk.roots, stamp});
    auto done = audit::apply_findings(git, s.walk.roots);
    findings.insert(findings.end(), git.begin(), git.end());
    applied.insert(applied.end(), done.begin(), done.end());
  }
  if (findings.empty() && !s.enabled) return;
  spdlog::info("audit: after the session: {} repos, {} files, {} dirs in {:.1f} ms; {} findings", after.repos.size(),
               after.files.size(), after.dirs, after.seconds * 1000, findings.size());
  const std::string text = audit::report_text(findings, applied, s.before, after);
  if (text.empty()) return;
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  log_text(text);
}

}  // namespace blaude::app
