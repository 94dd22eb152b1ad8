// The syscall filter's BPF program, compiled with libseccomp from the table
// (bwrap/plan/syscall_table.hpp) for the architecture blaude runs on, at launch: bwrap loads it
// from a memfd (--seccomp FD) into the sandbox's first process just before the command.
#pragma once
#include <string>

#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

// The program as bwrap reads it (struct sock_filter[]), or throws std::runtime_error saying
// what failed (no libseccomp in this build, or a rule it refused). Refused ABIs (x32, ia32)
// kill the calling process.
std::string compile_syscall_filter(const SyscallFilter& f);

}  // namespace blaude::sandbox::bwrap
