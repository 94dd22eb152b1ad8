// The programs under test, as modes of the ptybench binary itself (no extra tools needed).
// Each runs on whatever pty it is given: the driver's directly, or the inner pty of a proxy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "pattern.hpp"

namespace ptybench {

// write(2) until all n bytes are out (EINTR retried); false on error.
bool write_all(int fd, const char* p, size_t n);

struct ProducerArgs {
  uint64_t bytes = 0;
  size_t write_size = 64 * 1024;  // bytes per write(2)
  Payload payload = Payload::Text;
  std::string report_path;  // where to write its own CPU time and context switches at the end
                            // ("<user_us> <sys_us> <switches>")
  int64_t corrupt_at = -1;  // >= 0: flip that payload byte (a control for the checker)
};

// Writes `bytes` of the payload, from its first byte on, in writes of write_size, as fast as
// the tty takes them; exits 0. The driver subtracts the CPU report from the proxy's total.
int run_producer(const ProducerArgs& a);

// Raw mode; prints the ready marker, then echoes every byte read until it reads 'q'.
int run_echo();

// Raw mode; prints the ready marker, then on every SIGWINCH prints "<<WS rows cols>>" with the
// size it reads from its terminal; exits when it reads 'q' on stdin.
int run_winch();

// The floor: a minimal pty relay (forkpty, then poll, read, write and SIGWINCH copying,
// nothing else) running argv. What a proxy can reach on this machine, for comparison.
int run_relay(char** argv);

}  // namespace ptybench
