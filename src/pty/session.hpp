// The interactive session: one libuv loop moving bytes between the user's terminal and the
// child's pty master, copying window sizes, forwarding signals, and draining at the end.
#pragma once
#include <sys/types.h>
#include <uv.h>

#include <functional>
#include <memory>

#include "pty/output_filter.hpp"
#include "pty/signal_pipe.hpp"
#include "pty/terminal.hpp"

namespace blaude::pty {

struct SessionLimits {
  size_t out_capacity = 256 * 1024;  // child → terminal queue
  size_t out_high = 192 * 1024;      // stop reading the master at this many queued bytes
  // Resume reading below this: close under out_high, so that a terminal wake-up that writes
  // also reads the master, and both halves of the pipeline stay busy instead of alternating a
  // drain phase and a refill phase (a 64 KiB gap measured ~5% less throughput on an idle
  // machine).
  size_t out_low = 180 * 1024;
  size_t out_paced = 32 * 1024;      // terminal full and this much queued: read when it drains
  size_t in_capacity = 64 * 1024;    // terminal → child queue
  size_t in_high = 48 * 1024;
  size_t in_low = 16 * 1024;
  size_t read_chunk = 64 * 1024;
  uint64_t drain_idle_ms = 100;   // after the child exits: stop when the master is idle this long
  uint64_t drain_max_ms = 3000;   // ... or after this long in total
  uint64_t flush_stall_ms = 5000; // give up flushing to a terminal that accepts nothing this long
};

using FilterFactory = std::function<std::unique_ptr<OutputFilter>(uv_loop_t*)>;

struct SessionConfig {
  Endpoint* term = nullptr;         // the user's terminal (already raw)
  TerminalModes* modes = nullptr;   // to restore on Ctrl-Z of blaude and re-raw on SIGCONT
  pid_t child = -1;
  int master = -1;                  // non-blocking pty master
  FilterFactory make_filter;        // optional
  // Shown each chunk of the user's input as it is read from the terminal, before the child gets
  // it (optional; the clipboard's paste key, broker/clip_service.hpp). On the session's loop.
  std::function<void(const char*, size_t)> on_input;
  // The terminal state the child sets (optional): every byte that goes to the terminal passes
  // through it; its undo is written after the child's last byte and on Ctrl-Z of blaude, its
  // reapply on fg.
  term::Tracker* tracker = nullptr;
  // The terminal is a real one blaude brackets (pty/fence.hpp): on Ctrl-Z the user's title is
  // popped after the undo and the child's late replies fenced before the modes go back (with
  // TCSAFLUSH); on fg the title is pushed again. The caller pushed it at the start.
  bool fence = false;
  SignalPipe* signals = nullptr;    // WINCH TERM HUP INT QUIT USR1 USR2 TSTP CONT, installed
  SessionLimits limits;
};

// Runs until the child has exited and its output has been drained and flushed.
// Returns the child's wait status.
int run_session(SessionConfig cfg);

}  // namespace blaude::pty
