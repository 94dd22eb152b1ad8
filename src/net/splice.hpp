// Moves bytes between two connected libuv streams, both ways, until both directions have ended
// (EOF passed on as a half-close) or one side fails. Memory is bounded and idle costs nothing:
//  - reads land in one scratch buffer shared by every stream of the loop and are handed to the
//    kernel at once (uv_try_write); only a short write copies the rest (at most one read) and
//    stops reading that direction's source until it has drained. An idle tunnel holds no buffer.
//  - no timers: an established tunnel may be quiet for as long as its peers like.
// The owner keeps the streams and closes them after `done`; a Splice must outlive the handles'
// close callbacks (pending writes complete with UV_ECANCELED first).
#pragma once
#include <uv.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace blaude::net {

struct ReadScratch {
  explicit ReadScratch(size_t n = 64 * 1024) : buf(n) {}
  std::vector<char> buf;
};

class Splice {
public:
  // `done(ok)`: called once; ok = both directions ended cleanly.
  Splice(uv_stream_t* a, uv_stream_t* b, ReadScratch* scratch, std::function<void(bool ok)> done);
  Splice(const Splice&) = delete;
  Splice& operator=(const Splice&) = delete;

  // `to_b` / `to_a`: bytes to deliver first (a parsed head's rewrite, a "200" reply, bytes the
  // client sent early); reading each direction starts once they are written.
  void start(std::string to_b = {}, std::string to_a = {});
  bool finished() const { return finished_; }
  size_t buffered() const { return ab_.pending.size() + ba_.pending.size(); }

private:
  struct Dir {
    Splice* self = nullptr;
    uv_stream_t* src = nullptr;
    uv_stream_t* dst = nullptr;
    std::string pending;
    uv_write_t wreq{};
    uv_shutdown_t sreq{};
    bool writing = false, eof = false, shut = false;
  };

  static void on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  static void on_write(uv_write_t* req, int status);
  static void on_shutdown(uv_shutdown_t* req, int status);

  void begin(Dir& d, std::string first);
  void write_through(Dir& d, const char* data, size_t n);
  void queue(Dir& d);
  void read(Dir& d);
  void end_of(Dir& d);
  void finish(bool ok);

  Dir ab_, ba_;
  ReadScratch* scratch_;
  std::function<void(bool)> done_;
  bool finished_ = false;
};

}  // namespace blaude::net
