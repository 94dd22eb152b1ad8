#include "net/live_control.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/live.hpp"
#include "net/pattern.hpp"
#include "net/proxy.hpp"

namespace blaude::net {

namespace {

constexpr size_t kMaxLine = 4096;
constexpr size_t kMaxBacklog = 1 << 20;  // a `log` client this far behind is dropped
constexpr size_t kMaxClients = 32;       // connections at once; more are closed unanswered

// The same user, and not inside a sandbox: a process in a user namespace other than blaude's
// (every bwrap sandbox has its own) is refused even with the same uid.
bool trusted_peer(int fd, std::string& who) {
#ifndef __linux__
  // The peer's credentials and user namespace are read the Linux way only: elsewhere none is trusted.
  (void)fd;
  who = "peer credentials are checked on Linux only";
  return false;
#else
  ucred cr{};
  socklen_t len = sizeof cr;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0) {
    who = std::string("no peer credentials: ") + std::strerror(errno);
    return false;
  }
  who = "pid " + std::to_string(cr.pid) + " uid " + std::to_string(cr.uid);
  if (cr.uid != ::getuid()) return false;
  struct stat mine{}, theirs{};
  const std::string ns = "/proc/" + std::to_string(cr.pid) + "/ns/user";
  if (::stat("/proc/self/ns/user", &mine) != 0 || ::stat(ns.c_str(), &theirs) != 0) {
    who += " (its user namespace is unknown)";
    return false;
  }
  if (mine.st_ino != theirs.st_ino || mine.st_dev != theirs.st_dev) {
    who += " (in another user namespace: a sandbox)";
    return false;
  }
  return true;
#endif
}

}  // namespace

struct LiveControl::Client {
  LiveControl* self;
  uv_pipe_t pipe{};
  std::string in;
  uint64_t since = 0;  // uv_now at accept
  bool log = false, answered = false, closing = false;
  std::list<std::unique_ptr<Client>>::iterator pos;
};

LiveControl::LiveControl(uv_loop_t* loop, Proxy* proxy, uint64_t request_ms)
    : loop_(loop), proxy_(proxy), request_ms_(request_ms) {}

LiveControl::~LiveControl() = default;

int LiveControl::listen(const std::string& path) {
  path_ = path;
  int rc = uv_pipe_init(loop_, &listener_, 0);
  if (rc != 0) return rc;
  listener_.data = this;
  listener_open_ = true;
  ::unlink(path.c_str());  // a session that is gone left it (its pid is ours now, so it is gone)
  rc = uv_pipe_bind(&listener_, path.c_str());
  if (rc == 0 && ::chmod(path.c_str(), 0600) != 0) rc = uv_translate_sys_error(errno);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&listener_), 16, on_connection);
  if (rc == 0) rc = uv_timer_init(loop_, &tick_);
  if (rc == 0) {
    tick_open_ = true;
    tick_.data = this;
    const uint64_t every = std::max<uint64_t>(request_ms_ / 4, 10);
    rc = uv_timer_start(&tick_, on_tick, every, every);
    // Only clients keep the session's loop busy, not this timer.
    uv_unref(reinterpret_cast<uv_handle_t*>(&tick_));
  }
  if (rc == 0) listening_ = true;
  return rc;
}

void LiveControl::on_connection(uv_stream_t* server, int status) {
  auto* self = static_cast<LiveControl*>(server->data);
  if (status != 0 || self->closing_) return;
  if (self->clients_.size() >= kMaxClients) {
    // Accepted only to be closed: left in the backlog, it would be accepted again at once.
    uv_pipe_t* extra = new uv_pipe_t{};
    uv_pipe_init(self->loop_, extra, 0);
    uv_accept(server, reinterpret_cast<uv_stream_t*>(extra));
    uv_close(reinterpret_cast<uv_handle_t*>(extra), [](uv_handle_t* h) { delete reinterpret_cast<uv_pipe_t*>(h); });
    spdlog::warn("net: control socket: {} clients already; one more closed", kMaxClients);
    return;
  }
  self->clients_.push_back(std::make_unique<Client>());
  Client* c = self->clients_.back().get();
  c->self = self;
  c->since = uv_now(self->loop_);
  c->pos = std::prev(self->clients_.end());
  uv_pipe_init(self->loop_, &c->pipe, 0);
  c->pipe.data = c;
  if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&c->pipe)) != 0) return self->drop(c);
  uv_os_fd_t fd = -1;
  uv_fileno(reinterpret_cast<uv_handle_t*>(&c->pipe), &fd);
  std::string who;
  if (!trusted_peer(fd, who)) {
    spdlog::warn("net: control socket: refused a client: {}", who);
    return self->drop(c);
  }
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(&c->pipe),
      [](uv_handle_t*, size_t, uv_buf_t* buf) {
        static char tmp[kMaxLine];
        *buf = uv_buf_init(tmp, sizeof tmp);
      },
      [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
        auto* c = static_cast<Client*>(s->data);
        if (n < 0) return c->self->drop(c);
        if (c->answered) return;  // one request per connection; a `log` client only listens
        c->in.append(buf->base, size_t(n));
        size_t nl = c->in.find('\n');
        if (nl == std::string::npos) {
          if (c->in.size() > kMaxLine) {
            c->answered = true;
            std::string().swap(c->in);
            c->self->send(c, "error: request too long\n", true);
          }
          return;
        }
        std::string line = c->in.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::string().swap(c->in);
        // Still read (and ignore) after the answer: a `log` client's end shows as EOF.
        c->answered = true;
        c->self->handle(c, line);
      });
}

