#include "common/fd_limit.hpp"

#include <algorithm>

namespace blaude {

namespace {
struct rlimit g_original;
bool g_raised = false, g_tried = false;
size_t g_soft = 0;
}  // namespace

size_t raise_fd_limit() {
  if (g_tried) return g_soft;
  g_tried = true;
  struct rlimit r;
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return g_soft = 1024;
  g_soft = r.rlim_cur == RLIM_INFINITY ? size_t(1) << 20 : size_t(r.rlim_cur);
  const rlim_t want = r.rlim_max == RLIM_INFINITY ? rlim_t(1) << 20 : std::min<rlim_t>(r.rlim_max, rlim_t(1) << 20);
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < want) {
    struct rlimit up = r;
    up.rlim_cur = want;
    if (::setrlimit(RLIMIT_NOFILE, &up) == 0) {
      g_original = r;
      g_raised = true;
      g_soft = size_t(want);
    }
  }
  return g_soft;
}

const struct rlimit* original_fd_limit() { return g_raised ? &g_original : nullptr; }

size_t connection_cap(size_t soft, size_t reserve) {
  const size_t usable = soft > reserve ? soft - reserve : 0;
  return std::clamp<size_t>(usable / kFdsPerConnection, 16, 4096);
}

}  // namespace blaude
