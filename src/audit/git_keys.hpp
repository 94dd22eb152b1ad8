// Which git configuration keys run a program or point git at other code, taken from
// git-config(1) (every key documented as a command, a program, a path to one, a shell alias,
// an include, a URL rewrite or a transport policy). Pure.
#pragma once
#include <string>
#include <string_view>

#include "common/git_config.hpp"

namespace blaude::audit {

enum class Risk {
  None,
  RunsCommand,  // git runs the value (or something the value names) on the user's machine
  Redirects,    // git reads code or writes files somewhere the value names
};

struct KeyRisk {
  Risk risk = Risk::None;
  std::string_view why;  // one line for the report, e.g. "runs a program at every git status"
};

// Judged on git's canonical key (see ConfigEntry::key) and the value where git's own meaning
// depends on it (core.fsmonitor=false runs nothing; submodule.*.update runs only a "!command").
KeyRisk classify(const ConfigEntry& e);

}  // namespace blaude::audit
