// The clipboard stand-ins inside the sandbox: xclip, xsel, wl-copy, wl-paste, pbcopy and pbpaste
// are links (first on the sandbox's PATH, in kStandinDir) to blaude's own binary or blaude-exec,
// which run this when called by one of those names. Each takes the options programs use with the
// real tool (Claude Code's image paste: `xclip -selection clipboard -t image/png -o`,
// `wl-paste --type image/png`, the type lists), refuses any other with a message, and asks the
// broker's clipboard service (broker/clip_service.hpp) over the session's services socket. What
// it refuses (a read without the user's paste key) is said on stderr, exit status 1.
#pragma once

namespace blaude::inside {

inline constexpr const char* kStandinDir = "/run/blaude/bin";
inline constexpr const char* kStandinNames[] = {"xclip", "xsel", "wl-copy", "wl-paste", "pbcopy", "pbpaste"};

// The stand-in `argv0` names (its last path component), or nullptr.
const char* clip_standin_name(const char* argv0);
// Runs the stand-in `name` with its arguments (argv[0] included); the exit status.
int clip_standin(const char* name, int argc, char** argv);

}  // namespace blaude::inside
