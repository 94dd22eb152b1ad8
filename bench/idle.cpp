#include "idle.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace ptybench {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

}  // namespace

uint64_t cpu_halts() {
  uint64_t total = 0;
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  for (long c = 0; c < cpus; ++c) {
    for (int s = 0;; ++s) {
      std::string d = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpuidle/state" +
                      std::to_string(s) + "/";
      std::string name = first_line(d + "name");
      if (name.empty()) break;
      if (name == "POLL") continue;  // busy polling: not a halt
      total += std::strtoull(first_line(d + "usage").c_str(), nullptr, 10);
    }
  }
  return total;
}

std::string idle_description() {
  std::string driver = first_line("/sys/devices/system/cpu/cpuidle/current_driver");
  if (driver.empty()) return "no cpuidle";
  std::ostringstream o;
  o << "cpuidle " << driver << "/" << first_line("/sys/devices/system/cpu/cpuidle/current_governor_ro");
  std::string poll = first_line("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
  if (!poll.empty()) o << ", guest_halt_poll_ns " << poll;
  return o.str();
}

Awake::Awake() {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < cpus; ++i) {
    pid_t p = fork();
    if (p == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      // Holds nothing open: a pipe the bench's caller reads to EOF, or a pty, must not outlive
      // the bench in a spinner.
      close_range(0, ~0U, 0);
      sched_param sp{};
      if (sched_setscheduler(0, SCHED_IDLE, &sp) != 0) _exit(1);  // never spin at normal priority
      for (;;) asm volatile("" ::: "memory");
    }
    if (p > 0) pids_.push_back(p);
  }
}

Awake::~Awake() {
  for (pid_t p : pids_) kill(p, SIGKILL);
  for (pid_t p : pids_) waitpid(p, nullptr, 0);
}

}  // namespace ptybench
