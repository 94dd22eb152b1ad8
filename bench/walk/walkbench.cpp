// walkbench: the sandbox probe's workspace walk (walk_workspace) in process, with each given
// thread count in turn, interleaved; min, p25 and median per count. Run it at real-time priority
// (`chrt -f 50 build/walkbench DIR 100 1 2`) on a shared machine: the threads only help when
// cores are free. Usage: walkbench DIR REPS THREADS...
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include "sandbox/workspace/workspace_walk.hpp"
using namespace blaude::sandbox::workspace;
int main(int argc, char** argv) {
  int reps = atoi(argv[2]);
  std::vector<int> th; for (int i = 3; i < argc; ++i) th.push_back(atoi(argv[i]));
  std::vector<std::vector<double>> t(th.size());
  size_t dirs = 0, entries = 0;
  for (int r = 0; r < reps; ++r)
    for (size_t k = 0; k < th.size(); ++k) {
      WalkLimits l; l.threads = th[k];
      auto a = std::chrono::steady_clock::now();
      auto w = walk_workspace(argv[1], l);
      t[k].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
      dirs = w.dirs; entries = w.entries;
    }
  for (size_t k = 0; k < th.size(); ++k) {
    auto v = t[k]; std::sort(v.begin(), v.end());
    printf("%s threads=%d dirs=%zu entries=%zu: min %.2f p25 %.2f median %.2f ms\n", argv[1], th[k], dirs, entries, v[0], v[v.size()/4], v[v.size()/2]);
  }
}
