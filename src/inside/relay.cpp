#include "inside/relay.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <uv.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <list>
#include <memory>
#include <unordered_map>

#include "net/bridge.hpp"
#include "net/dns.hpp"
#include "net/fdpass.hpp"
#include "net/host.hpp"

namespace blaude::inside {

using net::Bridge;
using net::BridgeSet;
using net::ReadScratch;
using net::ChannelKind;
using net::Received;
using net::receive_message;
using net::send_message;

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
    uint16_t port = 0;
  };
  // A client waiting for its connection to the proxy.
  struct Waiting {
    Bridge* b;
    std::string connect_to;
  };
  static void on_connection(uv_stream_t* server, int status);
  static void on_control(uv_poll_t* p, int status, int events);
  static void on_dns(uv_udp_t* u, ssize_t n, const uv_buf_t* buf, const sockaddr* from, unsigned flags);
  std::string captured(Bridge* b, uint16_t port);
  std::string dns_answer(std::string_view query);
  void ask(Bridge* b, const std::string& connect_to);
  void flush();
  void read_control();
  void answered(uint32_t id, UniqueFd fd);
  void connected(Bridge* b, const std::string& connect_to);
  void read_answer(Bridge* b);
  void inbound(UniqueFd fd, uint16_t port);
  void capture(uint16_t port);
  void channel_gone();
  void watch();
  bool full() const { return bridges_.size() >= cfg_.max_connections; }

  RelayConfig cfg_;
  uv_loop_t loop_{};
  ReadScratch scratch_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  uv_poll_t control_{};
  uv_udp_t dns_{};
  char dns_buf_[net::dns::kMaxMessage + 1];
  net::dns::AddressMap names_;
  int events_ = 0;
  bool gone_ = false;
  BridgeSet bridges_;
  uint32_t next_id_ = 0;
  std::unordered_map<uint32_t, Waiting> waiting_;
  std::deque<uint32_t> unsent_;  // requests the channel had no room for yet, in order
};

int Relay::run() {
  for (const RelayListener& spec : cfg_.listeners) {
    auto l = std::make_unique<Listener>(Listener{this, spec});
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(spec.fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0)
      l->port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    uv_tcp_init(&loop_, &l->tcp);
    l->tcp.data = l.get();
    if (uv_tcp_open(&l->tcp, spec.fd) != 0 ||
        uv_listen(reinterpret_cast<uv_stream_t*>(&l->tcp), 511, on_connection) != 0)
      return 1;
    listeners_.push_back(std::move(l));
  }
  if (cfg_.dns_fd >= 0) {
    uv_udp_init(&loop_, &dns_);
    dns_.data = this;
    if (uv_udp_open(&dns_, cfg_.dns_fd) != 0 ||
        uv_udp_recv_start(
            &dns_,
            [](uv_handle_t* h, size_t, uv_buf_t* buf) {
              auto* self = static_cast<Relay*>(h->data);
              *buf = uv_buf_init(self->dns_buf_, sizeof self->dns_buf_);
            },
            on_dns) != 0)
      return 1;
  }
  if (uv_poll_init(&loop_, &control_, cfg_.control_fd) != 0) return 1;
  control_.data = this;
  watch();
  return uv_run(&loop_, UV_RUN_DEFAULT);
}

void Relay::on_connection(uv_stream_t* server, int status) {
  auto* l = static_cast<Listener*>(server->data);
  Relay* self = l->self;
  if (status != 0) return;
  Bridge* b = self->bridges_.add(&self->loop_, &self->scratch_);
  // Over the limit the connection is accepted and closed: the client sees an error at once.
  if (!b->accept_tcp(server) || self->bridges_.size() > self->cfg_.max_connections) return b->close();
  if (!l->spec.capture) return self->ask(b, l->spec.connect_to);
  std::string dest = self->captured(b, l->port);
  if (dest.empty()) return b->close();
  self->ask(b, dest);
}

// The destination of a captured connection: the name its address was given for, else the
// address itself (the proxy decides on it as on any literal).
std::string Relay::captured(Bridge* b, uint16_t port) {
  sockaddr_storage ss{};
  int len = sizeof ss;
  if (uv_tcp_getsockname(reinterpret_cast<uv_tcp_t*>(b->tcp()), reinterpret_cast<sockaddr*>(&ss), &len) != 0 ||
      ss.ss_family != AF_INET)
    return "";
  const uint32_t addr = ntohl(reinterpret_cast<sockaddr_in*>(&ss)->sin_addr.s_addr);
  if (const std::string* name = names_.name_of(addr)) return *name + ":" + std::to_string(port);
  char text[INET_ADDRSTRLEN] = "";
  uv_ip4_name(reinterpret_cast<sockaddr_in*>(&ss), text, sizeof text);
  return std::string(text) + ":" + std::to_string(port);
}

// One query, one answer, nothing forwarded: A gets the name's synthetic address, AAAA and every
// other type "no data" (clients fall back to the A answer), a name the proxy would not take as a
// host name NXDOMAIN, and past the map's capacity REFUSED.
std::string Relay::dns_answer(std::string_view query) {
  namespace d = net::dns;
  auto r = d::parse_query(query);
  if (auto* e = std::get_if<d::Error>(&r)) return e->answerable ? d::encode_error(*e) : "";
  const auto& q = std::get<d::Query>(r);
  if (q.klass != d::kClassIN || q.name.empty()) return d::encode_answer(q, d::kRefused);
  auto host = net::parse_host(q.name);
  if (!std::holds_alternative<net::Host>(host) || std::get<net::Host>(host).is_ip()) return d::encode_answer(q, d::kNxDomain);
  auto addr = names_.assign(std::get<net::Host>(host).name);
  if (!addr) return d::encode_answer(q, d::kRefused);
  return d::encode_answer(q, d::kNoError, q.type == d::kTypeA ? addr : std::nullopt);
}

