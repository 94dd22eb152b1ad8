// What to start: the whole argv (bwrap … -- cmd … on Linux), the environment bwrap itself gets,
// and what the user should be told first. Produced by pure planners, executed by main via the
// PTY supervisor.
#pragma once
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

struct LaunchPlan {
  std::vector<std::string> argv;
  std::vector<std::string> env;    // KEY=VALUE for the launched process (bwrap); empty = none
  std::vector<DataFd> data_fds;
  std::vector<std::string> notes;  // printed to stderr before the session starts
  std::vector<std::string> warnings;
};

}  // namespace blaude::sandbox
