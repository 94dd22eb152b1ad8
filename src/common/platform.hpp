// The one switch between Linux-only system calls and their POSIX fallbacks (the calls macOS has).
// BLAUDE_LINUX_CALLS is 1 on Linux, 0 elsewhere, and 0 on Linux too when the build forces the
// fallbacks (cmake -DBLAUDE_POSIX_FALLBACKS=ON), so that CI runs every fallback for real.
// A call site reads `#if BLAUDE_LINUX_CALLS`, never __linux__ or __APPLE__ directly; the one
// exception is code of the bwrap backend itself (sandbox/bwrap/run/protect_gate.cpp, Landlock in
// bwrap/probe/confine.cpp, the syscall filter in bwrap/run/syscall_filter.cpp), which never runs
// on macOS and so has no fallback to test.
#pragma once

#if defined(__linux__) && !defined(BLAUDE_POSIX_FALLBACKS)
#define BLAUDE_LINUX_CALLS 1
#else
#define BLAUDE_LINUX_CALLS 0
#endif

namespace blaude {

// For messages and `blaude --version`: which kind of calls this build makes.
inline constexpr bool kLinuxCalls = BLAUDE_LINUX_CALLS;

}  // namespace blaude
