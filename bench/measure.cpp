#include "measure.hpp"

#include <sys/ioctl.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "pattern.hpp"
#include "ptyproc.hpp"

namespace ptybench {

namespace {

constexpr winsize kSize{24, 80, 0, 0};
int g_run = 0;  // numbers the producer's CPU report files

std::vector<std::string> child_env(const Setup& s) {
  // SHELL: script runs `$SHELL -c CMD`; dash execs the single command, so the producer is
  // script's direct child, as it is blaude's. XDG_STATE_HOME keeps blaude's log in our temp dir.
  return {"SHELL=/bin/sh", "XDG_STATE_HOME=" + s.tmpdir, "TERM=xterm"};
}

std::string shell_quote(const std::string& a) {
  std::string r = "'";
  for (char c : a) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

double usec(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) * 1e6 + static_cast<double>(tv.tv_usec);
}

void expect_clean_exit(int st, const char* what) {
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    throw BenchError(std::string(what) + " ended with wait status " + std::to_string(st));
}

// Compares payload bytes against the pattern as they arrive.
struct Checker {
  explicit Checker(uint64_t n) : expect(n) {}
  uint64_t expect;
  uint64_t got = 0;
  std::string problem;
  const std::vector<char>& table = pattern_table();

  void feed(const char* p, size_t n) {
    if (!problem.empty()) return;
    if (got + n > expect) {
      problem = "extra bytes after the payload (" + std::to_string(got + n - expect) + "+)";
      return;
    }
    while (n > 0) {
      size_t off = got % kPeriod;
      size_t k = std::min(n, kPeriod);
      if (std::memcmp(p, table.data() + off, k) != 0) {
        size_t i = 0;
        while (p[i] == table[off + i]) ++i;
        problem = "mismatch at payload byte " + std::to_string(got + i);
        return;
      }
      got += k;
      p += k;
      n -= k;
    }
  }
};

}  // namespace

const char* name_of(Variant v) {
  switch (v) {
    case Variant::Direct:
      return "direct";
    case Variant::Script:
      return "script";
    case Variant::Blaude:
      return "blaude";
    case Variant::Relay:
      return "relay";
  }
  return "?";
}

std::vector<std::string> command_for(const Setup& s, Variant v,
                                     const std::vector<std::string>& helper) {
  std::vector<std::string> argv = {s.self};
  argv.insert(argv.end(), helper.begin(), helper.end());
  switch (v) {
    case Variant::Direct:
      return argv;
    case Variant::Script: {
      std::string cmd;
      for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
      return {s.script, "-qfec", cmd, "/dev/null"};
    }
    case Variant::Blaude: {
      std::vector<std::string> r = {s.blaude, "--no-sandbox", "--exec"};
      r.insert(r.end(), argv.begin(), argv.end());
      return r;
    }
    case Variant::Relay: {
      std::vector<std::string> r = {s.self, "--relay"};
      r.insert(r.end(), argv.begin(), argv.end());
      return r;
    }
  }
  return argv;
}

Transfer run_transfer(const Setup& s, Variant v, uint64_t bytes, int64_t corrupt_at) {
  Transfer t;
  std::string report = s.tmpdir + "/cpu-" + std::to_string(++g_run);
  std::vector<std::string> helper = {"--produce", std::to_string(bytes), "--report", report};
  if (corrupt_at >= 0) {
    helper.push_back("--corrupt-at");
    helper.push_back(std::to_string(corrupt_at));
  }
  PtyProc p(command_for(s, v, helper), child_env(s), kSize);
  std::string rest;
  t.preamble = p.read_until(kStartMarker, rest).size();
  uint64_t t0 = now_ns(), t1 = 0;
  Checker c(bytes);
  c.feed(rest.data(), rest.size());
  std::vector<char> buf(64 * 1024);
  uint64_t next_sample = 0;
  while (size_t n = p.read_some(buf.data(), buf.size())) {
    if (!c.problem.empty()) continue;  // keep reading to EIO so the proxy can exit
    c.feed(buf.data(), n);
    if (c.got >= next_sample || (c.got == bytes && t1 == 0)) {
      // VmHWM only grows, so sampling every MiB while the proxy is alive (it cannot be read
      // once it is a zombie, and a proxy may exit before the driver has read its last bytes)
      // catches its peak.
      t.proxy_hwm_kib = std::max(t.proxy_hwm_kib, vm_hwm_kib(p.pid()));
      next_sample = c.got + (1 << 20);
    }
    if (c.got == bytes && t1 == 0) t1 = now_ns();
  }
  if (c.got == bytes && t1 == 0) t1 = now_ns();  // empty payload
  rusage ru{};
  int st = p.wait(ru);
  t.bytes = c.got;
  t.problem = c.problem;
  if (t.problem.empty() && c.got != bytes)
    t.problem = "only " + std::to_string(c.got) + " of " + std::to_string(bytes) + " bytes arrived";
  t.exact = t.problem.empty();
  t.seconds = t1 > t0 ? static_cast<double>(t1 - t0) / 1e9 : 0;
  double total_us = usec(ru.ru_utime) + usec(ru.ru_stime);
  std::ifstream f(report);
  double pu = 0, ps = 0;
  if (!(f >> pu >> ps)) throw BenchError("the producer wrote no CPU report (" + report + ")");
  t.producer_cpu_s = (pu + ps) / 1e6;
  if (v != Variant::Direct) t.proxy_cpu_s = std::max(0.0, total_us / 1e6 - t.producer_cpu_s);
  std::remove(report.c_str());
  expect_clean_exit(st, name_of(v));
  return t;
}

Probe::Probe(const Setup& s, Variant v, const char* mode)
    : p_(std::make_unique<PtyProc>(command_for(s, v, {mode}), child_env(s), kSize)), v_(v) {}

Probe::~Probe() = default;

void Probe::finish() {
  p_->write_all("q");
  p_->drain();
  rusage ru{};
  expect_clean_exit(p_->wait(ru), name_of(v_));
}

EchoProbe::EchoProbe(const Setup& s, Variant v) : Probe(s, v, "--echo") {
  std::string rest;
  p_->read_until(kEchoReady, rest);
  if (!rest.empty()) throw BenchError("unexpected output after the echo helper's marker");
}

double EchoProbe::sample_us() {
  char buf[64];
  uint64_t t0 = now_ns();
  p_->write_all("x");
  size_t n = p_->read_some(buf, sizeof buf, 10);
  uint64_t t1 = now_ns();
  if (n != 1 || buf[0] != 'x')
    throw BenchError("echo returned " + std::to_string(n) + " unexpected bytes");
  return static_cast<double>(t1 - t0) / 1e3;
}

ResizeProbe::ResizeProbe(const Setup& s, Variant v) : Probe(s, v, "--winch") {
  p_->read_until(kWinchReady, seen_);
}

double ResizeProbe::sample_us() {
  // Every step changes the size, so every step makes the kernel signal the foreground.
  int i = step_++;
  winsize ws{static_cast<unsigned short>(25 + i % 40), static_cast<unsigned short>(81 + i % 3), 0,
             0};
  std::string want = "<<WS " + std::to_string(ws.ws_row) + " " + std::to_string(ws.ws_col) + ">>";
  char buf[256];
  uint64_t t0 = now_ns();
  if (ioctl(p_->master(), TIOCSWINSZ, &ws) != 0) throw BenchError("TIOCSWINSZ failed");
  size_t pos;
  while ((pos = seen_.find(want)) == std::string::npos) {
    size_t n = p_->read_some(buf, sizeof buf, 10);
    if (n == 0) throw BenchError("the resize helper ended early");
    seen_.append(buf, n);
  }
  uint64_t t1 = now_ns();
  seen_.erase(0, pos + want.size());
  return static_cast<double>(t1 - t0) / 1e3;
}

double run_first_output(const Setup& s, Variant v) {
  PtyProc p(command_for(s, v, {"--produce", "0"}), child_env(s), kSize);
  std::string rest;
  p.read_until(kStartMarker, rest);
  double ms = static_cast<double>(now_ns() - p.spawned_ns()) / 1e6;
  p.drain();
  rusage ru{};
  expect_clean_exit(p.wait(ru), name_of(v));
  return ms;
}

}  // namespace ptybench
