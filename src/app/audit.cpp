#include "app/audit.hpp"

#include <limits.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/report.hpp"
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

}  // namespace

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
  s.walk.roots = audit_roots(l.plan.writable_dirs);
  if (s.walk.roots.empty()) return s;
  s.walk.home = host.home;
  s.walk.seconds = kBeforeSeconds;
  s.enabled = true;
  s.before = audit::take_snapshot(s.walk, l.prior_walks);  // the after walk walks everything
  spdlog::info("audit: before the session: {} repos, {} files, {} dirs in {:.1f} ms{}", s.before.repos.size(),
               s.before.files.size(), s.before.dirs, s.before.seconds * 1000,
               s.before.complete ? "" : " (incomplete)");
  return s;
}

void audit_end(AuditSession& s) {
  if (!s.enabled) return;
  s.walk.seconds = kAfterSeconds;
  const audit::Snapshot after = audit::take_snapshot(s.walk);
  const auto findings = audit::compare(s.before, after, {s.walk.roots, utc_stamp()});
  const auto applied = audit::apply_findings(findings, s.walk.roots);
  spdlog::info("audit: after the session: {} repos, {} files, {} dirs in {:.1f} ms; {} findings", after.repos.size(),
               after.files.size(), after.dirs, after.seconds * 1000, findings.size());
  const std::string text = audit::report_text(findings, applied, s.before, after);
  if (text.empty()) return;
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  log_text(text);
}

}  // namespace blaude::app
