// The CPUs' idle states: on this VM (cpuidle haltpoll, guest_halt_poll_ns=0) an idle vCPU halts,
// and each wake-up of a halted vCPU is an IPI and a VM exit. A pipeline whose stages sleep and
// wake per 4 KiB chunk pays that per chunk only when the machine is idle, which is why an idle
// run ranked the proxies above direct and a loaded one did not. ptybench counts the halts and
// can keep the CPUs out of them (--awake).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ptybench {

// Entries into a non-polling idle state, summed over all CPUs (cpuidle's `usage`); 0 if the
// kernel has no cpuidle. System-wide: on a quiet machine, the bench's own.
uint64_t cpu_halts();

// "cpuidle haltpoll/haltpoll, guest_halt_poll_ns 0": what decides what an idle wake-up costs.
std::string idle_description();

// One spinner per CPU at SCHED_IDLE for its lifetime: it runs only when nothing else wants the
// CPU, so it takes no time from the bench or anyone else, and the CPU never halts.
class Awake {
public:
  Awake();
  ~Awake();
  Awake(const Awake&) = delete;
  Awake& operator=(const Awake&) = delete;

private:
  std::vector<pid_t> pids_;
};

}  // namespace ptybench