void Relay::on_dns(uv_udp_t* u, ssize_t n, const uv_buf_t* buf, const sockaddr* from, unsigned flags) {
  auto* self = static_cast<Relay*>(u->data);
  if (n <= 0 || !from || (flags & UV_UDP_PARTIAL)) return;  // a datagram over 512 bytes: dropped
  std::string a = self->dns_answer(std::string_view(buf->base, size_t(n)));
  if (a.empty()) return;
  uv_buf_t out = uv_buf_init(a.data(), unsigned(a.size()));
  uv_udp_try_send(u, &out, 1, from);  // a full socket drops the answer: the client asks again
}

// Asks blaude for a connection to the proxy; the client waits (unread) until the answer.
void Relay::ask(Bridge* b, const std::string& connect_to) {
  if (gone_) return b->close();
  const uint32_t id = next_id_++;
  waiting_.emplace(id, Waiting{b, connect_to});
  if (unsent_.empty()) {
    int rc = send_message(cfg_.control_fd, ChannelKind::Request, id);
    if (rc == 0) return;
    if (rc != -EAGAIN && rc != -ENOBUFS) {
      waiting_.erase(id);
      return b->close();
    }
  }
  unsent_.push_back(id);
  watch();
}

void Relay::flush() {
  while (!unsent_.empty()) {
    int rc = send_message(cfg_.control_fd, ChannelKind::Request, unsent_.front());
    if (rc == -EAGAIN || rc == -ENOBUFS) return;
    if (rc != 0) return channel_gone();
    unsent_.pop_front();
  }
}

void Relay::watch() {
  int want = gone_ ? 0 : UV_READABLE | UV_DISCONNECT | (unsent_.empty() ? 0 : UV_WRITABLE);
  if (want == events_) return;
  events_ = want;
  if (want) uv_poll_start(&control_, want, on_control);
  else uv_poll_stop(&control_);
}

// Without blaude nothing gets out: every waiting client is closed, and so is every new one.
void Relay::channel_gone() {
  gone_ = true;
  unsent_.clear();
  auto waiting = std::move(waiting_);
  waiting_.clear();
  for (auto& [id, w] : waiting) w.b->close();
  watch();
}

void Relay::answered(uint32_t id, UniqueFd fd) {
  auto it = waiting_.find(id);
  if (it == waiting_.end()) return;  // not asked for (fd, if any, closes here)
  Waiting w = std::move(it->second);
  waiting_.erase(it);
  // No descriptor: the proxy is past its limit and its answers; the client sees the close.
  if (!fd || !w.b->open_unix(fd.get())) return w.b->close();
  fd.release();
  connected(w.b, w.connect_to);
}

void Relay::connected(Bridge* b, const std::string& connect_to) {
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
  if (status < 0) return self->channel_gone();
  if (events & UV_WRITABLE) self->flush();
  if (events & UV_READABLE) self->read_control();
  else if (events & UV_DISCONNECT) return self->channel_gone();
  if (!self->gone_) self->watch();
}

void Relay::read_control() {
  for (int i = 0; i < 64; ++i) {  // bounded per wake-up; the poll comes back for more
    Received r = receive_message(cfg_.control_fd, true);
    if (r.eof) return channel_gone();
    if (r.err == -EAGAIN) return;
    if (r.err == -EPROTO) continue;
    if (r.err != 0) return channel_gone();
    if (r.kind == ChannelKind::Proxy) answered(r.value, std::move(r.fd));
    else if (r.kind == ChannelKind::Published && r.fd && r.value <= 0xffff) inbound(std::move(r.fd), uint16_t(r.value));
    else if (r.kind == ChannelKind::Capture && r.value > 0 && r.value <= 0xffff) capture(uint16_t(r.value));
  }
}

// A port added during the session (`blaude net allow name:PORT`): captured from now on, unless
// capture is off, something of the relay's listens there already, or it is a published port
// (the command's own server binds it). Without capabilities now, a port below 1024 fails here.
void Relay::capture(uint16_t port) {
  if (cfg_.dns_fd < 0) return;
  const auto& pub = cfg_.published;
  if (std::find(pub.begin(), pub.end(), port) != pub.end()) return;
  for (const auto& l : listeners_)
    if (l->port == port) return;
  auto l = std::make_unique<Listener>(Listener{this, RelayListener{-1, "", true}});
  l->port = port;
  uv_tcp_init(&loop_, &l->tcp);
  l->tcp.data = l.get();
  sockaddr_in sa{};
  uv_ip4_addr("0.0.0.0", port, &sa);
  if (uv_tcp_bind(&l->tcp, reinterpret_cast<const sockaddr*>(&sa), 0) != 0 ||
      uv_listen(reinterpret_cast<uv_stream_t*>(&l->tcp), 511, on_connection) != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&l->tcp), [](uv_handle_t* h) { delete static_cast<Listener*>(h->data); });
    l.release();
    return;
  }
  listeners_.push_back(std::move(l));
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
