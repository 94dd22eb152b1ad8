#include "net/proxy.hpp"

#include "net/host_view.hpp"
#include "common/fd_limit.hpp"

#include <netinet/in.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "net/socks5.hpp"

namespace blaude::net {

namespace s5 = socks5;

namespace {

std::vector<Address> addresses_of(const addrinfo* res) {
  std::vector<Address> out;
  for (const addrinfo* ai = res; ai; ai = ai->ai_next) {
    Address a;
    if (ai->ai_family == AF_INET) {
      auto* sin = reinterpret_cast<const sockaddr_in*>(ai->ai_addr);
      a.family = Address::Family::V4;
      std::copy_n(reinterpret_cast<const uint8_t*>(&sin->sin_addr), 4, a.bytes.begin());
    } else if (ai->ai_family == AF_INET6) {
      auto* sin6 = reinterpret_cast<const sockaddr_in6*>(ai->ai_addr);
      a.family = Address::Family::V6;
      std::copy_n(reinterpret_cast<const uint8_t*>(&sin6->sin6_addr), 16, a.bytes.begin());
    } else {
      continue;
    }
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  return out;
}

sockaddr_storage to_sockaddr(const Address& a, uint16_t port) {
  sockaddr_storage ss{};
  if (a.v4()) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    std::copy_n(a.bytes.begin(), 4, reinterpret_cast<uint8_t*>(&sin->sin_addr));
  } else {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    std::copy_n(a.bytes.begin(), 16, reinterpret_cast<uint8_t*>(&sin6->sin6_addr));
  }
  return ss;
}

}  // namespace

// One client of the proxy, from accept to close. The states follow the protocol: read a head,
// decide on the name, resolve, decide on the addresses, connect, then splice; or answer a
// refusal, let the client read it, and close.
class ProxyConn {
public:
  explicit ProxyConn(Proxy& px, bool turnaway = false) : px_(px), turnaway_(turnaway) {}
  void start(UniqueFd fd);
  void close();
  std::list<std::unique_ptr<ProxyConn>>::iterator pos;

private:
  enum class State { Head, Greeting, SocksRequest, Resolving, Connecting, Tunnel, Answering, Closing };
  enum class Proto { Unknown, Http, Socks };

  // A connection attempt to one resolved address; its own handle, so a failed one can be
  // closed and the next address tried on a fresh socket.
  struct Attempt {
    ProxyConn* owner;
    uv_tcp_t tcp{};
    uv_connect_t req{};
    bool abandoned = false;
  };

