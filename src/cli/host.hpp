// The few host probes the CLI actions need (doctor, fix-apparmor, "is claude installed"). Kept
// apart from the pure decisions so those can be tested over synthetic facts.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace blaude::cli::host {

// Like `command -v NAME` over the given PATH value: the first executable regular file. A name
// with a '/' is checked as is.
std::optional<std::string> find_in_path(const std::string& name, const std::string& path_env);

// The first line-trimmed content of a small file (/proc/sys/...); nullopt if unreadable.
std::optional<std::string> read_trimmed(const std::string& path);

bool is_dir(const std::string& path);
bool is_regular_file(const std::string& path);  // lstat: a symlink is not
bool exists(const std::string& path);           // lstat

struct RunResult {
  int status = -1;      // exit code, 128+N for signal N, -1 if it could not start / timed out
  std::string output;   // stdout and stderr together, at most 64 KiB
};
// Runs argv (no shell, PATH lookup for argv[0]) with stdin from /dev/null, waiting at most
// timeout_ms before killing it.
RunResult run_capture(const std::vector<std::string>& argv, int timeout_ms = 5000);

}  // namespace blaude::cli::host
