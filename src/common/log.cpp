#include "common/log.hpp"

#include <sys/stat.h>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include "common/file_io.hpp"
#include "common/paths.hpp"

namespace blaude::log {

namespace {

constexpr const char* kPattern = "%Y-%m-%dT%H:%M:%S.%e %P %l %v";

struct State {
  std::string path;
  std::shared_ptr<spdlog::sinks::dist_sink_mt> dist;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> memory;
};
State& state() {
  static State s;
  return s;
}

}  // namespace

std::string state_dir(const std::string& xdg_state_home, const std::string& home) {
  const std::string base = xdg_state_home.empty() || xdg_state_home[0] != '/' ? home + "/.local/state" : xdg_state_home;
  return normalize(base + "/blaude");
}

std::string default_path(const HostEnv& host) { return state_dir(host.get("XDG_STATE_HOME"), host.home) + "/blaude.log"; }

void off() {
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("blaude", std::make_shared<spdlog::sinks::null_sink_mt>()));
}

void init(const HostEnv& host, bool debug) {
  auto level = spdlog::level::info;
  if (std::string env = host.get("BLAUDE_LOG"); !env.empty()) level = spdlog::level::from_str(env);
  if (debug) level = spdlog::level::debug;
  State& s = state();
  s.path = level == spdlog::level::off ? "" : default_path(host);
  // Holds the lines logged before prepare opens the file (fewer than ten today). Each slot is
  // ~400 bytes, constructed up front: 1024 of them cost every start ~85 page faults.
  s.memory = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  s.dist = std::make_shared<spdlog::sinks::dist_sink_mt>();
  s.dist->add_sink(s.memory);
  auto logger = std::make_shared<spdlog::logger>("blaude", s.dist);
  logger->set_level(level);
  logger->set_pattern(kPattern);
  // Every line reaches the file as it is logged: `tail -f` shows a session live, and whoever
  // reads the log while blaude runs (a user, a test) sees what it decided at start. Few lines
  // are logged per session (none per byte of output), so a write each costs nothing measurable.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

std::string open_file() {
  State& s = state();
  if (!s.dist || !s.memory) return "";
  auto buffered = s.memory->last_raw();
  s.dist->remove_sink(s.memory);
  s.memory.reset();
  if (s.path.empty() || !make_dirs(dirname_of(s.path), 0700)) return "";
  // spdlog opens by path and follows a link: a link there (planted while a guard was down)
  // would make every line an append to whatever it names, ~/.bashrc say. No log then.
  if (struct stat st; ::lstat(s.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return "";
  try {
    auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(s.path);
    file->set_pattern(kPattern);
    for (const auto& m : buffered) file->log(m);
    s.dist->add_sink(file);
    return s.path;
  } catch (const spdlog::spdlog_ex&) {
    return "";
  }
}

}  // namespace blaude::log
