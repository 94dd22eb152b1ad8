#include "asciinema/decide.hpp"

namespace blaude::asciinema {

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Pause: return "pause";
    case Mode::Mute: return "mute";
    default: return "none";
  }
}

namespace {

std::string who(const ProcInfo& p) {
  return p.stat.comm + " (pid " + std::to_string(p.stat.pid) + ")";
}

// tmux SIGCONTs a pane's process group as soon as it sees the pane's process stop (except for
// SIGTTIN/SIGTTOU, which the kernel discards for the pane's orphaned group anyway), and screen
// does the same; a pause there would last milliseconds while keystrokes split two ways.
bool resumes_stopped_children(const ProcInfo& parent) {
  const std::string& c = parent.stat.comm;
  return c.rfind("tmux", 0) == 0 || c == "screen" || c == "SCREEN";
}

}  // namespace

Decision decide(const Facts& f) {
  Decision d;
  if (f.disabled) {
    d.reason = "--no-asciinema: not touching any recorder";
    return d;
  }
  if (!f.recorder) {
    d.reason = f.detect_reason;
    return d;
  }
  const ProcInfo& r = *f.recorder;
  if (r.stat.state == 'T' || r.stat.state == 't') {
    d.reason = who(r) + " is already stopped; leaving it alone";
    return d;
  }
  if (r.status && r.status->uid != f.uid) {
    d.reason = who(r) + " belongs to uid " + std::to_string(r.status->uid) + ", not ours";
    return d;
  }
  if (!f.terminal_ok) {
    d.reason = "cannot use the terminal of " + who(r) + ": " + f.terminal_problem;
    return d;
  }
  if (r.stat.tpgid != r.stat.pgrp) {
    d.reason = who(r) + " is not in the foreground of its terminal";
    return d;
  }
  // From here on the session's output can go straight to the real terminal (mute at least).
  d.mode = Mode::Mute;
  if (!f.parent) {
    d.reason = "muted: the parent of " + who(r) + " is unknown, so stopping it might be noticed";
    return d;
  }
  const ProcInfo& p = *f.parent;
  if (p.stat.session == r.stat.session && p.stat.pgrp != r.stat.pgrp) {
    d.reason = "muted: " + who(p) + " runs " + who(r) +
               " as a job in the same terminal session; stopping it would hand the terminal "
               "to that shell";
    return d;
  }
  if (resumes_stopped_children(p)) {
    d.reason = "muted: " + who(p) + " resumes stopped children at once, so " + who(r) +
               " cannot stay paused";
    return d;
  }
  d.mode = Mode::Pause;
  d.reason = "paused: " + who(r) + " has no job-control parent (" + who(p) +
             (p.stat.session == r.stat.session ? " runs it without job control)"
                                               : " is in another session)");
  return d;
}

}  // namespace blaude::asciinema
