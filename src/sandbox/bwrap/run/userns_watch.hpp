// blaude's half of the refusal of nested user namespaces (inside/userns_guard.hpp has the
// shim's): a thread that takes the seccomp listener the exec shim sends back, answers each
// unshare or clone with CLONE_NEWUSER in the sandbox EPERM, and remembers which programs asked,
// so that the exit line can say so and name the setting that allows them (--nested-sandbox).
//
// The answer is the table's (EPERM) whatever happens here: while blaude runs it answers every
// call at once; once it has exited, the kernel answers the calls it can no longer be asked about
// ENOSYS. Nothing read from the sandbox is trusted: the one message on the socket must carry
// exactly a seccomp listener, and a program's name (/proc/PID/comm, chosen by the program) is
// shown escaped.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/unique_fd.hpp"

namespace blaude::sandbox::bwrap {

class UsernsWatch {
public:
  // The socket pair (throws std::system_error), and the thread, with every signal blocked.
  static std::unique_ptr<UsernsWatch> start();
  ~UsernsWatch();
  UsernsWatch(const UsernsWatch&) = delete;
  UsernsWatch& operator=(const UsernsWatch&) = delete;

  // The sandbox's end (close-on-exec: the launcher keeps it open in bwrap's process only).
  int inside_fd() const { return inside_.get(); }
  // Stops the thread (its answers end with it); the exit line, or "" when nothing was refused.
  std::string finish();

  // What was refused so far: the calls, and the programs' names as they read (escaped), at most
  // kMaxNames of them, each once.
  static constexpr size_t kMaxNames = 5;
  uint64_t refused() const { return refused_.load(); }
  std::vector<std::string> names() const;
  // Whether the shim's listener arrived (tests).
  bool listening() const { return listening_.load(); }

private:
  UsernsWatch() = default;
  void run();
  void answer(int listener);

  UniqueFd inside_, outside_, stop_rd_, stop_wr_;
  std::thread thread_;
  std::atomic<uint64_t> refused_{0};
  std::atomic<bool> listening_{false};
  mutable std::mutex mu_;
  std::vector<std::string> names_;
};

// The exit line for `refused` calls by these programs ("" when none).
std::string userns_exit_line(uint64_t refused, const std::vector<std::string>& names);

}  // namespace blaude::sandbox::bwrap
