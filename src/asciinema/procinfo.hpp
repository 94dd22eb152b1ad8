// Facts about one process as read from /proc, and pure parsers for the files they come from.
// The parsers take file contents as strings so that tests can feed them anything.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blaude::asciinema {

// The fields of /proc/<pid>/stat that matter here (proc(5) numbering in comments).
struct ProcStat {
  pid_t pid = 0;      // 1
  std::string comm;   // 2, without the parentheses; may contain spaces and ')'
  char state = '?';   // 3: R S D T t Z ...
  pid_t ppid = 0;     // 4
  pid_t pgrp = 0;     // 5
  pid_t session = 0;  // 6
  int tty_nr = 0;     // 7
  pid_t tpgid = -1;   // 8: foreground process group of the controlling terminal
};

// /proc/<pid>/status: the real uid and the signal masks (bit N-1 stands for signal N).
struct ProcStatus {
  uid_t uid = static_cast<uid_t>(-1);
  uint64_t sig_blk = 0, sig_ign = 0, sig_cgt = 0;
};

struct ProcInfo {
  ProcStat stat;
  std::vector<std::string> argv;      // /proc/<pid>/cmdline
  std::optional<ProcStatus> status;   // missing if unreadable
};

// nullopt on anything malformed (the comm field ends at the last ')').
std::optional<ProcStat> parse_stat(std::string_view text);
std::optional<ProcStatus> parse_status(std::string_view text);
// NUL-separated lists (cmdline, environ); a trailing NUL does not make an empty last item.
std::vector<std::string> split_nul(std::string_view text);
// The value of KEY in an environ list, if present.
std::optional<std::string> env_value(const std::vector<std::string>& environ, std::string_view key);

}  // namespace blaude::asciinema
