// blaude's own pre-exec confinement with the real kernel: a forked child applies it and then
// checks from inside what a sandboxed process would see. Each check has its control in the
// parent (which stays unconfined). Linux only: the confinement is bwrap's (pre-exec, Linux calls).
#ifdef __linux__
#include <fcntl.h>
#include <linux/keyctl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "common/unique_fd.hpp"
#include "sandbox/bwrap/probe/confine.hpp"

using namespace blaude;
using namespace blaude::sandbox::bwrap;
using blaude::sandbox::Confinement;
namespace fs = std::filesystem;

namespace {

// An abstract listener named @name; connect_abstract() says whether a connect succeeds.
UniqueFd listen_abstract(const std::string& name) {
  UniqueFd s(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  REQUIRE(bind(s.get(), reinterpret_cast<sockaddr*>(&a), len) == 0);
  REQUIRE(listen(s.get(), 4) == 0);
  return s;
}

bool connect_abstract(const std::string& name) {
  UniqueFd s(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return connect(s.get(), reinterpret_cast<sockaddr*>(&a), len) == 0;
}

// Runs fn in a forked child after apply_confinement(); the child's exit code is fn's.
int in_child(const Confinement& c, int (*fn)(const std::string&), const std::string& arg) {
  PreparedConfinement p(c);
  pid_t pid = fork();
  if (pid == 0) {
    int step = 0;
    if (apply_confinement(p, &step) != 0) _exit(100 + step);
    _exit(fn(arg));
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}

}  // namespace

TEST_CASE("confine: Landlock scopes abstract unix sockets to the sandbox", "[confine]") {
  if (landlock_abi() < 6) FAIL("this kernel has Landlock ABI " << landlock_abi() << ", the test needs 6");
  const std::string name = "blaude-confine-test-" + std::to_string(getpid());
  UniqueFd l = listen_abstract(name);
  CHECK(connect_abstract(name));  // control: reachable without the scope
  Confinement c;
  c.landlock_scopes = kScopeAbstractUnixSocket | kScopeSignal;
  CHECK(in_child(c, [](const std::string& n) { return connect_abstract(n) ? 1 : 0; }, name) == 0);
  // Inside the same domain, abstract sockets still work.
  CHECK(in_child(c, [](const std::string& n) {
          UniqueFd in = listen_abstract(n + "-inner");
          return connect_abstract(n + "-inner") ? 0 : 1;
        }, name) == 0);
  // Signals to a process outside: refused (control: the unconfined child may signal us).
  CHECK(in_child(c, [](const std::string&) { return kill(getppid(), 0) == 0 ? 1 : 0; }, "") == 0);
  CHECK(in_child({}, [](const std::string&) { return kill(getppid(), 0) == 0 ? 0 : 1; }, "") == 0);
}

TEST_CASE("confine: a fresh session keyring hides the user's keys", "[confine]") {
  // A key in this process's session keyring (a new anonymous one, not the test runner's).
  REQUIRE(syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr) >= 0);
  long key = syscall(SYS_add_key, "user", "blaude-test", "HOSTSECRET", 10, KEY_SPEC_SESSION_KEYRING);
  REQUIRE(key > 0);
  auto readable = [](const std::string& k) {
    char buf[64];
    return syscall(SYS_keyctl, KEYCTL_READ, std::stol(k), buf, sizeof buf) == 10 ? 1 : 0;
  };
  CHECK(in_child({}, readable, std::to_string(key)) == 1);  // control: inherited, readable
  Confinement c;
  c.fresh_keyring = true;
  CHECK(in_child(c, readable, std::to_string(key)) == 0);
}

TEST_CASE("confine: blaude's own overlay discards writes", "[confine]") {
  std::string why;
  if (!own_overlay_works(&why)) FAIL("no unprivileged overlay here: " << why);
  char t[] = "/tmp/blaude-confine.XXXXXX";
  REQUIRE(mkdtemp(t));
  const std::string d = t;
  std::ofstream(d + "/init.lua") << "orig";
  Confinement c;
  c.uid = getuid();
  c.gid = getgid();
  c.overlays = {d};
  CHECK(in_child(c, [](const std::string& dir) {
          std::ifstream in(dir + "/init.lua");
          std::string s;
          in >> s;
          if (s != "orig") return 2;
          std::ofstream(dir + "/init.lua") << "evil";
          std::ofstream(dir + "/new") << "x";
          std::ifstream back(dir + "/init.lua");
          back >> s;
          return s == "evil" ? 0 : 3;  // writable inside
        }, d) == 0);
  std::ifstream in(d + "/init.lua");
  std::string s;
  in >> s;
  CHECK(s == "orig");
  CHECK_FALSE(fs::exists(d + "/new"));
  fs::remove_all(d);
}

#endif  // __linux__
