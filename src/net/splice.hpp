// Moves bytes between two connected libuv streams, both ways, until both directions have ended
// (EOF passed on as a half-close) or one side fails. The bytes never enter user space: each
// direction is splice(2)d socket → pipe → socket (without splice, on macOS: recv → buffer → send). Memory is bounded and idle costs nothing:
//  - one pipe per loop is shared by every tunnel of the loop (ReadScratch::pipes): a direction
//    takes it, fills it from its source, empties it into its destination and gives it back. Only
//    a direction whose destination is full keeps a pipe (at most one pipe's worth of bytes) and
//    stops reading its source until that pipe has drained. An idle tunnel holds no pipe.
//  - no timers: an established tunnel may be quiet for as long as its peers like.
//  - the streams' fds are watched with one uv_poll_t each while the splice runs (the streams
//    themselves must not read or write meanwhile); a bounded amount moves per wakeup, so one
//    busy tunnel cannot starve the others.
// SIGPIPE: splice(2) into a socket whose peer is gone raises it; the thread running the loop
// must block or ignore it (blaude's proxy thread blocks every signal, the relay ignores it).
// The owner keeps the streams; it calls stop() (or waits for `done`) BEFORE closing them, so no
// poll watches a closed fd. The poll handles free themselves; a Splice may be destroyed any time
// after stop()/done.
#pragma once
#include <uv.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"

namespace blaude::net {

// With splice(2), a kernel pipe. Without it (BLAUDE_LINUX_CALLS 0, macOS), a user-space buffer of
// the same role: bytes [off, off + bytes) of buf are read and not yet written on (splice.cpp).
struct Pipe {
  UniqueFd r, w;
  size_t bytes = 0;  // in the pipe, not yet written on
  std::vector<char> buf;
  size_t off = 0;
};

// The loop's shared resources: a read buffer (for request heads) and the free pipes.
struct ReadScratch {
  explicit ReadScratch(size_t n = 64 * 1024) : buf(n) {}
  std::vector<char> buf;
  std::vector<std::unique_ptr<Pipe>> free_pipes;  // at most kKeepFree
  size_t pipe_size = 1 << 20;                     // asked with F_SETPIPE_SZ; the kernel may give less

  std::unique_ptr<Pipe> take_pipe();  // nullptr: pipe2 failed (EMFILE)
  void give_pipe(std::unique_ptr<Pipe> p);
  static constexpr size_t kKeepFree = 2;
};

class Splice {
public:
  // `done(ok)`: called once; ok = both directions ended cleanly.
  Splice(uv_stream_t* a, uv_stream_t* b, ReadScratch* scratch, std::function<void(bool ok)> done);
  ~Splice();
  Splice(const Splice&) = delete;
  Splice& operator=(const Splice&) = delete;

  // `to_b` / `to_a`: bytes to deliver first (a parsed head's rewrite, a "200" reply, bytes the
  // client sent early); each direction's source is read once they are written.
  void start(std::string to_b = {}, std::string to_a = {});
  // Ends the splice without calling `done` (the owner is closing the streams).
  void stop();
  bool finished() const { return finished_; }
  size_t buffered() const;

private:
  struct End {
    Splice* self = nullptr;
    uv_poll_t* poll = nullptr;  // heap: its close callback frees it, whenever that runs
    int fd = -1;
    int events = 0;
  };
  struct Dir {
    End* src = nullptr;
    End* dst = nullptr;
    std::string first;  // the preamble, written with send()
    size_t first_off = 0;
    std::unique_ptr<Pipe> pipe;  // held while it has bytes for dst
    bool eof = false, shut = false, blocked = false;
  };

  static void on_poll(uv_poll_t* p, int status, int events);
  void pump(Dir& d);
  bool flush(Dir& d);
  void end_of(Dir& d);
  void update();
  int wanted(const End& e) const;
  void finish(bool ok);
  void close_polls();

  End ea_, eb_;
  Dir ab_, ba_;
  uv_loop_t* loop_ = nullptr;
  ReadScratch* scratch_;
  std::function<void(bool)> done_;
  bool finished_ = false;
};

}  // namespace blaude::net
