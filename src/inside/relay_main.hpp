// `blaude __net-relay …  -- CMD …`: how bwrap starts the command in proxy mode (its command
// line: net/relay_argv.hpp). This runs inside the sandbox (blaude's binary, bind-mounted
// read-only at kSandboxExe): it binds the relay's listeners first (so CMD never races them),
// double-forks the relay (reparented to the sandbox's init, in its own session, non-dumpable so
// no sandboxed process can ptrace it or open its descriptors), then execs CMD, which keeps its
// pid, terminal and exit status.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "net/relay_argv.hpp"

namespace blaude::inside {

// Starts CMD in this process (execs it); returns only on failure, with the exit code.
using ExecCommand = std::function<int(std::vector<std::string>& command)>;
int exec_command_path(std::vector<std::string>& command);  // execvp; 127 not found, 126 else

// The wrapper itself. Returns only on failure (exit code); on success it has exec'd CMD through
// `exec` (the app passes one that runs blaude's exec shim in this process: one exec fewer).
int relay_main(const std::vector<std::string>& args, const ExecCommand& exec = exec_command_path);

}  // namespace blaude::inside
