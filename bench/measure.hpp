// One measurement = one run of a helper under one variant (direct, script, blaude), started on
// a fresh pty. The caller interleaves variants so that machine noise hits them alike.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pattern.hpp"

namespace ptybench {

// Relay: ptybench's own minimal poll/read/write relay, the floor a proxy can reach here.
// Base: another blaude binary (--baseline), for before/after comparisons in one run.
enum class Variant { Direct, Script, Blaude, Relay, Base };
const char* name_of(Variant v);

struct Setup {
  std::string self;    // this binary (helpers are its modes)
  std::string script;  // util-linux script
  std::string blaude;
  std::string baseline;  // another blaude, for the Base variant
  std::vector<std::string> blaude_args;  // extra options before --exec
  std::string tmpdir;  // producer CPU reports, blaude's log
};

// What the producer writes and how the terminal reads it.
struct Shape {
  std::string name;
  Payload payload = Payload::Text;
  size_t write_size = 64 * 1024;  // the producer's write(2) size
  unsigned slow_us = 0;           // >0: a slow terminal, sleeping this long after every read
  double size_factor = 1;         // of --size (a slow reader moves less in the same time)
};

// The argv that runs `helper` under variant v.
std::vector<std::string> command_for(const Setup& s, Variant v,
                                     const std::vector<std::string>& helper);

struct Transfer {
  uint64_t bytes = 0;      // payload bytes that arrived and matched
  bool exact = false;      // preamble + every payload byte arrived, in order, nothing extra
  std::string problem;     // why not exact
  uint64_t timed_bytes = 0;  // payload bytes after the first read that carried payload
  double seconds = 0;      // that first read → the last payload byte
  double proxy_cpu_s = 0;  // proxy alone (0 for direct)
  double producer_cpu_s = 0;
  double proxy_switches = 0;  // context switches of the proxy alone (voluntary + not)
  uint64_t reads = 0;      // the driver's reads that carried payload
  long proxy_hwm_kib = 0;  // peak RSS of the proxy, sampled live (only with sample_rss)
};

// Everything a variant prints before its child's first byte (blaude --no-sandbox prints a
// notice and pushes the title; the others nothing), and in `postamble` what it prints after the
// last one (blaude's undo, title pop and reply fence): from a run of 64 payload bytes.
std::string learn_preamble(const Setup& s, Variant v, std::string* postamble = nullptr);

// One transfer; the driver expects exactly `preamble` followed by `bytes` of the payload and
// then `postamble`, and compares every byte, from the first one of the stream.
Transfer run_transfer(const Setup& s, Variant v, const Shape& shape, uint64_t bytes,
                      const std::string& preamble, int64_t corrupt_at = -1,
                      bool sample_rss = false, const std::string& postamble = std::string());

class PtyProc;

// A helper kept running under one variant so that samples of all variants can alternate one
// by one (A B C A B C ...): a burst of load then hits every variant alike, which matters most
// for the p99s. Each sample is sequential; the idle probes cost nothing meanwhile.
class Probe {
 public:
  virtual ~Probe();
  virtual double sample_us() = 0;
  // Asks the helper to quit, drains and reaps it; throws if it did not exit cleanly.
  void finish();

 protected:
  Probe(const Setup& s, Variant v, const char* mode);
  std::unique_ptr<PtyProc> p_;
  Variant v_;
};

// Keystroke round trip: one byte written to the driver's master, the echo helper reads it raw
// and writes it back, the driver reads it.
class EchoProbe : public Probe {
 public:
  EchoProbe(const Setup& s, Variant v);
  double sample_us() override;
};

// TIOCSWINSZ on the driver's master → the helper sees SIGWINCH and reports the new size; the
// time until the report with that size arrives.
class ResizeProbe : public Probe {
 public:
  ResizeProbe(const Setup& s, Variant v);
  double sample_us() override;

 private:
  std::string seen_;
  int step_ = 0;
};

struct Start {
  double first_output_ms = 0;  // spawn → the producer's first byte at the driver (after the
                               // preamble)
  double cpu_ms = 0;  // user+sys of the whole start (the variant, its children, the producer)
};
Start run_first_output(const Setup& s, Variant v, const std::string& preamble,
                       const std::string& postamble = std::string());

}  // namespace ptybench
