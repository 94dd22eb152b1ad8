// Running a short helper program to completion (bwrap --version, apparmor_parser, a userns
// probe): no shell, stdin from /dev/null, a deadline after which it is killed. The pty child and
// the clipboard helpers are started elsewhere (src/pty, src/osc52): they outlive one call.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace blaude {

struct RunOptions {
  int timeout_ms = 5000;
  // KEY=VALUE list for the program; nullopt = blaude's own environment.
  std::optional<std::vector<std::string>> env;
  bool capture = true;  // false: its output goes to /dev/null
};

struct RunResult {
  int status = -1;      // exit code, 128+N for signal N; -1 if it could not start or timed out
  bool timed_out = false;
  std::string output;   // stdout and stderr together, at most 64 KiB (when captured)
};

// argv[0] is looked up on PATH when it has no '/'.
RunResult run_capture(const std::vector<std::string>& argv, const RunOptions& opts = {});

}  // namespace blaude
