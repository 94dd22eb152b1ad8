// What a backend's pure planner decided: the whole argv (bwrap … -- cmd … on Linux), the data
// that reaches the sandbox through descriptors, the host preparations the launch needs, and
// what the user should be told first. The app layer prints it (--dry-run stops there), runs the
// preparations, then starts the argv under the PTY supervisor.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace blaude::sandbox {

// Content that must reach the sandbox through a file descriptor (bwrap --ro-bind-data FD PATH,
// --args FD, ...). The planner writes the placeholder token into argv; the launcher creates a
// memfd/pipe with the content and substitutes its number.
struct DataFd {
  std::string token;    // placeholder that appears in argv, e.g. "@fd:resolv"
  std::string content;
};

// A change on the host that the launch needs, listed by the planner and made by the app layer's
// prepare step, after every decision (so bad input, or --dry-run, changes nothing).
struct HostPrep {
  enum class Kind {
    MakeDir,      // mkdir `path` (mode), its parent must exist
    CreateFile,   // an empty file, O_CREAT|O_EXCL|O_NOFOLLOW (never through a planted link)
    ReplaceFile,  // atomic replace with `content`
  };
  Kind kind = Kind::MakeDir;
  std::string path;
  mode_t mode = 0700;
  std::string content;
  bool required = true;  // false: a failure is logged and the launch goes on (a cache file)
  std::string why;       // shown by --dry-run: "claude keeps its settings there"
};

struct LaunchPlan {
  std::vector<std::string> argv;
  std::vector<DataFd> data_fds;
  std::vector<HostPrep> preparations;
  std::vector<std::string> notes;  // printed to stderr before the session starts
  std::vector<std::string> warnings;
};

}  // namespace blaude::sandbox
