// The programs under test, as modes of the ptybench binary itself (no extra tools needed).
// Each runs on whatever pty it is given: the driver's directly, or the inner pty of a proxy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ptybench {

// write(2) until all n bytes are out (EINTR retried); false on error.
bool write_all(int fd, const char* p, size_t n);

// Writes the start marker, then `bytes` of the pattern as fast as the tty takes them, then
// exits 0. With report_path, writes its own CPU time ("<user_us> <sys_us>") there at the end,
// so the driver can subtract it from the proxy's total. corrupt_at >= 0 flips that payload byte
// (a control for the checker).
int run_producer(uint64_t bytes, const std::string& report_path, int64_t corrupt_at);

// Raw mode; prints the ready marker, then echoes every byte read until it reads 'q'.
int run_echo();

// Raw mode; prints the ready marker, then on every SIGWINCH prints "<<WS rows cols>>" with the
// size it reads from its terminal; exits when it reads 'q' on stdin.
int run_winch();

// The floor: a minimal pty relay (forkpty, then poll, read, write and SIGWINCH copying,
// nothing else) running argv. What a proxy can reach on this machine, for comparison.
int run_relay(char** argv);

}  // namespace ptybench
