#include "net/publish.hpp"

#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cstring>

#include "common/pipe.hpp"
#include "common/unique_fd.hpp"
#include "net/fdpass.hpp"

namespace blaude::net {

Publisher::Publisher(uv_loop_t* loop, RelayChannel* channel, ReadScratch* scratch, size_t max_connections)
    : loop_(loop), channel_(channel), scratch_(scratch), max_(max_connections) {}

Publisher::~Publisher() = default;

int Publisher::listen(uint16_t port) {
  auto l = std::make_unique<Listener>(Listener{this, port});
  uv_tcp_init(loop_, &l->tcp);
  l->tcp.data = l.get();
  ++open_listeners_;
  sockaddr_in sa{};
  uv_ip4_addr("127.0.0.1", port, &sa);
  int rc = uv_tcp_bind(&l->tcp, reinterpret_cast<const sockaddr*>(&sa), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&l->tcp), 128, on_connection);
  listeners_.push_back(std::move(l));
  return rc;
}

void Publisher::on_connection(uv_stream_t* server, int status) {
  auto* l = static_cast<Listener*>(server->data);
  Publisher* self = l->self;
  if (status != 0 || self->closed_) return;
  Bridge* b = self->bridges_.add(self->loop_, self->scratch_);
  if (!b->accept_tcp(server)) return b->close();
  if (self->bridges_.size() > self->max_) {
    spdlog::warn("net: published port {}: too many connections; closing a new one", l->port);
    return b->close();
  }
  int sv[2];
  if (make_socketpair(AF_UNIX, SOCK_STREAM, sv, true) != 0) {
    spdlog::warn("net: published port {}: socketpair: {}", l->port, std::strerror(errno));
    return b->close();
  }
  UniqueFd theirs(sv[1]);
  if (!b->open_unix(sv[0])) {
    ::close(sv[0]);
    return b->close();
  }
  if (!self->channel_->send(ChannelKind::Published, l->port, std::move(theirs))) {
    spdlog::info("net: published port {}: the sandbox's relay is not answering", l->port);
    return b->close();
  }
  spdlog::debug("net: published port {}: a host connection goes into the sandbox", l->port);
  b->tunnel();
}

void Publisher::close(std::function<void()> done) {
  closed_ = std::move(done);
  for (auto& l : listeners_) {
    if (uv_is_closing(reinterpret_cast<uv_handle_t*>(&l->tcp))) continue;
    uv_close(reinterpret_cast<uv_handle_t*>(&l->tcp), [](uv_handle_t* h) {
      Publisher* self = static_cast<Listener*>(h->data)->self;
      --self->open_listeners_;
      self->maybe_closed();
    });
  }
  bridges_.close_all([this] {
    bridges_closed_ = true;
    maybe_closed();
  });
}

void Publisher::maybe_closed() {
  if (!closed_ || open_listeners_ || !bridges_closed_) return;
  auto d = std::move(closed_);
  closed_ = [] {};  // still "closing": no new connections
  d();
}

}  // namespace blaude::net
