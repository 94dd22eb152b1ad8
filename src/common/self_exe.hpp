// blaude's own binary as an absolute, resolved path: the platform layer's one answer to "where
// am I" (the exec shim bound into bwrap, the proxy relay, the AppArmor fix's sudo line).
//   Linux:  readlink("/proc/self/exe") (the kernel's answer; "… (deleted)" after an upgrade).
//   macOS:  _NSGetExecutablePath + realpath (dyld's answer, through symlinks).
//   Else, and on Linux with -DBLAUDE_POSIX_FALLBACKS=ON: argv[0] as main recorded it, searched
//   on the PATH blaude started with when it holds no '/', then realpath. argv[0] is whatever the
//   caller exec'd with, so this is the user's own claim (`exec -a` can point it elsewhere, which
//   gains them nothing they could not run anyway); the kernel's answer is used where there is one.
#pragma once
#include <optional>
#include <string>

namespace blaude {

// main() calls this first (cheap: it stores argv[0], $PATH and the cwd; nothing is resolved).
void record_start(const char* argv0);

// The absolute path of the running binary; "" when it cannot be found.
std::string self_exe();

// The fallback's rule, over explicit inputs (unit-tested): argv[0] with a '/' is taken against
// `cwd`, a bare name is looked up on `path_env` as execvp would (relative PATH entries against
// `cwd`); the result is realpath'd and must be an executable regular file. nullopt otherwise.
std::optional<std::string> exe_from_argv0(const std::string& argv0, const std::string& path_env,
                                          const std::string& cwd);

}  // namespace blaude
