// The one step that changes the host, after every decision: the log file, the plan's
// preparations, a trust answer, Claude's onboarding flags.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "app/claude_settings.hpp"
#include "app/launch.hpp"
#include "common/file_io.hpp"
#include "common/log.hpp"
#include "common/unique_fd.hpp"

namespace blaude::app {

std::string apply(const sandbox::HostPrep& p) {
  switch (p.kind) {
    case sandbox::HostPrep::Kind::MakeDir:
      if (::mkdir(p.path.c_str(), p.mode) == 0 || (errno == EEXIST && is_dir(p.path))) return {};
      return "cannot create " + p.path + ": " + errno_text();
    case sandbox::HostPrep::Kind::CreateFile: {
      UniqueFd fd(::open(p.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, p.mode));
      if (fd || errno == EEXIST) return {};
      return "cannot create " + p.path + ": " + errno_text();
    }
    case sandbox::HostPrep::Kind::ReplaceFile:
      return atomic_replace(p.path, p.content, p.mode);
  }
  return {};
}

std::optional<Failure> prepare(const Launch& l) {
  std::string log_path = log::open_file();
  spdlog::debug("log file: {}", log_path.empty() ? "off" : log_path);
  for (const auto& p : l.plan.preparations) {
    std::string why = apply(p);
    if (why.empty()) continue;
    if (p.required) return Failure{why, "blaude needs it for the sandbox (" + p.why + ")."};
    spdlog::info("skipped ({}): {}", p.why, why);
  }
  if (l.gate && l.trust_answer)
    if (std::string why = sandbox::trust::record_answer(*l.gate, *l.trust_answer); !why.empty())
      return Failure{why, ""};
  for (const auto& f : l.onboarding_files)
    for (const auto& line : ensure_onboarding_file(f)) std::fprintf(stderr, "%s\n", line.c_str());
  return std::nullopt;
}

}  // namespace blaude::app
