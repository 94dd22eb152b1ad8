#include "common/log.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace blaude::log {

std::string default_path() {
  const char* state = std::getenv("XDG_STATE_HOME");
  std::string base;
  if (state && *state == '/') {
    base = state;
  } else {
    const char* home = std::getenv("HOME");
    base = std::string(home && *home ? home : "/tmp") + "/.local/state";
  }
  return base + "/blaude/blaude.log";
}

static void make_private_dirs(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0700);
}

std::string init(bool debug, bool enabled) {
  auto level = spdlog::level::info;
  if (const char* env = std::getenv("BLAUDE_LOG"); env && *env) {
    level = spdlog::level::from_str(env);  // unknown names map to off
  }
  if (debug) level = spdlog::level::debug;

  std::string path = default_path();
  try {
    if (level == spdlog::level::off || !enabled) throw spdlog::spdlog_ex("logging off");
    make_private_dirs(std::filesystem::path(path).parent_path());
    auto logger = spdlog::basic_logger_mt("blaude", path);
    logger->set_level(level);
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %P %l %v");
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(logger);
    return path;
  } catch (const spdlog::spdlog_ex&) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("blaude",
                                 std::make_shared<spdlog::sinks::null_sink_mt>()));
    return "";
  }
}

}  // namespace blaude::log