  static void on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf);
  static void on_head(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  static void on_discard(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  static void on_timer(uv_timer_t* t);
  static void on_resolved(uv_getaddrinfo_t* req, int status, addrinfo* res);
  static void on_connect(uv_connect_t* req, int status);
  static void on_closed(uv_handle_t* h);
  static void on_attempt_closed(uv_handle_t* h);

  void process();
  void http();
  void greeting();
  void socks_request();
  void decide();
  void resolve();
  void check_addresses();
  void connect_next();
  void drop_attempt();
  void abandon_resolve();
  void tunnel();
  void refuse(const std::string& reason, const std::string& hint = "");
  void fail(int http_status, uint8_t socks_code, const std::string& reason);
  void answer(std::string bytes);
  void arm(uint64_t ms);
  uv_stream_t* client() { return reinterpret_cast<uv_stream_t*>(&client_); }
  const char* proto_name() const { return proto_ == Proto::Socks ? "SOCKS5" : http_.kind == HttpRequest::Kind::Connect ? "CONNECT" : http_.method.c_str(); }

  Proxy& px_;
  bool turnaway_;  // past the connection limit: answered with the limit, never connected
  State state_ = State::Head;
  Proto proto_ = Proto::Unknown;
  uv_pipe_t client_{};
  uv_timer_t timer_{};
  int open_ = 0;  // handles initialized and not yet closed
  std::string in_, leftover_;
  HttpRequest http_;
  Target dest_;
  std::string dest_text_;
  NameDecision name_;
  std::vector<Address> addrs_;
  size_t next_addr_ = 0;
  std::string last_error_;
  uv_getaddrinfo_t* gai_ = nullptr;
  Attempt* attempt_ = nullptr;
  std::unique_ptr<Splice> splice_;
  std::string greet_out_, answer_out_;
  uv_write_t greet_req_{}, answer_req_{};
  uv_shutdown_t shut_req_{};
};

void ProxyConn::start(UniqueFd fd) {
  uv_pipe_init(px_.loop_, &client_, 0);
  uv_timer_init(px_.loop_, &timer_);
  client_.data = this;
  timer_.data = this;
  open_ = 2;
  if (uv_pipe_open(&client_, fd.get()) != 0) return close();
  fd.release();  // the handle owns it now
  arm(px_.lim_.head_timeout_ms);
  if (uv_read_start(client(), on_alloc, on_head) != 0) close();
}

void ProxyConn::on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
  auto& s = static_cast<ProxyConn*>(h->data)->px_.scratch_;
  *buf = uv_buf_init(s.buf.data(), unsigned(s.buf.size()));
}

void ProxyConn::on_head(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
  auto* c = static_cast<ProxyConn*>(s->data);
  if (n < 0) return c->close();  // gone before it asked for anything
  if (n == 0) return;
  c->in_.append(buf->base, size_t(n));  // at most max_head + one read: parsing stops at the cap
  c->process();
}

void ProxyConn::process() {
  switch (state_) {
    case State::Head:
      if (in_.empty()) return;
      if (static_cast<uint8_t>(in_[0]) == s5::kVersion) {
        proto_ = Proto::Socks;
        state_ = State::Greeting;
        return greeting();
      }
      proto_ = Proto::Http;
      return http();
    case State::Greeting: return greeting();
    case State::SocksRequest: return socks_request();
    default: return;
  }
}

void ProxyConn::http() {
  HttpParse r = parse_http_head(in_, px_.http_lim_);
  if (std::holds_alternative<NeedMore>(r)) return;
  uv_read_stop(client());
  if (auto* e = std::get_if<HttpError>(&r)) {
    spdlog::info("net: bad request ({}): {}", e->status, e->reason);
    ++px_.stats_.failed;
    return answer(http_response(e->status, "blaude: " + e->reason));
  }
  http_ = std::get<HttpRequest>(std::move(r));
  leftover_ = in_.substr(http_.head_len);
  std::string().swap(in_);
  dest_ = Target{http_.dest.host, http_.dest.port};
  decide();
}

void ProxyConn::greeting() {
  auto g = s5::parse_greeting(in_);
  if (std::holds_alternative<NeedMore>(g)) return;
  if (auto* e = std::get_if<s5::Error>(&g)) {
    spdlog::info("net: bad SOCKS5 greeting: {}", e->reason);
    return close();
  }
  const auto& gr = std::get<s5::Greeting>(g);
  if (!gr.no_auth) {
    uv_read_stop(client());
    spdlog::info("net: SOCKS5 client offers no method blaude speaks (only \"no authentication\")");
    return answer(s5::method_reply(false));
  }
  in_.erase(0, gr.consumed);
  greet_out_ = s5::method_reply(true);
  uv_buf_t b = uv_buf_init(greet_out_.data(), unsigned(greet_out_.size()));
  if (uv_write(&greet_req_, client(), &b, 1, nullptr) != 0) return close();
  state_ = State::SocksRequest;
  socks_request();
}

void ProxyConn::socks_request() {
  auto r = s5::parse_request(in_);
  if (std::holds_alternative<NeedMore>(r)) return;
  uv_read_stop(client());
  if (auto* e = std::get_if<s5::Error>(&r)) {
    spdlog::info("net: SOCKS5 request refused: {}", e->reason);
    ++px_.stats_.failed;
    return answer(s5::reply(e->reply));
  }
  const auto& rq = std::get<s5::Request>(r);
  dest_ = Target{rq.dest.host, rq.dest.port};
  leftover_ = in_.substr(rq.consumed);
  std::string().swap(in_);
  decide();
}

void ProxyConn::decide() {
  uv_timer_stop(&timer_);
  dest_text_ = destination_text(dest_.host, dest_.port);
  if (turnaway_) {
    spdlog::info("net: {} {} turned away: the proxy has its limit of {} connections open", proto_name(), dest_text_,
                 px_.lim_.max_connections);
    if (proto_ == Proto::Socks) return answer(s5::reply(s5::kGeneralFailure));
    return answer(http_response(503, "blaude: the proxy has its limit of " + std::to_string(px_.lim_.max_connections) +
                                         " connections open; try again when some end"));
  }
  name_ = decide_name(px_.policy_, dest_);
  if (!name_.allowed) return refuse(name_.reason);
  if (dest_.host.is_ip()) {
    addrs_ = {*dest_.host.ip};
    return check_addresses();
  }
  resolve();
}

void ProxyConn::resolve() {
  state_ = State::Resolving;
  arm(px_.lim_.resolve_timeout_ms);
  gai_ = new uv_getaddrinfo_t{};
  gai_->data = this;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  int rc = uv_getaddrinfo(px_.loop_, gai_, on_resolved, dest_.host.name.c_str(), nullptr, &hints);
  if (rc != 0) {
    delete gai_;
    gai_ = nullptr;
    fail(502, s5::kHostUnreachable, "cannot resolve " + dest_.host.name + ": " + uv_strerror(rc));
  }
}

// Runs for every request, also abandoned ones (data cleared): it owns the request's memory.
void ProxyConn::on_resolved(uv_getaddrinfo_t* req, int status, addrinfo* res) {
  auto* c = static_cast<ProxyConn*>(req->data);
  std::vector<Address> found = status == 0 ? addresses_of(res) : std::vector<Address>{};
  if (res) uv_freeaddrinfo(res);
  delete req;
  if (!c) return;
  c->gai_ = nullptr;
  uv_timer_stop(&c->timer_);
  if (status != 0)
    return c->fail(502, s5::kHostUnreachable, "cannot resolve " + c->dest_.host.name + ": " + uv_strerror(status));
  c->addrs_ = std::move(found);
  c->check_addresses();
}

void ProxyConn::abandon_resolve() {
  if (!gai_) return;
  gai_->data = nullptr;
  uv_cancel(reinterpret_cast<uv_req_t*>(gai_));
  gai_ = nullptr;
}

void Proxy::refresh_host_view() {
  const uint64_t now = uv_now(loop_);
  if (host_view_ && now - host_view_ms_ < 2000) return;
  policy_.host_addresses = host_interface_addresses();
  policy_.hosts_file_names = hosts_file_names();
  host_view_ms_ = now;
  host_view_ = true;
}

void ProxyConn::check_addresses() {
  px_.refresh_host_view();
  AddressDecision d = decide_addresses(px_.policy_, dest_, name_, addrs_);
  if (!d.allowed) return refuse(d.reason, d.hint);
  connect_next();
}

void ProxyConn::connect_next() {
  if (next_addr_ >= addrs_.size())
    return fail(502, s5::kConnectionRefused, "cannot connect to " + dest_text_ + ": " + last_error_);
  state_ = State::Connecting;
  const Address& a = addrs_[next_addr_++];
  attempt_ = new Attempt{this};
  uv_tcp_init(px_.loop_, &attempt_->tcp);
  attempt_->tcp.data = attempt_;
  ++open_;
  sockaddr_storage ss = to_sockaddr(a, dest_.port);
  arm(px_.lim_.connect_timeout_ms);
  int rc = uv_tcp_connect(&attempt_->req, &attempt_->tcp, reinterpret_cast<sockaddr*>(&ss), on_connect);
  if (rc != 0) {
    last_error_ = std::string(uv_strerror(rc)) + " (" + format_address(a) + ")";
    drop_attempt();
    connect_next();
  }
}

void ProxyConn::on_connect(uv_connect_t* req, int status) {
  auto* at = static_cast<Attempt*>(req->handle->data);
  if (at->abandoned) return;  // closed by a timeout or by close(); its close callback frees it
  ProxyConn* c = at->owner;
  uv_timer_stop(&c->timer_);
  if (status != 0) {
    c->last_error_ = std::string(uv_strerror(status)) + " (" + format_address(c->addrs_[c->next_addr_ - 1]) + ")";
    c->drop_attempt();
    return c->connect_next();
  }
  c->tunnel();
}

void ProxyConn::drop_attempt() {
  if (!attempt_) return;
  attempt_->abandoned = true;
  attempt_->tcp.data = attempt_;
  uv_close(reinterpret_cast<uv_handle_t*>(&attempt_->tcp), on_attempt_closed);
  attempt_ = nullptr;
}

void ProxyConn::on_attempt_closed(uv_handle_t* h) {
  auto* at = static_cast<Attempt*>(h->data);
  ProxyConn* c = at->owner;
  delete at;
  if (--c->open_ == 0) c->px_.release(c);
}

void ProxyConn::tunnel() {
  state_ = State::Tunnel;
  ++px_.stats_.allowed;
  const Rule& rule = px_.policy_.rules[size_t(name_.rule)];
  spdlog::info("net: allowed {} {} -> {} (rule {} from {})", proto_name(), dest_text_,
               format_address(addrs_[next_addr_ - 1]), rule.pattern.text(),
               rule.source.empty() ? origin_name(rule.origin) : rule.source);
  if (px_.on_decision)
    px_.on_decision(std::string("allowed ") + proto_name() + " " + dest_text_ + " -> " +
                    format_address(addrs_[next_addr_ - 1]) + " (rule " + rule.pattern.text() + ")");
  std::string to_up = std::move(leftover_), to_client;
  if (proto_ == Proto::Socks) {
    to_client = s5::reply(s5::kSucceeded);
  } else if (http_.kind == HttpRequest::Kind::Connect) {
    to_client = "HTTP/1.1 200 Connection established\r\n\r\n";
  } else {
    to_up = http_.forward + to_up;
  }
  splice_ = std::make_unique<Splice>(client(), reinterpret_cast<uv_stream_t*>(&attempt_->tcp), &px_.scratch_,
                                     [this](bool) { close(); });
  splice_->start(std::move(to_up), std::move(to_client));
}

void ProxyConn::refuse(const std::string& reason, const std::string& hint) {
  px_.tally_.add(dest_text_);
  ++px_.stats_.refused;
  spdlog::info("net: refused {} {}: {}", proto_name(), dest_text_, reason);
  if (px_.on_decision) px_.on_decision(std::string("refused ") + proto_name() + " " + dest_text_ + ": " + reason);
  if (proto_ == Proto::Socks) return answer(s5::reply(s5::kNotAllowed));
  answer(http_response(403, "blaude: " + reason + "; allow with " + (hint.empty() ? allow_hint(dest_) : hint),
                       "blocked-by-allowlist"));
}

void ProxyConn::fail(int http_status, uint8_t socks_code, const std::string& reason) {
  ++px_.stats_.failed;
  spdlog::info("net: {} {} failed: {}", proto_name(), dest_text_, reason);
  if (proto_ == Proto::Socks) return answer(s5::reply(socks_code));
  answer(http_response(http_status, "blaude: " + reason));
}

// Writes a final answer, half-closes, and reads (discarding) until the client closes or the
// linger time ends: closing with unread input would reset the connection and could destroy the
// answer before the client read it.
void ProxyConn::answer(std::string bytes) {
  state_ = State::Answering;
  answer_out_ = std::move(bytes);
  arm(px_.lim_.linger_ms);
  uv_buf_t b = uv_buf_init(answer_out_.data(), unsigned(answer_out_.size()));
  answer_req_.data = this;
  if (uv_write(&answer_req_, client(), &b, 1, nullptr) != 0) return close();
  shut_req_.data = this;
  if (uv_shutdown(&shut_req_, client(), nullptr) != 0) return close();
  uv_read_start(client(), on_alloc, on_discard);
}

void ProxyConn::on_discard(uv_stream_t* s, ssize_t n, const uv_buf_t*) {
  if (n < 0) static_cast<ProxyConn*>(s->data)->close();
}

void ProxyConn::arm(uint64_t ms) { uv_timer_start(&timer_, on_timer, ms, 0); }

void ProxyConn::on_timer(uv_timer_t* t) {
  auto* c = static_cast<ProxyConn*>(t->data);
  switch (c->state_) {
    case State::Head:
    case State::Greeting:
    case State::SocksRequest:
      spdlog::info("net: a client sent no complete request in {} ms; closed", c->px_.lim_.head_timeout_ms);
      ++c->px_.stats_.failed;
      uv_read_stop(c->client());
      if (c->proto_ == Proto::Http) return c->answer(http_response(408, "blaude: no complete request in time"));
      return c->close();
    case State::Resolving:
      c->abandon_resolve();
      return c->fail(504, s5::kHostUnreachable, "resolving " + c->dest_.host.name + " timed out");
    case State::Connecting:
      c->last_error_ = "timed out";
      c->drop_attempt();
      return c->connect_next();
    default:
      return c->close();
  }
}

void ProxyConn::close() {
  if (state_ == State::Closing) return;
  state_ = State::Closing;
  if (splice_) splice_->stop();  // its polls watch the fds closed below
  abandon_resolve();
  client_.data = this;  // the splice pointed it at its direction
  if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&client_))) uv_close(reinterpret_cast<uv_handle_t*>(&client_), on_closed);
  if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&timer_))) uv_close(reinterpret_cast<uv_handle_t*>(&timer_), on_closed);
  drop_attempt();
}

