// The driver's side: a pty pair playing the user's terminal (raw, so the driver sees exactly
// what the program under test wrote), a process started on its slave, and timed reads.
#pragma once
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ptybench {

struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint64_t now_ns();  // CLOCK_MONOTONIC

// A process on a fresh pty pair. The driver holds only the master; the kernel ends reads with
// EIO once every holder of the slave is gone.
class PtyProc {
 public:
  PtyProc(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
          winsize ws);
  ~PtyProc();  // kills (SIGKILL, by pid) and reaps a process still running
  PtyProc(const PtyProc&) = delete;
  PtyProc& operator=(const PtyProc&) = delete;

  int master() const { return master_; }
  pid_t pid() const { return pid_; }
  uint64_t spawned_ns() const { return spawned_ns_; }

  // One read into buf; 0 means EIO/EOF. Throws after `timeout_s` without data.
  size_t read_some(char* buf, size_t len, unsigned timeout_s = 30);
  // Reads until `marker` has been seen; returns everything before it (the preamble) and keeps
  // what came after it in `rest`.
  std::string read_until(std::string_view marker, std::string& rest, unsigned timeout_s = 30);
  void write_all(std::string_view s);
  // Reads to EIO (discarding, but returning the count), then reaps.
  size_t drain();
  // Waits for the exit; returns the wait status and the rusage of it and its reaped children.
  int wait(rusage& ru, unsigned timeout_s = 60);

 private:
  int master_ = -1;
  pid_t pid_ = -1;
  uint64_t spawned_ns_ = 0;
};

// Peak resident set (VmHWM) of a live process in KiB, 0 if it cannot be read.
long vm_hwm_kib(pid_t pid);

}  // namespace ptybench
