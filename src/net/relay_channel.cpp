#include "net/relay_channel.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/pipe.hpp"
#include "net/proxy.hpp"

namespace blaude::net {

RelayChannel::RelayChannel(uv_loop_t* loop, int control, Proxy* proxy, size_t max_queued)
    : loop_(loop), control_(control), proxy_(proxy), max_queued_(max_queued) {}

int RelayChannel::start() {
  int rc = uv_poll_init(loop_, &poll_, control_);
  if (rc != 0) return rc;
  poll_.data = this;
  started_ = true;
  watch();
  return 0;
}

void RelayChannel::watch() {
  if (!started_ || closed_) return;
  int want = gone_ ? 0 : UV_READABLE | (queue_.empty() ? 0 : UV_WRITABLE);
  if (want == events_) return;
  events_ = want;
  if (want) uv_poll_start(&poll_, want, on_event);
  else uv_poll_stop(&poll_);
}

void RelayChannel::on_event(uv_poll_t* p, int status, int events) {
  auto* self = static_cast<RelayChannel*>(p->data);
  if (status < 0) {
    spdlog::info("net: the relay's control channel: {}", uv_strerror(status));
    self->gone_ = true;
    self->queue_.clear();
    return self->watch();
  }
  if (events & UV_WRITABLE) self->flush();
  if (events & UV_READABLE) self->read_requests();
  self->watch();
}

void RelayChannel::read_requests() {
  for (int i = 0; i < 64 && !gone_; ++i) {  // bounded per wake-up; the poll comes back for more
    Received r = receive_message(control_, false);
    if (r.err == -EAGAIN) return;
    if (r.eof) {
      spdlog::info("net: the relay closed its control channel");
      gone_ = true;
      queue_.clear();
      return;
    }
    if (r.err == -EPROTO || (r.err == 0 && r.kind != ChannelKind::Request)) {
      spdlog::warn("net: a malformed message on the relay's control channel; ignored");
      continue;
    }
    if (r.err != 0) {
      spdlog::info("net: the relay's control channel: {}", std::strerror(-r.err));
      gone_ = true;
      queue_.clear();
      return;
    }
    ++requests_;
    answer(r.value);
  }
}

void RelayChannel::answer(uint32_t id) {
  int sv[2];
  // Blocking as made: libuv makes its own end non-blocking, and the relay's libuv the other.
  if (make_socketpair(AF_UNIX, SOCK_STREAM, sv) != 0) {
    spdlog::warn("net: a connection for the relay: socketpair: {}", std::strerror(errno));
    send(ChannelKind::Proxy, id, {});  // refused: the relay closes its client at once
    return;
  }
  UniqueFd ours(sv[0]), theirs(sv[1]);
  if (!proxy_ || !proxy_->adopt(std::move(ours))) theirs.reset();
  send(ChannelKind::Proxy, id, std::move(theirs));
}

bool RelayChannel::send(ChannelKind kind, uint32_t value, UniqueFd fd) {
  if (gone_ || closed_) return false;
  if (queue_.empty()) {
    int rc = send_message(control_, kind, value, fd.get());
    if (rc == 0) return true;
    if (rc != -EAGAIN && rc != -ENOBUFS) {
      spdlog::info("net: the relay's control channel: {}", std::strerror(-rc));
      gone_ = true;
      watch();
      return false;
    }
  }
  if (queue_.size() >= max_queued_) {
    spdlog::warn("net: the relay is not reading its control channel; a connection is dropped");
    return false;
  }
  queue_.push_back({kind, value, std::move(fd)});
  watch();
  return true;
}

void RelayChannel::flush() {
  while (!queue_.empty()) {
    Pending& p = queue_.front();
    int rc = send_message(control_, p.kind, p.value, p.fd.get());
    if (rc == -EAGAIN || rc == -ENOBUFS) return;
    if (rc != 0) {
      spdlog::info("net: the relay's control channel: {}", std::strerror(-rc));
      gone_ = true;
      queue_.clear();
      return;
    }
    queue_.pop_front();
  }
}

void RelayChannel::close(std::function<void()> done) {
  queue_.clear();
  if (!started_ || closed_) {
    closed_ = true;
    if (done) done();
    return;
  }
  closed_ = true;
  auto* d = new std::function<void()>(std::move(done));
  poll_.data = d;
  uv_close(reinterpret_cast<uv_handle_t*>(&poll_), [](uv_handle_t* h) {
    auto* f = static_cast<std::function<void()>*>(h->data);
    if (*f) (*f)();
    delete f;
  });
}

}  // namespace blaude::net
