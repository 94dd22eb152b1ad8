// `blaude selftest`'s probe, run inside the sandbox (blaude-exec or blaude itself, `__probe`):
// each harmless attack once, printed as `name=ERRNO` (0: it worked), for the host side to judge
// (app/selftest.cpp). Raw syscalls, so that a libc's fallback cannot hide the filter's answer.
#pragma once

namespace blaude::inside {

inline constexpr const char* kSelftestProbe = "__probe";

// argv: ABSTRACT_NAME TMP_SOCKET_PATH PORT PROTECTED_FILE...
int selftest_probe(int argc, char** argv);

}  // namespace blaude::inside
