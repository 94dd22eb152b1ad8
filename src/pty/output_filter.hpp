// A stage on the child→terminal byte path (the terminal firewall is one). It may hold back an
// unfinished sequence at a read boundary, but only until a deadline it reports.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "term/tracker.hpp"

namespace blaude::pty {

class OutputFilter {
public:
  virtual ~OutputFilter() = default;
  // Appends to `out` the bytes to show now. `now_ms` is the loop's clock.
  virtual void feed(std::string_view in, uint64_t now_ms, std::string& out) = 0;
  // The zero-copy fast path, tried first on every read: how many leading bytes of `in` go to
  // the terminal unchanged and at once. The filter treats them as seen, exactly as feed()
  // would (the tracker of observe_with() sees them too), and the session leaves them where
  // they are, in its output queue; only the rest goes through feed(). 0 (the default) sends
  // everything through feed().
  virtual size_t pass(std::string_view in, uint64_t now_ms) {
    (void)in;
    (void)now_ms;
    return 0;
  }
  // Called at or after next_deadline_ms(): releases or drops held bytes that waited too long.
  virtual void tick(uint64_t now_ms, std::string& out) = 0;
  // Absolute loop time (ms) at which tick() must run, or -1 when nothing is held.
  virtual int64_t next_deadline_ms() const = 0;
  // End of output: release whatever is held that should be shown.
  virtual void finish(std::string& out) = 0;
  // Asks the filter to hand every byte it appends to `out` to the terminal state tracker as it
  // appends it (the same pass), so that it may also ask the tracker whether the terminal is
  // inside a sequence. False: it does not, and the session feeds the tracker its output.
  virtual bool observe_with(term::Tracker* tracker) {
    (void)tracker;
    return false;
  }
};

}  // namespace blaude::pty