void ProxyConn::on_closed(uv_handle_t* h) {
  auto* c = static_cast<ProxyConn*>(h->data);
  if (--c->open_ == 0) c->px_.release(c);
}

// ---------------------------------------------------------------------------------------------

Proxy::Proxy(uv_loop_t* loop, Policy policy, ProxyLimits limits)
    : loop_(loop), policy_(std::move(policy)), lim_(limits), scratch_(limits.chunk) {
  // Each connection holds up to kFdsPerConnection descriptors: the cap comes from blaude's
  // limit, raised first (its children get the one it had).
  const size_t fds = raise_fd_limit();
  const size_t cap = connection_cap(fds);
  lim_.max_connections = lim_.max_connections ? std::min(lim_.max_connections, cap) : cap;
  spdlog::info("net: up to {} connections at once ({} descriptors)", lim_.max_connections, fds);
  http_lim_.max_head = lim_.max_head;
}

Proxy::~Proxy() = default;

bool Proxy::adopt(UniqueFd fd) {
  if (closing_) return false;
  ++stats_.accepted;
  const bool over = conns_.size() >= lim_.max_connections;
  if (over) {
    ++stats_.over_limit;
    if (!std::exchange(limit_warned_, true))
      spdlog::warn("net: {} connections open; answering new ones 503 until some end", conns_.size());
    // Past the answers too: refused at once, so the client gets an error now rather than waiting.
    if (conns_.size() >= lim_.max_connections + lim_.turnaways) return false;
  }
  conns_.push_back(std::make_unique<ProxyConn>(*this, over));
  ProxyConn* c = conns_.back().get();
  c->pos = std::prev(conns_.end());
  c->start(std::move(fd));
  return true;
}

bool Proxy::allow(Rule rule) {
  const std::string text = rule.pattern.text();
  for (const Rule& r : policy_.rules)
    if (r.pattern.text() == text) return false;
  const std::optional<uint16_t> port = rule.pattern.port;
  policy_.rules.push_back(std::move(rule));
  live_.push_back(text);
  if (port && on_port) on_port(*port);
  spdlog::info("net: allowed for the rest of the session (blaude net allow): {}", text);
  if (on_decision) on_decision("added " + text + ": allowed for the rest of the session from another terminal");
  return true;
}

void Proxy::release(ProxyConn* c) {
  conns_.erase(c->pos);
  if (conns_.size() < lim_.max_connections / 2) limit_warned_ = false;
  maybe_closed();
}

void Proxy::close(std::function<void()> done) {
  closing_ = true;
  closed_ = std::move(done);
  for (auto& c : conns_) c->close();
  maybe_closed();
}

void Proxy::maybe_closed() {
  if (!closing_ || !conns_.empty() || !closed_) return;
  auto done = std::move(closed_);
  closed_ = nullptr;
  done();
}

}  // namespace blaude::net
