// One process's scheduler state, as a letter ('T': stopped, 'Z': zombie, 'R'/'S'/...; 0: gone or
// unknown), from what each system has:
//   Linux:  /proc/PID/stat (one read);
//   macOS:  sysctl KERN_PROC_PID (kinfo_proc.kp_proc.p_stat: SSTOP -> 'T', SZOMB -> 'Z', ...);
//   else, and on Linux with -DBLAUDE_POSIX_FALLBACKS=ON: `/bin/ps -o stat= -p PID` (procps and
//   BSD ps both print the letter first), a fork per call: the caller asks only when input arrives.
#pragma once
#include <sys/types.h>

#include <string_view>

namespace blaude::pty {

char process_state(pid_t pid);

// A process's parent and process group (0, 0 when gone or unknown). Linux: /proc/PID/stat;
// elsewhere `/bin/ps -o ppid=,pgid= -p PID`.
struct ProcParent {
  pid_t ppid = 0;
  pid_t pgrp = 0;
};
ProcParent process_parent(pid_t pid);
// Pure: ppid and pgrp of a /proc/PID/stat line (the 2nd and 3rd fields after the last ')').
ProcParent parent_from_proc_stat(std::string_view stat);

// Pure: the letter of a /proc/PID/stat line (after the last ')': the name may hold spaces and
// parentheses), and of `ps -o stat=` output (its first non-blank); 0 when there is none.
char state_from_proc_stat(std::string_view stat);
char state_from_ps(std::string_view out);

}  // namespace blaude::pty
