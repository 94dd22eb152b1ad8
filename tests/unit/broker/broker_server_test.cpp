// The broker's server over real unix sockets: framing, its bounds (message size, clients at
// once, time to finish a message), the service's summary, and the socket gone after stop().
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "broker/frame.hpp"
#include "broker/server.hpp"
#include "catch.hpp"
#include "common/unique_fd.hpp"
#include "temp_dir.hpp"

using namespace blaude;
using namespace blaude::broker;

namespace {

struct Counts {
  int answered = 0;
};

// Answers each message with itself; "close" closes the connection.
class Echo : public Service {
public:
  explicit Echo(Counts* c) : c_(c) {}
  std::string name() const override { return "echo"; }
  uint32_t max_message() const override { return 64; }
  std::unique_ptr<Conversation> open() override {
    struct Conv : Conversation {
      Counts* c;
      explicit Conv(Counts* c) : c(c) {}
      std::optional<std::string> answer(std::string_view body) override {
        if (body == "close") return std::nullopt;
        ++c->answered;
        return std::string(body);
      }
    };
    return std::make_unique<Conv>(c_);
  }
  std::vector<std::string> summary() const override { return {"echoed " + std::to_string(c_->answered), ""}; }

private:
  Counts* c_;
};

UniqueFd dial(const std::string& path) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
  REQUIRE(::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  return fd;
}

// Up to `want` bytes within `ms`; what came, or "EOF" appended when the peer closed.
std::string read_for(int fd, size_t want, int ms) {
  std::string out;
  while (out.size() < want) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms) <= 0) break;
    char buf[256];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return out + "EOF";
    out.append(buf, size_t(n));
  }
  return out;
}

void put(int fd, const std::string& bytes) { REQUIRE(::write(fd, bytes.data(), bytes.size()) == ssize_t(bytes.size())); }

}  // namespace

TEST_CASE("broker: a service answers framed messages, within its bounds", "[broker]") {
  testing::TempDir dir("blaude-broker");
  Counts counts;
  std::vector<std::unique_ptr<Service>> services;
  services.push_back(std::make_unique<Echo>(&counts));
  Limits limits;
  limits.max_clients = 3;
  limits.message_ms = 200;
  auto started = Broker::start(dir.path, std::move(services), limits);
  REQUIRE(std::holds_alternative<std::unique_ptr<Broker>>(started));
  auto broker = std::get<std::unique_ptr<Broker>>(std::move(started));
  const std::string sock = dir.path + "/echo";

  SECTION("two messages in one write, answered in order") {
    UniqueFd c = dial(sock);
    put(c.get(), frame("hi") + frame("there"));
    CHECK(read_for(c.get(), 6 + 9, 2000) == frame("hi") + frame("there"));
  }
  SECTION("a length past the service's limit closes the connection") {
    UniqueFd c = dial(sock);
    put(c.get(), std::string("\0\0\0\x41", 4));
    CHECK(read_for(c.get(), 1, 2000) == "EOF");
  }
  SECTION("a message left unfinished is closed after its time") {
    UniqueFd c = dial(sock);
    put(c.get(), std::string("\0\0\0\x05", 4) + "ab");
    CHECK(read_for(c.get(), 1, 3000) == "EOF");
  }
  SECTION("a message the service finds malformed closes the connection") {
    UniqueFd c = dial(sock);
    put(c.get(), frame("close"));
    CHECK(read_for(c.get(), 1, 2000) == "EOF");
  }
  SECTION("clients past the limit are closed; those within it keep working") {
    std::vector<UniqueFd> cs;
    for (int i = 0; i < 3; ++i) cs.push_back(dial(sock));
    put(cs[0].get(), frame("x"));
    CHECK(read_for(cs[0].get(), 5, 2000) == frame("x"));  // all three accepted by now
    UniqueFd extra = dial(sock);
    CHECK(read_for(extra.get(), 1, 2000) == "EOF");
    put(cs[2].get(), frame("y"));
    CHECK(read_for(cs[2].get(), 5, 2000) == frame("y"));
  }
  broker->stop();
  CHECK_FALSE(std::filesystem::exists(sock));
  auto lines = broker->summary();
  REQUIRE(lines.size() == 1);  // the empty line is left out
  CHECK(lines[0].starts_with("echoed "));
}
