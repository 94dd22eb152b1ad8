#include "inside/relay.hpp"

#include <netinet/in.h>
#include <uv.h>

#include <algorithm>
#include <list>
#include <memory>

#include "net/bridge.hpp"
#include "net/fdpass.hpp"

namespace blaude::inside {

using net::Bridge;
using net::BridgeSet;
using net::ReadScratch;
using net::Received;
using net::receive_connection;

namespace {

constexpr size_t kMaxAnswer = 4096;

class Relay {
public:
  explicit Relay(const RelayConfig& cfg) : cfg_(cfg) { uv_loop_init(&loop_); }
  int run();

private:
  struct Listener {
    Relay* self;
    RelayListener spec;
    uv_tcp_t tcp{};
  };
  static void on_connection(uv_stream_t* server, int status);
  static void on_control(uv_poll_t* p, int status, int events);
  void outbound(Bridge* b, const std::string& connect_to);
  void read_answer(Bridge* b);
  void inbound(UniqueFd fd, uint16_t port);
  bool full() const { return bridges_.size() >= cfg_.max_connections; }

  RelayConfig cfg_;
  uv_loop_t loop_{};
  ReadScratch scratch_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  uv_poll_t control_{};
  BridgeSet bridges_;
};

int Relay::run() {
  for (const RelayListener& spec : cfg_.listeners) {
    auto l = std::make_unique<Listener>(Listener{this, spec});
    uv_tcp_init(&loop_, &l->tcp);
    l->tcp.data = l.get();
    if (uv_tcp_open(&l->tcp, spec.fd) != 0 ||
        uv_listen(reinterpret_cast<uv_stream_t*>(&l->tcp), 511, on_connection) != 0)
      return 1;
    listeners_.push_back(std::move(l));
  }
  if (cfg_.control_fd >= 0) {
    uv_poll_init(&loop_, &control_, cfg_.control_fd);
    control_.data = this;
    uv_poll_start(&control_, UV_READABLE | UV_DISCONNECT, on_control);
  }
  return uv_run(&loop_, UV_RUN_DEFAULT);
}

void Relay::on_connection(uv_stream_t* server, int status) {
  auto* l = static_cast<Listener*>(server->data);
  Relay* self = l->self;
  if (status != 0) return;
  Bridge* b = self->bridges_.add(&self->loop_, &self->scratch_);
  // Over the limit the connection is accepted and closed: the client sees an error at once.
  if (!b->accept_tcp(server) || self->bridges_.size() > self->cfg_.max_connections) return b->close();
  self->outbound(b, l->spec.connect_to);
}

void Relay::outbound(Bridge* b, const std::string& connect_to) {
  b->connect_unix(cfg_.proxy_socket, [this, b, connect_to](bool ok) {
    if (!ok) return b->close();
    if (connect_to.empty()) return b->tunnel();
    // A forwarded port: ask the proxy for the tunnel, then splice what follows its answer.
    struct Req {
      uv_write_t w{};
      std::string text;
    };
    auto* req = new Req{};
    req->text = "CONNECT " + connect_to + " HTTP/1.1\r\nHost: " + connect_to + "\r\n\r\n";
    req->w.data = req;
    uv_buf_t buf = uv_buf_init(req->text.data(), unsigned(req->text.size()));
    if (uv_write(&req->w, b->unix_stream(), &buf, 1, [](uv_write_t* w, int) { delete static_cast<Req*>(w->data); }) != 0) {
      delete req;
      return b->close();
    }
    read_answer(b);
  });
}

// Reads the proxy's answer to CONNECT (bounded); 200 → splice, anything else → close.
void Relay::read_answer(Bridge* b) {
  b->unix_stream()->data = b;
  uv_read_start(
      b->unix_stream(),
      [](uv_handle_t*, size_t, uv_buf_t* buf) {
        static char tmp[kMaxAnswer];
        *buf = uv_buf_init(tmp, sizeof tmp);
      },
      [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
        auto* b = static_cast<Bridge*>(s->data);
        if (n < 0) return b->close();
        b->scratch_text.append(buf->base, size_t(n));
        size_t end = b->scratch_text.find("\r\n\r\n");
        if (end == std::string::npos) {
          if (b->scratch_text.size() > kMaxAnswer) b->close();
          return;
        }
        uv_read_stop(s);
        const std::string& a = b->scratch_text;
        if (!(a.starts_with("HTTP/1.1 200") || a.starts_with("HTTP/1.0 200"))) return b->close();
        std::string rest = a.substr(end + 4);
        b->scratch_text.clear();
        b->tunnel({}, std::move(rest));
      });
}

void Relay::on_control(uv_poll_t* p, int status, int events) {
  auto* self = static_cast<Relay*>(p->data);
  if (status < 0) return void(uv_poll_stop(p));
  if (!(events & UV_READABLE) && (events & UV_DISCONNECT)) return void(uv_poll_stop(p));
  for (int i = 0; i < 64; ++i) {  // bounded per wakeup
    Received r = receive_connection(self->cfg_.control_fd);
    if (r.eof) return void(uv_poll_stop(p));
    if (r.err == -EAGAIN) return;
    if (!r.fd) continue;
    self->inbound(std::move(r.fd), r.port);
  }
}

void Relay::inbound(UniqueFd fd, uint16_t port) {
  auto& pub = cfg_.published;
  if (std::find(pub.begin(), pub.end(), port) == pub.end() || full()) return;
  Bridge* b = bridges_.add(&loop_, &scratch_);
  if (!b->open_unix(fd.get())) return b->close();
  fd.release();
  sockaddr_in sa{};
  uv_ip4_addr("127.0.0.1", port, &sa);
  b->connect_tcp(reinterpret_cast<const sockaddr*>(&sa), [b](bool ok) {
    if (!ok) return b->close();
    b->tunnel();
  });
}

}  // namespace

int run_relay(const RelayConfig& cfg) {
  // Heap, never freed: the relay lives as long as the sandbox, and its loop owns every handle.
  auto* r = new Relay(cfg);
  return r->run();
}

}  // namespace blaude::inside
