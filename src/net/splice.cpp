#include "net/splice.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/platform.hpp"

namespace blaude::net {

namespace {

// Pipe-fulls per direction per wakeup: bounded, so one busy tunnel cannot starve the loop's
// others (the fds are level-triggered: what is left is reported again at once).
constexpr int kRounds = 4;
constexpr size_t kMaxSplice = size_t(1) << 20;

#if BLAUDE_LINUX_CALLS
constexpr int kNoSignal = MSG_NOSIGNAL;
#else
constexpr int kNoSignal = 0;  // macOS: SIGPIPE is blocked/ignored by the loop's thread (above)
#endif

#if BLAUDE_LINUX_CALLS
constexpr unsigned kFlags = SPLICE_F_NONBLOCK | SPLICE_F_MOVE;

// socket -> pipe, and pipe -> socket: the bytes stay in the kernel.
ssize_t fill(int src, Pipe& p) { return ::splice(src, nullptr, p.w.get(), nullptr, kMaxSplice, kFlags); }
ssize_t drain(Pipe& p, int dst) { return ::splice(p.r.get(), nullptr, dst, nullptr, p.bytes, kFlags); }
#else
// No splice(2) (macOS): the "pipe" is a user-space buffer of the same role, filled by recv() and
// emptied by send(); the flow control around it is the same (a direction with bytes left keeps it).
ssize_t fill(int src, Pipe& p) {
  if (p.buf.size() < p.off + p.bytes + kMaxSplice) p.buf.resize(p.off + p.bytes + kMaxSplice);
  return ::recv(src, p.buf.data() + p.off + p.bytes, kMaxSplice, MSG_DONTWAIT);
}
ssize_t drain(Pipe& p, int dst) {
  ssize_t n = ::send(dst, p.buf.data() + p.off, p.bytes, kNoSignal | MSG_DONTWAIT);
  // drain's caller subtracts n from bytes; the next byte to send moves on by n (reset once empty).
  if (n > 0) p.off = size_t(n) == p.bytes ? 0 : p.off + size_t(n);
  return n;
}
#endif

// Some clients and servers never read what they get sent (a refused request's body, a peer that
// stops reading). SIGPIPE never interrupts anything here: blaude's proxy thread blocks every
// signal and the relay ignores SIGPIPE, so EPIPE is an ordinary error.

}  // namespace

std::unique_ptr<Pipe> ReadScratch::take_pipe() {
  if (!free_pipes.empty()) {
    auto p = std::move(free_pipes.back());
    free_pipes.pop_back();
    return p;
  }
  auto p = std::make_unique<Pipe>();
#if BLAUDE_LINUX_CALLS
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return nullptr;
  p->r.reset(fds[0]);
  p->w.reset(fds[1]);
  // A bigger pipe moves more per splice call. Refused (over the user's pipe quota) or capped
  // by pipe-max-size: the default pipe works the same, just in smaller steps.
  if (pipe_size > 0) (void)::fcntl(fds[1], F_SETPIPE_SZ, int(pipe_size));
#endif
  return p;
}

void ReadScratch::give_pipe(std::unique_ptr<Pipe> p) {
  if (p && p->bytes == 0 && free_pipes.size() < kKeepFree) free_pipes.push_back(std::move(p));
}

Splice::Splice(uv_stream_t* a, uv_stream_t* b, ReadScratch* scratch, std::function<void(bool)> done)
    : scratch_(scratch), done_(std::move(done)) {
  ea_.self = eb_.self = this;
  uv_os_fd_t fa = -1, fb = -1;
  uv_fileno(reinterpret_cast<uv_handle_t*>(a), &fa);
  uv_fileno(reinterpret_cast<uv_handle_t*>(b), &fb);
  ea_.fd = fa;
  eb_.fd = fb;
  ab_.src = ba_.dst = &ea_;
  ab_.dst = ba_.src = &eb_;
  loop_ = a->loop;
}

Splice::~Splice() { close_polls(); }

size_t Splice::buffered() const {
  size_t n = 0;
  for (const Dir* d : {&ab_, &ba_}) n += d->first.size() - d->first_off + (d->pipe ? d->pipe->bytes : 0);
  return n;
}

void Splice::start(std::string to_b, std::string to_a) {
  ab_.first = std::move(to_b);
  ba_.first = std::move(to_a);
  for (End* e : {&ea_, &eb_}) {
    e->poll = new uv_poll_t{};
    // The stream is idle (no read, no write queued), so its own watcher is off; a stream with a
    // write still in flight would make this fail with EEXIST (no caller does that).
    if (int rc = e->fd < 0 ? UV_EBADF : uv_poll_init_socket(loop_, e->poll, e->fd); rc != 0) {
      delete e->poll;
      e->poll = nullptr;
      spdlog::warn("net: cannot watch a tunnel's socket: {}", uv_strerror(rc));
      return finish(false);
    }
    e->poll->data = e;
  }
  pump(ab_);
  if (!finished_) pump(ba_);
  if (!finished_) update();
}

void Splice::on_poll(uv_poll_t* p, int status, int events) {
  auto* e = static_cast<End*>(p->data);
  Splice* s = e->self;
  if (s->finished_) return;
  if (status < 0) return s->finish(false);
  Dir& from_e = e == &s->ea_ ? s->ab_ : s->ba_;
  Dir& to_e = e == &s->ea_ ? s->ba_ : s->ab_;
  if (events & UV_WRITABLE) s->pump(to_e);
  if (!s->finished_ && (events & UV_READABLE)) s->pump(from_e);
  if (!s->finished_) s->update();
}

// Moves what the direction can without blocking: the preamble and the pipe first, then up to
// kRounds pipe-fulls from the source. A direction left with bytes keeps its pipe (blocked).
void Splice::pump(Dir& d) {
  for (int i = 0; i < kRounds && !finished_; ++i) {
    if (!flush(d)) break;
    if (d.eof) {
      end_of(d);
      break;
    }
    if (!d.pipe && !(d.pipe = scratch_->take_pipe())) {
      spdlog::warn("net: no pipe for a tunnel: {}", std::strerror(errno));
      return finish(false);
    }
    ssize_t n = fill(d.src->fd, *d.pipe);
    if (n > 0) {
      d.pipe->bytes += size_t(n);
    } else if (n == 0) {
      d.eof = true;  // passed on below, once the pipe is empty
    } else if (errno == EAGAIN) {
      break;
    } else if (errno != EINTR) {
      return finish(false);
    }
    if (!flush(d)) break;  // never leave bytes in the pipe without waiting for dst
    if (d.eof) {
      end_of(d);
      break;
    }
  }
  if (d.pipe && d.pipe->bytes == 0) scratch_->give_pipe(std::move(d.pipe));
}

// Writes the preamble, then the pipe, to the destination. false: blocked (dst full) or failed.
bool Splice::flush(Dir& d) {
  while (d.first_off < d.first.size()) {
    ssize_t n = ::send(d.dst->fd, d.first.data() + d.first_off, d.first.size() - d.first_off,
                       kNoSignal | MSG_DONTWAIT);
    if (n > 0) {
      d.first_off += size_t(n);
    } else if (errno == EAGAIN) {
      d.blocked = true;
      return false;
    } else if (errno != EINTR) {
      finish(false);
      return false;
    }
  }
  if (!d.first.empty()) {
    std::string().swap(d.first);
    d.first_off = 0;
  }
  while (d.pipe && d.pipe->bytes > 0) {
    ssize_t n = drain(*d.pipe, d.dst->fd);
    if (n > 0) {
      d.pipe->bytes -= size_t(n);
    } else if (n < 0 && errno == EAGAIN) {
      d.blocked = true;
      return false;
    } else if (n == 0 || errno != EINTR) {
      finish(false);
      return false;
    }
  }
  d.blocked = false;
  return true;
}

// The source said EOF and everything before it was written: pass the half-close on.
void Splice::end_of(Dir& d) {
  if (d.shut) return;
  d.shut = true;
  ::shutdown(d.dst->fd, SHUT_WR);  // ENOTCONN: the peer is gone; this direction is over either way
  if (ab_.shut && ba_.shut) finish(true);
}

// What each fd is watched for: readable while its outgoing direction may read (not at EOF, not
// blocked), writable while its incoming direction is blocked on it. Nothing: the poll stops.
int Splice::wanted(const End& e) const {
  const Dir& out = &e == &ea_ ? ab_ : ba_;
  const Dir& in = &e == &ea_ ? ba_ : ab_;
  int ev = 0;
  if (!out.eof && !out.blocked) ev |= UV_READABLE;
  if (in.blocked) ev |= UV_WRITABLE;
  return ev;
}

void Splice::update() {
  for (End* e : {&ea_, &eb_}) {
    int ev = wanted(*e);
    if (ev == e->events || !e->poll) continue;
    e->events = ev;
    if (uv_poll_start(e->poll, ev, on_poll) != 0) return finish(false);
  }
}

void Splice::stop() {
  finished_ = true;
  done_ = nullptr;
  close_polls();
}

void Splice::close_polls() {
  for (End* e : {&ea_, &eb_}) {
    if (!e->poll) continue;
    uv_close(reinterpret_cast<uv_handle_t*>(e->poll), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    e->poll = nullptr;
  }
}

void Splice::finish(bool ok) {
  if (finished_) return;
  finished_ = true;
  close_polls();  // before `done`: the owner closes the streams, and with them the fds
  auto done = std::move(done_);
  if (done) done(ok);
}

}  // namespace blaude::net
