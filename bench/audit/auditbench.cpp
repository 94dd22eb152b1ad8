// The post-session audit's cost on a tree: the walk (every .git at any depth, their config,
// hooks and pointers) and the compare, against `find DIR -name .git` in the same run as the
// baseline (the cheapest way to merely list the same repositories). Interleaved rounds; medians.
// Usage: auditbench DIR [rounds]
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "audit/claude_files.hpp"
#include "audit/diff.hpp"
#include "audit/walk.hpp"
#include "common/file_io.hpp"

using namespace blaude::audit;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double run_find(const std::string& dir) {
  auto t = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    int null = ::open("/dev/null", 1);
    dup2(null, 1);
    execlp("find", "find", dir.c_str(), "-name", ".git", (char*)nullptr);
    _exit(127);
  }
  int st;
  waitpid(pid, &st, 0);
  return ms_since(t);
}

// Claude Code's files as the audit watches them: a settings.json with hooks, and a ~/.claude.json
// of `projects` projects (claude keeps one entry per directory it ran in, with its history),
// written to a temp dir; one round = read + project each (the start) and read + project + diff
// each (the end), as app/audit.cpp does.
struct ClaudeFiles {
  std::string settings, state;
};

ClaudeFiles write_claude_files(int projects) {
  char tmpl[] = "/tmp/auditbench-claude.XXXXXX";
  std::string dir = ::mkdtemp(tmpl) ? tmpl : "/tmp";
  ClaudeFiles f{dir + "/settings.json", dir + "/.claude.json"};
  std::ofstream(f.settings) << R"J({"model": "opus", "statusLine": {"type": "command", "command": "~/.claude/s.sh"},
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/.claude/hooks/g.sh"}]}]},
    "permissions": {"allow": ["Bash(git status)"], "deny": []}, "env": {"A": "b"}})J";
  std::ostringstream o;
  o << R"({"numStartups": 412, "mcpServers": {"m": {"command": "npx", "args": ["-y", "x"]}}, "projects": {)";
  for (int i = 0; i < projects; ++i) {
    o << (i ? "," : "") << "\"/home/u/src/project-" << i << "\": {\"allowedTools\": [], \"mcpServers\": {}, \"history\": [";
    for (int h = 0; h < 20; ++h)
      o << (h ? "," : "") << "{\"display\": \"please refactor the module number " << h << " and run the tests\", \"pastedContents\": {}}";
    o << "], \"hasTrustDialogAccepted\": true}";
  }
  o << "}}";
  std::ofstream(f.state) << o.str();
  return f;
}

std::string dirname_of_tmp(const std::string& p) { return p.substr(0, p.rfind('/')); }

// As app/audit.cpp reads them.
std::optional<std::string> slurp(const std::string& p) { return blaude::read_small_file(p, 64u << 20); }

// One session's worth of the Claude part as app/audit.cpp does it: the start reads each file;
// the end reads it again and, when the text changed, projects both. `changed`: the worst case
// (claude rewrites ~/.claude.json in every interactive session), both projected.
size_t claude_round(const ClaudeFiles& f, bool changed, double* start_ms) {
  size_t changes = 0;
  auto t = Clock::now();
  std::vector<std::optional<std::string>> start;
  for (const auto& p : {f.settings, f.state}) start.push_back(slurp(p));
  *start_ms += ms_since(t);
  size_t i = 0;
  for (auto [path, kind] : {std::pair{f.settings, ClaudeFile::Settings}, std::pair{f.state, ClaudeFile::State}}) {
    const auto& before = start[i++];
    auto text = slurp(path);
    if (!changed && text == before) continue;
    changes += claude_changes(project_claude(kind, before), project_claude(kind, text)).size();
  }
  return changes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: auditbench DIR [rounds]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 21;
  WalkInput in{{dir}, "/nonexistent", 30.0, 256};
  // The walk after the session (and the watcher's during it) also reads every index.
  WalkInput with_idx = in;
  with_idx.read_indexes = true;
  // As the audit after the session runs it: the indexes unchanged since the start are not read.
  const Snapshot start = take_snapshot(in);
  WalkInput after = with_idx;
  after.known_indexes = &start.index_stats;
  std::vector<double> walk, walk_idx, walk_after, cmp, find;
  Snapshot s;
  for (int i = 0; i < rounds; ++i) {
    find.push_back(run_find(dir));
    auto t = Clock::now();
    s = take_snapshot(in);
    walk.push_back(ms_since(t));
    t = Clock::now();
    if (!take_snapshot(with_idx).bad_indexes.empty()) return 1;
    walk_idx.push_back(ms_since(t));
    t = Clock::now();
    if (!take_snapshot(after).bad_indexes.empty()) return 1;
    walk_after.push_back(ms_since(t));
    t = Clock::now();
    auto f = compare(s, s, {{dir}, "x"});
    cmp.push_back(ms_since(t));
    if (!f.empty()) return 1;
  }
  // The Claude part: its cost against the same run's find, with a ~/.claude.json of
  // 200 projects of 20 history lines each (a heavy user's; most are far smaller).
  const ClaudeFiles cf = write_claude_files(200);
  std::vector<double> claude, claude_same, claude_start, find2;
  for (int i = 0; i < rounds; ++i) {
    find2.push_back(run_find(dir));
    double start = 0;
    auto t = Clock::now();
    if (claude_round(cf, true, &start) != 0) return 1;
    claude.push_back(ms_since(t));
    claude_start.push_back(start);
    t = Clock::now();
    if (claude_round(cf, false, &start) != 0) return 1;
    claude_same.push_back(ms_since(t));
  }
  const long state_bytes = long(slurp(cf.state).value_or("").size());
  std::remove(cf.settings.c_str());
  std::remove(cf.state.c_str());
  std::remove(dirname_of_tmp(cf.state).c_str());
  std::printf("tree: %s  (%zu dirs, %zu repos, %zu files audited, complete=%s)\n", dir.c_str(), s.dirs,
              s.repos.size(), s.files.size(), s.complete ? "yes" : "no");
  std::printf("median of %d rounds:  find -name .git %.2f ms   audit walk %.2f ms (%.2fx find)   compare %.3f ms\n",
              rounds, median(find), median(walk), median(walk) / median(find), median(cmp));
  std::printf("audit walk reading every index %.2f ms (%.2fx the walk); only those changed since the start (the "
              "walk after the session, and the watcher's during it) %.2f ms (%.2fx)\n",
              median(walk_idx), median(walk_idx) / median(walk), median(walk_after), median(walk_after) / median(walk));
  std::printf("claude files (settings.json + a %ld-byte ~/.claude.json): start (read only) %.3f ms (%.4fx find); "
              "start + end, unchanged %.2f ms (%.3fx find), both changed (worst) %.2f ms (%.2fx find)\n",
              state_bytes, median(claude_start), median(claude_start) / median(find2), median(claude_same),
              median(claude_same) / median(find2), median(claude), median(claude) / median(find2));
  return 0;
}