void LiveControl::on_tick(uv_timer_t* t) {
  auto* self = static_cast<LiveControl*>(t->data);
  const uint64_t now = uv_now(self->loop_);
  for (auto& c : self->clients_)
    if (!c->answered && !c->closing && now - c->since >= self->request_ms_) {
      spdlog::info("net: control socket: a client sent no request in {} ms; closed", self->request_ms_);
      self->drop(c.get());
    }
}

void LiveControl::handle(Client* c, const std::string& line) {
  auto req = parse_live_request(line);
  if (auto* e = std::get_if<std::string>(&req)) {
    spdlog::info("net: control socket: a malformed request: {}", live_line(*e));
    return send(c, "error: " + live_line(*e) + "\n", true);
  }
  const LiveRequest& r = std::get<LiveRequest>(req);
  if (r.kind == LiveRequest::Kind::Log) {
    c->log = true;
    spdlog::info("net: control socket: a client follows the decisions");
    return send(c, "ok: refusals (and allowed connections) of blaude session " + std::to_string(::getpid()) + " follow\n",
                false);
  }
  auto p = parse_pattern(r.pattern);
  if (auto* e = std::get_if<PatternError>(&p)) {
    spdlog::info("net: control socket: refused an invalid pattern: {}", live_line(r.pattern));
    return send(c, live_line("error: allow " + pattern_error_text(r.pattern, *e)) + "\n", true);
  }
  const std::string text = std::get<Pattern>(p).text();
  bool added = proxy_->allow(Rule{std::get<Pattern>(std::move(p)), Origin::Live, "blaude net allow"});
  send(c, std::string(added ? "ok: allowed " : "ok: already allowed ") + text + " for blaude session " +
              std::to_string(::getpid()) + "\n",
       true);
}

void LiveControl::send(Client* c, std::string text, bool then_close) {
  if (c->closing) return;
  struct Req {
    uv_write_t w{};
    std::string text;
    Client* c;
    bool close;
  };
  auto* req = new Req{{}, std::move(text), c, then_close};
  req->w.data = req;
  uv_buf_t b = uv_buf_init(req->text.data(), unsigned(req->text.size()));
  int rc = uv_write(&req->w, reinterpret_cast<uv_stream_t*>(&c->pipe), &b, 1, [](uv_write_t* w, int status) {
    auto* r = static_cast<Req*>(w->data);
    Client* c = r->c;
    bool close = r->close || status != 0;
    delete r;
    if (close && status != UV_ECANCELED) c->self->drop(c);
  });
  if (rc != 0) {
    delete req;
    drop(c);
  }
}

void LiveControl::event(const std::string& raw) {
  if (log_clients() == 0) return;
  const std::string line = live_line(raw);
  for (auto& c : clients_) {
    if (!c->log || c->closing) continue;
    if (uv_stream_get_write_queue_size(reinterpret_cast<uv_stream_t*>(&c->pipe)) > kMaxBacklog) {
      spdlog::info("net: control socket: a log client is too far behind; dropped");
      drop(c.get());
      continue;
    }
    send(c.get(), line + "\n", false);
  }
}

size_t LiveControl::log_clients() const {
  size_t n = 0;
  for (const auto& c : clients_) n += c->log && !c->closing;
  return n;
}

void LiveControl::drop(Client* c) {
  if (c->closing) return;
  c->closing = true;
  uv_close(reinterpret_cast<uv_handle_t*>(&c->pipe), [](uv_handle_t* h) {
    auto* c = static_cast<Client*>(h->data);
    LiveControl* self = c->self;
    self->clients_.erase(c->pos);
    self->maybe_closed();
  });
}

void LiveControl::close(std::function<void()> done) {
  closing_ = true;
  closed_ = std::move(done);
  if (listening_ || listener_open_) ::unlink(path_.c_str());
  if (listener_open_ && !uv_is_closing(reinterpret_cast<uv_handle_t*>(&listener_))) {
    uv_close(reinterpret_cast<uv_handle_t*>(&listener_), [](uv_handle_t* h) {
      auto* self = static_cast<LiveControl*>(h->data);
      self->listener_open_ = false;
      self->maybe_closed();
    });
  }
  if (tick_open_ && !uv_is_closing(reinterpret_cast<uv_handle_t*>(&tick_))) {
    uv_close(reinterpret_cast<uv_handle_t*>(&tick_), [](uv_handle_t* h) {
      auto* self = static_cast<LiveControl*>(h->data);
      self->tick_open_ = false;
      self->maybe_closed();
    });
  }
  for (auto& c : clients_) drop(c.get());
  maybe_closed();
}

void LiveControl::maybe_closed() {
  if (!closing_ || listener_open_ || tick_open_ || !clients_.empty() || !closed_) return;
  auto d = std::move(closed_);
  closed_ = nullptr;
  d();
}

}  // namespace blaude::net
