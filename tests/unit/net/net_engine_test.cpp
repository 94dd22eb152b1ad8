// The proxy engine on real sockets (one libuv loop on a thread, real unix and TCP sockets, a
// real upstream server on loopback): allowed and refused CONNECT, plain HTTP and SOCKS5, the
// head cap, the head timeout and the connection limit; the relay's control channel, the only
// way to the proxy; and the control socket of `blaude net log/allow`.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <uv.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "common/unique_fd.hpp"
#include "common/fd_limit.hpp"
#include "net/fdpass.hpp"
#include "net/live_control.hpp"
#include "net/proxy.hpp"
#include "net/relay_channel.hpp"

// Proxy mode is Linux-only (macOS refuses it at decide); off Linux this only has to compile.
#ifdef __linux__
constexpr int kNoSignal = MSG_NOSIGNAL;
#else
constexpr int kNoSignal = 0;
#endif

using namespace blaude;
using namespace blaude::net;

namespace {

// A loop running on its own thread; `call` runs a function on it and waits.
class LoopThread {
public:
  LoopThread() {
    uv_loop_init(&loop_);
    uv_async_init(&loop_, &async_, [](uv_async_t* a) { static_cast<LoopThread*>(a->data)->drain(); });
    async_.data = this;
  }
  void start() { thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); }); }
  void call(std::function<void()> f) {
    std::atomic<bool> done{false};
    {
      std::lock_guard<std::mutex> g(mu_);
      q_.push_back([&] { f(); done = true; });
    }
    uv_async_send(&async_);
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void stop() {
    call([this] { uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr); });
    thread_.join();
    uv_loop_close(&loop_);
  }
  uv_loop_t* loop() { return &loop_; }

private:
  void drain() {
    std::vector<std::function<void()>> q;
    {
      std::lock_guard<std::mutex> g(mu_);
      q.swap(q_);
    }
    for (auto& f : q) f();
  }
  uv_loop_t loop_{};
  uv_async_t async_{};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::function<void()>> q_;
};

// An upstream on 127.0.0.1: echoes, or answers one HTTP request with what it received.
class Upstream {
public:
  explicit Upstream(bool http) : http_(http) {
    fd_ = UniqueFd(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
    socklen_t len = sizeof sa;
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&sa), &len);
    port = ntohs(sa.sin_port);
    ::listen(fd_.get(), 16);
    thread_ = std::thread([this] { serve(); });
  }
  ~Upstream() {
    ::shutdown(fd_.get(), SHUT_RDWR);
    thread_.join();
  }
  uint16_t port = 0;
  std::string last_request;

private:
  void serve() {
    for (;;) {
      int c = ::accept(fd_.get(), nullptr, nullptr);
      if (c < 0) return;
      char buf[65536];
      std::string got;
      for (;;) {
        ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        if (!http_) {
          ::write(c, buf, size_t(n));
          continue;
        }
        got.append(buf, size_t(n));
        if (got.find("\r\n\r\n") != std::string::npos) break;
      }
      if (http_) {
        last_request = got;
        std::string body = "hello from upstream";
        std::string r = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        ::write(c, r.data(), r.size());
      }
      ::close(c);
    }
  }
  bool http_;
  UniqueFd fd_;
  std::thread thread_;
};

void send_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, kNoSignal);
    if (n <= 0) return;
    off += size_t(n);
  }
}

// Reads until `until` appears, EOF, or the 5 s receive timeout.
std::string read_until(int fd, const std::string& until = {}) {
  std::string out;
  char buf[4096];
  for (;;) {
    if (!until.empty() && out.find(until) != std::string::npos) return out;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return out;
    out.append(buf, size_t(n));
  }
}

Policy policy(std::vector<std::string> pats) {
  Policy p;
  for (auto& s : pats) p.rules.push_back({std::get<Pattern>(parse_pattern(s)), Origin::CommandLine, "--allow-domain"});
  return p;
}

void receive_timeout(int fd) {
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

struct Fixture {
  explicit Fixture(Policy pol, ProxyLimits lim = {}) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_mt>()));
    proxy = std::make_unique<Proxy>(lt.loop(), std::move(pol), lim);
    lt.start();
  }
  ~Fixture() {
    lt.call([this] { proxy->close(); });
    lt.stop();
  }
  // A client of the proxy: one end of a socketpair, the other handed to the proxy, as the relay's
  // channel does (relay_channel.hpp). Past the limit and its answers, the proxy closes its end.
  UniqueFd dial() {
    int sv[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    UniqueFd client(sv[0]);
    receive_timeout(client.get());
    lt.call([&] { proxy->adopt(UniqueFd(sv[1])); });
    return client;
  }
  LoopThread lt;
  std::unique_ptr<Proxy> proxy;
};

}  // namespace

