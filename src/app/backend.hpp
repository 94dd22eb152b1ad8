// Which sandbox this host has: the one platform choice, made once from the host. Seatbelt
// (sandbox-exec) on macOS, bubblewrap elsewhere. Everything that differs between the two
// switches on Launch::backend; nothing else in the app asks which platform it is on.
#pragma once
#include "common/host_env.hpp"

namespace blaude::app {

enum class Backend { Bwrap, Seatbelt };

struct BackendChoice {
  Backend backend = Backend::Bwrap;
  // BLAUDE_TEST_BACKEND=seatbelt on a host without Seatbelt: the macOS launch is planned and
  // printed (--dry-run, doctor's profile text) so tests on Linux read the real decision, but
  // never started.
  bool planned_only = false;
};

BackendChoice host_backend(const HostEnv& host);

// The line blaude on macOS prints at start until the backend has been run on a Mac.
inline constexpr const char* kSeatbeltUntried =
    "blaude: note: the macOS (Seatbelt) backend was built and tested on Linux, by generating its profile "
    "and forcing the POSIX fallbacks; it has not yet been run on a Mac (scripts/macos-acceptance.sh checks it)";

}  // namespace blaude::app
