#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "pty/byte_queue.hpp"
#include "pty/spawn.hpp"

using namespace blaude::pty;

TEST_CASE("exit codes follow the shell convention") {
  CHECK(exit_code_from_status(0) == 0);
  CHECK(exit_code_from_status(3 << 8) == 3);
  CHECK(exit_code_from_status(255 << 8) == 255);
  CHECK(exit_code_from_status(SIGTERM) == 128 + SIGTERM);
  CHECK(exit_code_from_status(SIGKILL) == 137);
  CHECK(exit_code_from_status(SIGSEGV | 0x80) == 128 + SIGSEGV);  // core dumped
}

TEST_CASE("commands resolve on PATH like a shell does") {
  char tmpl[] = "/tmp/blaude-resolve-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string exe = dir + "/tool", noexec = dir + "/data";
  std::ofstream(exe) << "#!/bin/sh\n";
  std::ofstream(noexec) << "x";
  chmod(exe.c_str(), 0755);
  chmod(noexec.c_str(), 0644);

  SECTION("found on PATH, first match wins") {
    auto r = resolve_command("tool", "/nonexistent:" + dir + ":/usr/bin");
    CHECK(r.exit_code == 0);
    CHECK(r.path == exe);
  }
  SECTION("missing → 127 with the shell's wording") {
    auto r = resolve_command("no-such-tool-xyz", dir);
    CHECK(r.exit_code == 127);
    CHECK(r.message == "no-such-tool-xyz: command not found");
  }
  SECTION("present but not executable → 126") {
    auto r = resolve_command("data", dir);
    CHECK(r.exit_code == 126);
  }
  SECTION("paths with a slash are not looked up") {
    CHECK(resolve_command(exe, "").exit_code == 0);
    CHECK(resolve_command(noexec, "").exit_code == 126);
    CHECK(resolve_command(dir, "").exit_code == 126);  // a directory
    CHECK(resolve_command(dir + "/missing", "").exit_code == 127);
  }
  SECTION("empty name") { CHECK(resolve_command("", "/usr/bin").exit_code == 127); }
  unlink(exe.c_str());
  unlink(noexec.c_str());
  rmdir(dir.c_str());
}

namespace {
// Everything queued, in order, read the way the session writes it: front pieces, consumed.
std::string drain_queue(ByteQueue& q) {
  std::string out;
  while (!q.empty()) {
    size_t n = q.front_size();
    REQUIRE(n > 0);
    out.append(q.data(), n);
    q.consume(n);
  }
  return out;
}
}  // namespace

TEST_CASE("ByteQueue keeps order and never grows") {
  ByteQueue q(16);
  CHECK(q.append("0123456789") == 10);
  q.consume(4);
  CHECK(std::string(q.data(), q.front_size()) == "456789");
  CHECK(q.append("abcdefghijklmnop") == 10);  // only the free space is taken
  CHECK(q.size() == 16);
  CHECK(q.free_space() == 0);
  size_t len;
  q.tail_space(len);
  CHECK(len == 0);
  CHECK(drain_queue(q) == "456789abcdefghij");
  CHECK(q.empty());
  q.tail_space(len);
  CHECK(len == 16);  // fully reset once empty
}

TEST_CASE("ByteQueue wraps round instead of moving bytes") {
  ByteQueue q(8);
  q.append("abcdefg");
  q.consume(6);
  const char* g = q.data();
  size_t len;
  char* p = q.tail_space(len);
  CHECK(len == 1);  // up to the buffer's end; nothing moved
  CHECK(q.data() == g);
  p[0] = 'h';
  q.commit(1);
  CHECK(std::string(q.data(), q.front_size()) == "gh");
  p = q.tail_space(len);
  CHECK(len == 6);  // wrapped: from the start up to the head
  std::memcpy(p, "ijk", 3);
  q.commit(3);
  CHECK(q.size() == 5);
  CHECK(q.front_size() == 2);  // "gh" before the end, "ijk" from the start
  CHECK(drain_queue(q) == "ghijk");
}

TEST_CASE("ByteQueue against a string model, every capacity and mix of pieces") {
  // Reads into the tail (partly filled, as a short read does), appends, and writes from the head
  // of every size, checked after each step against a std::string holding the same bytes.
  uint32_t seed = 12345;
  auto rnd = [&seed](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  for (size_t cap = 1; cap <= 40; ++cap) {
    ByteQueue q(cap);
    std::string model;
    char next = 'a';
    auto fresh = [&next](size_t n) {
      std::string s;
      for (size_t i = 0; i < n; ++i) {
        s += next;
        next = next == 'z' ? 'a' : static_cast<char>(next + 1);
      }
      return s;
    };
    for (int step = 0; step < 3000; ++step) {
      switch (rnd(3)) {
        case 0: {  // a read into the tail
          size_t len;
          char* p = q.tail_space(len);
          REQUIRE(len <= q.free_space());
          if (q.free_space() > 0) REQUIRE(len > 0);
          size_t n = len ? rnd(static_cast<uint32_t>(len) + 1) : 0;
          std::string s = fresh(n);
          std::memcpy(p, s.data(), n);
          q.commit(n);
          model += s;
          break;
        }
        case 1: {  // filter output appended
          std::string s = fresh(rnd(static_cast<uint32_t>(cap) + 3));
          size_t n = q.append(s);
          REQUIRE(n == std::min(s.size(), cap - model.size()));
          model += s.substr(0, n);
          break;
        }
        default: {  // a write from the head, maybe short
          size_t f = q.front_size();
          REQUIRE(f <= q.size());
          if (!q.empty()) REQUIRE(f > 0);
          size_t n = f ? rnd(static_cast<uint32_t>(f) + 1) : 0;
          REQUIRE(std::string(q.data(), n) == model.substr(0, n));
          q.consume(n);
          model.erase(0, n);
        }
      }
      REQUIRE(q.size() == model.size());
    }
    ByteQueue copy = std::move(q);
    REQUIRE(drain_queue(copy) == model);
  }
}

TEST_CASE("a pty child gets the slave's name where its argv holds the token") {
  // The Seatbelt profile names the session's own terminal this way (Command::tty_token).
  Command cmd;
  cmd.argv = {"/bin/sh", "-c", "printf '%s|' \"$1\"; tty", "sh", "(literal \"@TTY@\")"};
  cmd.tty_token = "@TTY@";
  Child c = spawn_on_pty("/bin/sh", cmd, nullptr, nullptr);
  REQUIRE(c.pid > 0);
  REQUIRE(await_exec(c) == 0);
  std::string out;
  char buf[256];
  // Until the line is complete or the child closes its side (EIO on Linux, 0 elsewhere).
  while (out.find('\n') == std::string::npos) {
    pollfd p{c.master.get(), POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    ssize_t n = ::read(c.master.get(), buf, sizeof buf);
    if (n > 0) out.append(buf, size_t(n));
    else if (n == 0 || (errno != EAGAIN && errno != EINTR)) break;
  }
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  auto bar = out.find('|');
  REQUIRE(bar != std::string::npos);
  const std::string named = out.substr(0, bar);
  std::string shown = out.substr(bar + 1);
  while (!shown.empty() && (shown.back() == '\n' || shown.back() == '\r')) shown.pop_back();
  CHECK(named.rfind("(literal \"/dev/", 0) == 0);
  CHECK(named == "(literal \"" + shown + "\")");  // the very terminal the child is on
  CHECK(named.find("@TTY@") == std::string::npos);
}
