#include "common/path_search.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

namespace blaude {

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::optional<std::string> find_executable(const std::string& name, const std::string& path_env,
                                           RelativeEntries mode) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    return is_executable_file(name) ? std::optional(name) : std::nullopt;
  }
  std::string_view rest = path_env;
  for (;;) {
    size_t end = rest.find(':');
    std::string_view dir = rest.substr(0, end);
    bool relative = dir.empty() || dir.front() != '/';
    if (!relative || mode == RelativeEntries::FromCwd) {
      // Appended piecewise: GCC 12 flags `a + "/" + b` with a false -Wrestrict.
      std::string candidate;
      candidate.reserve(dir.size() + name.size() + 2);
      candidate.append(dir.empty() ? std::string_view(".") : dir).append(1, '/').append(name);
      if (is_executable_file(candidate)) return candidate;
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return std::nullopt;
}

}  // namespace blaude
