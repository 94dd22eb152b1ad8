// netbench: the egress proxy benchmark's server and clients (bench/net_bench.sh drives it).
//   netbench serve PORTFILE            HTTP on 127.0.0.1 (a free port, written to PORTFILE):
//                                      GET /bytes/N answers N bytes, anything else "ok"
//   netbench latency HOST PORT N [PROXY_PORT]
//                                      N requests, each on a new connection (through the HTTP
//                                      proxy at 127.0.0.1:PROXY_PORT when given): prints the
//                                      p50/p90/p99 time from connect() to the first answer byte;
//                                      without a proxy, HOST is looked up for each connection
//                                      (transparent capture: the relay's DNS, then its capture)
//   netbench bulk HOST PORT BYTES [PROXY_PORT]
//                                      one download of BYTES, prints MiB/s
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using clk = std::chrono::steady_clock;

bool write_all(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

void serve_one(int c) {
  std::string head;
  char buf[8192];
  while (head.find("\r\n\r\n") == std::string::npos) {
    ssize_t n = ::read(c, buf, sizeof buf);
    if (n <= 0) return (void)::close(c);
    head.append(buf, size_t(n));
  }
  unsigned long long size = 2;
  size_t k = head.find(" /bytes/");
  if (k != std::string::npos) size = std::strtoull(head.c_str() + k + 8, nullptr, 10);
  std::string h = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) + "\r\nConnection: close\r\n\r\n";
  if (k == std::string::npos) h += "ok";
  if (!write_all(c, h.data(), h.size())) return (void)::close(c);
  if (k != std::string::npos) {
    static std::vector<char> chunk(1 << 20, 'x');
    while (size) {
      size_t n = size_t(std::min<unsigned long long>(size, chunk.size()));
      if (!write_all(c, chunk.data(), n)) break;
      size -= n;
    }
  }
  ::shutdown(c, SHUT_WR);
  while (::read(c, buf, sizeof buf) > 0) {
  }
  ::close(c);
}

int serve(const char* portfile) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(s, 512) != 0) return 1;
  socklen_t len = sizeof sa;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&sa), &len);
  std::string tmp = std::string(portfile) + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  std::fprintf(f, "%d\n", ntohs(sa.sin_port));
  std::fclose(f);
  std::rename(tmp.c_str(), portfile);
  for (;;) {
    int c = ::accept4(s, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    std::thread(serve_one, c).detach();
  }
}

// `host` "" is 127.0.0.1; a name is looked up each time (in proxy mode's capture, the relay's DNS
// answers it with a synthetic address whose connections the relay captures).
int dial(uint16_t port, const std::string& host = "") {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!host.empty() && host != "127.0.0.1") {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res) {
      ::close(fd);
      return -1;
    }
    sa.sin_addr = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
    ::freeaddrinfo(res);
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One request (absolute form through the proxy); returns the socket after the request is sent.
int request(const std::string& host, uint16_t port, uint16_t proxy, const std::string& path) {
  int fd = proxy ? dial(proxy) : dial(port, host);
  if (fd < 0) return -1;
  std::string auth = host + ":" + std::to_string(port);
  std::string target = proxy ? "http://" + auth + path : path;
  std::string r = "GET " + target + " HTTP/1.1\r\nHost: " + auth + "\r\n\r\n";
  if (!write_all(fd, r.data(), r.size())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int latency(const std::string& host, uint16_t port, int n, uint16_t proxy) {
  std::vector<double> us;
  char b[4096];
  for (int i = 0; i < n; ++i) {
    auto t0 = clk::now();
    int fd = request(host, port, proxy, "/tiny");
    if (fd < 0) return std::fprintf(stderr, "netbench: connect failed\n"), 1;
    if (::read(fd, b, sizeof b) <= 0) return std::fprintf(stderr, "netbench: no answer\n"), 1;
    us.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
    while (::read(fd, b, sizeof b) > 0) {
    }
    ::close(fd);
  }
  std::sort(us.begin(), us.end());
  auto q = [&](double p) { return us[std::min(us.size() - 1, size_t(p * double(us.size())))]; };
  std::printf("p50_us %.1f p90_us %.1f p99_us %.1f\n", q(0.5), q(0.9), q(0.99));
  return 0;
}

int bulk(const std::string& host, uint16_t port, unsigned long long bytes, uint16_t proxy) {
  auto t0 = clk::now();
  int fd = request(host, port, proxy, "/bytes/" + std::to_string(bytes));
  if (fd < 0) return std::fprintf(stderr, "netbench: connect failed\n"), 1;
  static std::vector<char> buf(1 << 18);
  unsigned long long got = 0;
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0) got += size_t(n);
  double s = std::chrono::duration<double>(clk::now() - t0).count();
  ::close(fd);
  if (got < bytes) return std::fprintf(stderr, "netbench: short download (%llu of %llu)\n", got, bytes), 1;
  std::printf("mib_per_s %.1f bytes %llu seconds %.3f\n", double(got) / s / (1 << 20), got, s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "serve" && argc == 3) return serve(argv[2]);
  if (mode == "latency" && argc >= 5)
    return latency(argv[2], uint16_t(std::atoi(argv[3])), std::atoi(argv[4]), uint16_t(argc > 5 ? std::atoi(argv[5]) : 0));
  if (mode == "bulk" && argc >= 5)
    return bulk(argv[2], uint16_t(std::atoi(argv[3])), std::strtoull(argv[4], nullptr, 10),
                uint16_t(argc > 5 ? std::atoi(argv[5]) : 0));
  std::fprintf(stderr, "usage: netbench serve PORTFILE | latency HOST PORT N [PROXY_PORT] | bulk HOST PORT BYTES [PROXY_PORT]\n");
  return 2;
}
