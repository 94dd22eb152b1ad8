// What to do about a recorder: pause it (SIGSTOP, the session talks to the real terminal),
// mute it (it keeps running and relaying input; only the session's output bypasses it), or
// nothing. Pure: decided from facts gathered by the guard.
#pragma once
#include <optional>
#include <string>

#include "asciinema/procinfo.hpp"

namespace blaude::asciinema {

enum class Mode { None, Pause, Mute };
const char* mode_name(Mode m);

struct Facts {
  bool disabled = false;               // --no-asciinema
  std::optional<ProcInfo> recorder;    // from find_recorder
  std::optional<ProcInfo> parent;      // the recorder's parent
  std::string detect_reason;           // find_recorder's reason
  bool terminal_ok = false;            // its terminal opened, is a tty, same uid
  std::string terminal_problem;        // why not
  uid_t uid = 0;                       // blaude's real uid
};

struct Decision {
  Mode mode = Mode::None;
  std::string reason;  // one line for the log
};

Decision decide(const Facts& f);

}  // namespace blaude::asciinema