TEST_CASE("net engine: CONNECT allowed, then bytes both ways", "[net][engine]") {
  Upstream echo(false);
  Fixture fx(policy({"127.0.0.1:" + std::to_string(echo.port)}));
  UniqueFd c = fx.dial();
  send_all(c.get(), "CONNECT 127.0.0.1:" + std::to_string(echo.port) + " HTTP/1.1\r\n\r\nearly");
  // Bytes sent together with the head reach the upstream, after the proxy's answer.
  CHECK(read_until(c.get(), "early") == "HTTP/1.1 200 Connection established\r\n\r\nearly");
  std::string big(300000, 'x');
  std::thread w([&] { send_all(c.get(), big); });
  std::string back;
  while (back.size() < big.size()) {
    std::string part = read_until(c.get(), std::string(1, 'x'));
    if (part.empty()) break;
    back += part;
  }
  w.join();
  CHECK(back.size() == big.size());
  ::shutdown(c.get(), SHUT_WR);
  CHECK(read_until(c.get()).empty());  // the half-close went through and came back as EOF
  CHECK(fx.proxy->refusals().total() == 0);
}

TEST_CASE("net engine: refused CONNECT and HTTP get 403 naming host and flag", "[net][engine]") {
  Fixture fx(policy({"allowed.example"}));
  UniqueFd c = fx.dial();
  send_all(c.get(), "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n");
  std::string r = read_until(c.get());
  CHECK(r.starts_with("HTTP/1.1 403 Forbidden\r\n"));
  CHECK(r.ends_with("\r\n\r\nblaude: evil.example:443 is not allowed; allow with --allow-domain evil.example:443\n"));
  UniqueFd d = fx.dial();
  send_all(d.get(), "GET http://127.0.0.1:9/ HTTP/1.1\r\n\r\n");
  CHECK(read_until(d.get()).find("127.0.0.1:9 is not allowed") != std::string::npos);
  UniqueFd e = fx.dial();
  send_all(e.get(), "CONNECT evil.example:443 HTTP/1.1\r\n\r\n");
  read_until(e.get());
  CHECK(fx.proxy->refusals().summary_line() ==
        "blaude: refused 3 connections: evil.example:443 (2), 127.0.0.1:9; allow with --allow-domain");
}

TEST_CASE("net engine: plain HTTP is forwarded in origin form with Connection: close", "[net][engine]") {
  Upstream web(true);
  std::string auth = "127.0.0.1:" + std::to_string(web.port);
  Fixture fx(policy({auth}));
  UniqueFd c = fx.dial();
  send_all(c.get(), "GET http://" + auth + "/x?y HTTP/1.1\r\nHost: " + auth + "\r\nProxy-Connection: keep-alive\r\n\r\n");
  std::string r = read_until(c.get());
  CHECK(r.starts_with("HTTP/1.1 200 OK"));
  CHECK(r.ends_with("hello from upstream"));
  CHECK(web.last_request == "GET /x?y HTTP/1.1\r\nHost: " + auth + "\r\nConnection: close\r\n\r\n");
}

TEST_CASE("net engine: SOCKS5 by name, resolved on the host; refusal in protocol form", "[net][engine]") {
  Upstream echo(false);
  Fixture fx(policy({"localhost:" + std::to_string(echo.port)}));
  auto socks = [&](const std::string& host, uint16_t port) {
    UniqueFd c = fx.dial();
    std::string req{5, 1, 0};
    send_all(c.get(), req);
    std::string m = read_until(c.get(), std::string{5, 0});
    CHECK(m == std::string{5, 0});
    std::string r{5, 1, 0, 3, char(host.size())};
    r += host;
    r += char(port >> 8);
    r += char(port & 0xff);
    send_all(c.get(), r);
    std::string rep;
    char b[10];
    ssize_t n = ::read(c.get(), b, sizeof b);
    if (n > 0) rep.assign(b, size_t(n));
    return std::make_pair(std::move(c), rep);
  };
  auto [c, rep] = socks("localhost", echo.port);
  REQUIRE(rep.size() == 10);
  CHECK(rep[1] == 0);
  send_all(c.get(), "ping");
  CHECK(read_until(c.get(), "ping") == "ping");
  auto [d, rep2] = socks("localhost", uint16_t(echo.port == 1 ? 2 : 1));  // port not allowed
  REQUIRE(rep2.size() == 10);
  CHECK(rep2[1] == 2);  // connection not allowed by ruleset
}

