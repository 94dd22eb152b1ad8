// Runs one command to completion the way a user expects from a terminal program: under a
// supervised pty when blaude's stdin and stdout are terminals, on blaude's own stdio otherwise.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "pty/session.hpp"
#include "pty/spawn.hpp"

namespace blaude::pty {

struct SuperviseOptions {
  FilterFactory make_filter;  // child→terminal stage (OSC 52); pty mode only
  std::function<void(const char*, size_t)> on_input;  // the user's input as read (session.hpp); pty mode only
  // Supplies the user's terminal; default: stdin/stdout reopened privately. The asciinema guard
  // substitutes the recorder's own terminal here.
  std::function<std::optional<Endpoint>()> endpoint;
  SessionLimits limits;
  // Whether blaude's stdin and stdout are terminals (the app layer read it once): a pty session,
  // else pipes mode on blaude's own stdio.
  bool terminal = true;
  // Track the terminal state the child sets and undo it on every way out (off only to measure
  // the pass-through alone: BLAUDE_TERM_GUARD=off).
  bool guard_terminal = true;
  // No pid namespace ends the session's processes (macOS; sweep.hpp): once the child is reaped,
  // kill what is left of its session and their descendants. In pipes mode only when blaude has
  // no controlling terminal (the child then gets a session of its own; supervisor.cpp).
  bool sweep_session = false;
  // Called once in blaude right after the child was started (not when it could not be): work
  // that must happen before the child gets far, yet need not delay its start (bwrap's protect
  // helper, sandbox/bwrap/run/protect_gate.hpp). Given the child's pid.
  std::function<void(pid_t)> after_spawn;
};

// Returns blaude's exit code: the child's code, 128+N for signal N, 126/127 when it cannot be
// started (after printing "blaude: CMD: ..."), 1 on an internal failure.
int supervise(const Command& cmd, const SuperviseOptions& opts);

}  // namespace blaude::pty
