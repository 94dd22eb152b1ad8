// The post-session audit's cost on a tree: the walk (every .git at any depth, their config,
// hooks and pointers) and the compare, against `find DIR -name .git` in the same run as the
// baseline (the cheapest way to merely list the same repositories). Interleaved rounds; medians.
// Usage: auditbench DIR [rounds]
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "audit/diff.hpp"
#include "audit/walk.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: auditbench DIR [rounds]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 21;
  WalkInput in{{dir}, "/nonexistent", 30.0, 256};
  std::vector<double> walk, cmp, find;
  Snapshot s;
  for (int i = 0; i < rounds; ++i) {
    find.push_back(run_find(dir));
    auto t = Clock::now();
    s = take_snapshot(in);
    walk.push_back(ms_since(t));
    t = Clock::now();
    auto f = compare(s, s, {{dir}, "x"});
    cmp.push_back(ms_since(t));
    if (!f.empty()) return 1;
  }
  std::printf("tree: %s  (%zu dirs, %zu repos, %zu files audited, complete=%s)\n", dir.c_str(), s.dirs,
              s.repos.size(), s.files.size(), s.complete ? "yes" : "no");
  std::printf("median of %d rounds:  find -name .git %.2f ms   audit walk %.2f ms (%.2fx find)   compare %.3f ms\n",
              rounds, median(find), median(walk), median(walk) / median(find), median(cmp));
  return 0;
}