TEST_CASE("net engine: a name resolving to loopback is refused without an explicit rule", "[net][engine]") {
  Upstream echo(false);
  Fixture fx(policy({"*"}));
  UniqueFd c = fx.dial();
  send_all(c.get(), "CONNECT localhost:" + std::to_string(echo.port) + " HTTP/1.1\r\n\r\n");
  std::string r = read_until(c.get());
  CHECK(r.starts_with("HTTP/1.1 403"));
  CHECK(r.find("localhost resolves to 127.0.0.1, a loopback address") != std::string::npos);
}

TEST_CASE("net engine: bounds: 1 MiB head, head timeout, connection limit", "[net][engine]") {
  ProxyLimits lim;
  lim.max_connections = 4;
  lim.turnaways = 1;
  // Long enough that the four stalled below still hold their slots while the two past the
  // limit are tried, on a loaded machine too.
  lim.head_timeout_ms = 2000;
  Fixture fx(policy({"*"}), lim);
  {
    UniqueFd c = fx.dial();
    std::thread w([&] { send_all(c.get(), "GET http://a.example/ HTTP/1.1\r\nX: " + std::string(1 << 20, 'a')); });
    std::string r = read_until(c.get(), "\n\n");
    ::shutdown(c.get(), SHUT_RDWR);
    w.join();
    CHECK(r.starts_with("HTTP/1.1 431 "));
  }
  {
    UniqueFd c = fx.dial();
    send_all(c.get(), "GET http://a.example/ HTTP/1.1\r\nHost: a.exa");
    auto t0 = std::chrono::steady_clock::now();
    std::string r = read_until(c.get());
    CHECK(r.starts_with("HTTP/1.1 408 "));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
  }
  // The two above are gone once their answers are read; wait until the proxy agrees.
  for (int i = 0; i < 500; ++i) {
    size_t n = 1;
    fx.lt.call([&] { n = fx.proxy->connections(); });
    if (n == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<UniqueFd> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(fx.dial());
    send_all(held.back().get(), "G");  // a stall half-way, holding a slot
  }
  for (int i = 0; i < 200; ++i) {
    size_t n = 0;
    fx.lt.call([&] { n = fx.proxy->connections(); });
    if (n == 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Past the limit: one more is read as far as its request and answered 503 (held open here,
  // so that the next one finds the answers' allowance used up too)...
  UniqueFd extra = fx.dial();
  send_all(extra.get(), "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n");
  const std::string turned = read_until(extra.get());
  CHECK(turned.starts_with("HTTP/1.1 503 "));
  CHECK(turned.find("the proxy has its limit of 4 connections open") != std::string::npos);
  // ... and past those, closed at once, not queued.
  UniqueFd extra2 = fx.dial();
  char b;
  CHECK(::read(extra2.get(), &b, 1) == 0);
  size_t over = 0;
  fx.lt.call([&] { over = fx.proxy->stats().over_limit; });
  CHECK(over == 2);
  for (auto& h : held) CHECK(read_until(h.get()).starts_with("HTTP/1.1 408 "));  // and they time out
}

TEST_CASE("net: the connection cap comes from the descriptor limit", "[net]") {
  CHECK(connection_cap(1024) == (1024 - 256) / kFdsPerConnection);
  CHECK(connection_cap(1024) * kFdsPerConnection + 256 <= 1024);
  CHECK(connection_cap(100) == 16);
  CHECK(connection_cap(size_t(1) << 20) == 4096);
}

namespace {

// The relay's side of the channel: asks, and waits (up to 5 s) for the answer.
Received await_message(int sock) {
  for (int i = 0; i < 500; ++i) {
    Received r = receive_message(sock, true);
    if (r.err != -EAGAIN) return r;
    pollfd p{sock, POLLIN, 0};
    ::poll(&p, 1, 10);
  }
  Received r;
  r.err = -ETIMEDOUT;
  return r;
}

struct ChannelFixture {
  explicit ChannelFixture(Policy pol, ProxyLimits lim = {}) : fx(std::move(pol), lim) {
    REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
    fx.lt.call([&] {
      channel = std::make_unique<RelayChannel>(fx.lt.loop(), sv[0], fx.proxy.get());
      REQUIRE(channel->start() == 0);
    });
  }
  ~ChannelFixture() {
    fx.lt.call([&] { channel->close({}); });
    ::close(sv[0]);
    ::close(sv[1]);
  }
  Fixture fx;
  int sv[2] = {-1, -1};
  std::unique_ptr<RelayChannel> channel;
};

}  // namespace

TEST_CASE("net channel: the relay asks, blaude answers with a connection to the proxy", "[net][engine]") {
  Upstream echo(false);
  ChannelFixture ch(policy({"127.0.0.1:" + std::to_string(echo.port)}));
  const int relay = ch.sv[1];
  REQUIRE(send_message(relay, ChannelKind::Request, 7) == 0);
  REQUIRE(send_message(relay, ChannelKind::Request, 0xfffffffe) == 0);
  Received a = await_message(relay), b = await_message(relay);
  REQUIRE(a.err == 0);
  REQUIRE(b.err == 0);
  CHECK(a.kind == ChannelKind::Proxy);
  CHECK(a.value == 7);  // answered in order, each with the id it was asked with
  CHECK(b.value == 0xfffffffe);
  REQUIRE(a.fd);
  REQUIRE(b.fd);
  receive_timeout(a.fd.get());
  send_all(a.fd.get(), "CONNECT 127.0.0.1:" + std::to_string(echo.port) + " HTTP/1.1\r\n\r\nping");
  CHECK(read_until(a.fd.get(), "ping") == "HTTP/1.1 200 Connection established\r\n\r\nping");
  receive_timeout(b.fd.get());
  send_all(b.fd.get(), "CONNECT evil.example:443 HTTP/1.1\r\n\r\n");
  CHECK(read_until(b.fd.get()).starts_with("HTTP/1.1 403 "));
}

TEST_CASE("net channel: malformed messages are skipped, past the limit the answer has no connection", "[net][engine]") {
  ProxyLimits lim;
  lim.max_connections = 1;
  lim.turnaways = 0;
  ChannelFixture ch(policy({"*"}), lim);
  const int relay = ch.sv[1];
  // Not a request (blaude only answers requests), and a request of the wrong length.
  REQUIRE(send_message(relay, ChannelKind::Proxy, 1) == 0);
  REQUIRE(::send(relay, "R\0\0\0", 4, 0) == 4);
  // A request carrying a descriptor is malformed too (the relay never sends one): skipped, and the
  // descriptor is not kept by blaude (it reads the channel with no room for one): its peer sees
  // EOF once ours is closed too.
  int sp[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
  REQUIRE(send_message(relay, ChannelKind::Request, 5, sp[1]) == 0);
  ::close(sp[1]);
  REQUIRE(send_message(relay, ChannelKind::Request, 1) == 0);
  Received first = await_message(relay);
  REQUIRE(first.err == 0);
  CHECK(first.value == 1);  // the three malformed ones got no answer
  CHECK(first.fd);
  char c;
  ::fcntl(sp[0], F_SETFL, O_NONBLOCK);
  CHECK(::read(sp[0], &c, 1) == 0);  // the descriptor sent along was closed: EOF here
  ::close(sp[0]);
  // The proxy holds one connection (first, stalled); the next request is answered without one.
  REQUIRE(send_message(relay, ChannelKind::Request, 2) == 0);
  Received second = await_message(relay);
  REQUIRE(second.err == 0);
  CHECK(second.kind == ChannelKind::Proxy);
  CHECK(second.value == 2);
  CHECK_FALSE(second.fd);
  size_t over = 0;
  ch.fx.lt.call([&] { over = ch.fx.proxy->stats().over_limit; });
  CHECK(over == 1);
}

namespace {

UniqueFd control_client(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  REQUIRE(::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  receive_timeout(fd.get());
  return fd;
}

// One request (bytes as they are) and the first line of the answer, or "closed".
std::string ask_control(const std::string& path, const std::string& bytes) {
  UniqueFd fd = control_client(path);
  send_all(fd.get(), bytes);
  std::string got = read_until(fd.get(), "\n");
  return got.empty() ? "closed" : got.substr(0, got.find('\n'));
}

}  // namespace

TEST_CASE("net live: the control socket: strict requests, one a connection, decisions to log clients", "[net][engine]") {
  Fixture fx(policy({"allowed.example:443"}));
  char tmpl[] = "/tmp/blaude-live-test.XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, path = dir + "/net-1.sock";
  auto live = std::make_unique<LiveControl>(fx.lt.loop(), fx.proxy.get());
  int rc = -1;
  fx.lt.call([&] {
    rc = live->listen(path);
    LiveControl* l = live.get();
    fx.proxy->on_decision = [l](const std::string& line) { l->event(line); };
  });
  REQUIRE(rc == 0);
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  // A log client; what it sends after `log` is not a request.
  UniqueFd log = control_client(path);
  send_all(log.get(), "log\nallow after-log.example\n");
  CHECK(read_until(log.get(), "\n").starts_with("ok: refusals (and allowed connections) of blaude session "));

  // Malformed requests: an error each, and nothing changes.
  CHECK(ask_control(path, "frob\x1b[2J\n") == "error: unknown request: frob\\e[2J");
  CHECK(ask_control(path, "allow a.example b.example\n") == "error: one pattern per request: a.example b.example");
  CHECK(ask_control(path, "allow http://x/\n") ==
        "error: allow \"http://x/\": it is a URL, not a host (drop the scheme: write x)");
  CHECK(ask_control(path, std::string(5000, 'a')) == "error: request too long");
  CHECK(ask_control(path, "\n") == "error: unknown request: ");
  // Two requests in one connection: only the first.
  CHECK(ask_control(path, "allow first.example\nallow second.example\n") == "ok: allowed first.example for blaude session " +
                                                                               std::to_string(::getpid()));
  CHECK(ask_control(path, "allow First.Example\n").starts_with("ok: already allowed first.example"));
  std::vector<std::string> added;
  fx.lt.call([&] { added = fx.proxy->allowed_live(); });
  CHECK(added == std::vector<std::string>{"first.example"});

  // The log client saw the addition, then sees a refusal as it happens.
  CHECK(read_until(log.get(), "\n") == "added first.example: allowed for the rest of the session from another terminal\n");
  UniqueFd c = fx.dial();
  send_all(c.get(), "CONNECT refused.example:443 HTTP/1.1\r\n\r\n");
  CHECK(read_until(c.get(), "\r\n\r\n").starts_with("HTTP/1.1 403"));
  const std::string refused = read_until(log.get(), "\n");
  CHECK(refused.starts_with("refused CONNECT refused.example:443: "));
  CHECK(refused.find('\x1b') == std::string::npos);

  // Closing removes the socket and ends the log client's stream.
  std::atomic<bool> closed{false};
  fx.lt.call([&] { live->close([&] { closed = true; }); });
  for (int i = 0; i < 5000 && !closed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(closed);
  CHECK(::access(path.c_str(), F_OK) != 0);
  char b;
  CHECK(::read(log.get(), &b, 1) == 0);
  fx.lt.call([&] {
    fx.proxy->on_decision = nullptr;
    live.reset();
  });
  ::rmdir(dir.c_str());
}

TEST_CASE("net live: a control client that sends no request is closed in time", "[net][engine]") {
  Fixture fx(policy({}));
  char tmpl[] = "/tmp/blaude-live-test.XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, path = dir + "/net-1.sock";
  auto live = std::make_unique<LiveControl>(fx.lt.loop(), fx.proxy.get(), 100);
  int rc = -1;
  fx.lt.call([&] { rc = live->listen(path); });
  REQUIRE(rc == 0);
  UniqueFd idle = control_client(path);
  const auto t0 = std::chrono::steady_clock::now();
  char b;
  CHECK(::read(idle.get(), &b, 1) == 0);  // closed, not the 5 s receive timeout
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
  // Control: a client that asks in time is answered.
  CHECK(ask_control(path, "allow in-time.example\n").starts_with("ok: allowed in-time.example"));
  std::atomic<bool> closed{false};
  fx.lt.call([&] { live->close([&] { closed = true; }); });
  for (int i = 0; i < 5000 && !closed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(closed);
  fx.lt.call([&] { live.reset(); });
  ::rmdir(dir.c_str());
}
