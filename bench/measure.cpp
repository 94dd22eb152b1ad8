#include "measure.hpp"

#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>

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
  // DISPLAY: blaude installs its OSC 52 scanner only when a clipboard tool can reach a display;
  // with one named, blaude runs as on a desktop, scanner on (nothing here ever connects to it).
  return {"SHELL=/bin/sh", "XDG_STATE_HOME=" + s.tmpdir, "TERM=xterm", "DISPLAY=:ptybench"};
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

// Compares the stream, from its first byte, with the preamble and then the payload.
struct Checker {
  Checker(const std::string& pre, const Pattern& pat, uint64_t n, const std::string& post = std::string())
      : preamble(pre), pattern(pat), expect(n), postamble(post) {}
  const std::string& preamble;
  const Pattern& pattern;
  uint64_t expect;
  const std::string postamble;  // what the variant writes after its child's last byte
  std::string tail;             // what came after the payload
  size_t pre_got = 0;

  // At the end of the stream: what came after the payload is the variant's closing, which ends
  // with the learned postamble (blaude's undo before it depends on where the payload stopped:
  // an SGR reset, say); a variant that writes none wrote nothing.
  void finish() {
    if (!problem.empty() || tail.empty()) return;
    const bool closing = !postamble.empty() && tail.size() >= postamble.size() &&
                         tail.compare(tail.size() - postamble.size(), postamble.size(), postamble) == 0 &&
                         tail.size() - postamble.size() <= 64;
    if (!closing) problem = "extra bytes after the payload (" + std::to_string(tail.size()) + ")";
  }
  uint64_t got = 0;
  std::string problem;

  // Returns how many of the n bytes were payload.
  size_t feed(const char* p, size_t n) {
    if (!problem.empty()) return 0;
    if (pre_got < preamble.size()) {
      size_t k = std::min(n, preamble.size() - pre_got);
      for (size_t i = 0; i < k; ++i) {
        if (p[i] != preamble[pre_got + i]) {
          problem = "stream differs from the expected preamble at byte " +
                    std::to_string(pre_got + i);
          return 0;
        }
      }
      pre_got += k;
      p += k;
      n -= k;
    }
    if (got + n > expect) {
      // After the payload, only the variant's own closing bytes: checked by finish().
      const size_t in = size_t(expect - got), after = n - in;
      tail.append(p + in, after);
      if (tail.size() > 4096) {
        problem = "extra bytes after the payload (" + std::to_string(tail.size()) + "+)";
        return 0;
      }
      n = in;
    }
    size_t payload = n;
    while (n > 0) {
      size_t off = got % pattern.period;
      size_t k = std::min(n, pattern.period);
      const char* want = pattern.table.data() + off;
      if (std::memcmp(p, want, k) != 0) {
        size_t i = 0;
        while (p[i] == want[i]) ++i;
        problem = "mismatch at payload byte " + std::to_string(got + i);
        return 0;
      }
      got += k;
      p += k;
      n -= k;
    }
    return payload;
  }
};

std::vector<std::string> producer(const Shape& shape, uint64_t bytes, const std::string& report,
                                  int64_t corrupt_at) {
  std::vector<std::string> h = {"--produce", std::to_string(bytes), "--write-size",
                                std::to_string(shape.write_size)};
  if (shape.payload == Payload::Escapes) h.push_back("--escapes");
  if (!report.empty()) {
    h.push_back("--report");
    h.push_back(report);
  }
  if (corrupt_at >= 0) {
    h.push_back("--corrupt-at");
    h.push_back(std::to_string(corrupt_at));
  }
  return h;
}

void pause_us(unsigned us) {
  timespec ts{0, static_cast<long>(us) * 1000};
  nanosleep(&ts, nullptr);  // an interrupted pause is only a little shorter
}

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
    case Variant::Base:
      return "base";
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
    case Variant::Blaude:
    case Variant::Base: {
      std::vector<std::string> r = {v == Variant::Base ? s.baseline : s.blaude, "--no-sandbox"};
      r.insert(r.end(), s.blaude_args.begin(), s.blaude_args.end());
      r.push_back("--exec");
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

std::string learn_preamble(const Setup& s, Variant v, std::string* postamble) {
  // A run of 64 payload bytes: what comes before them is the preamble, what comes after them
  // the postamble (blaude writes its title push before the child's first byte, and its undo,
  // title pop and reply fence after the last).
  constexpr uint64_t kMark = 64;
  PtyProc p(command_for(s, v, producer(Shape{}, kMark, "", -1)), child_env(s), kSize);
  std::string out;
  char buf[4096];
  while (size_t n = p.read_some(buf, sizeof buf)) {
    out.append(buf, n);
    if (out.size() > 65536) throw BenchError("more than 64 KiB of output from a 64-byte run");
  }
  rusage ru{};
  expect_clean_exit(p.wait(ru), name_of(v));
  const std::string mark(pattern(Payload::Text).table.data(), kMark);
  const size_t at = out.find(mark);
  if (at == std::string::npos) throw BenchError(std::string(name_of(v)) + ": the 64 payload bytes did not arrive whole");
  if (postamble) *postamble = out.substr(at + kMark);
  return out.substr(0, at);
}

Transfer run_transfer(const Setup& s, Variant v, const Shape& shape, uint64_t bytes,
                      const std::string& preamble, int64_t corrupt_at, bool sample_rss,
                      const std::string& postamble) {
  Transfer t;
  std::string report = s.tmpdir + "/cpu-" + std::to_string(++g_run);
  PtyProc p(command_for(s, v, producer(shape, bytes, report, corrupt_at)), child_env(s), kSize);
  Checker c(preamble, pattern(shape.payload), bytes, postamble);
  std::vector<char> buf(64 * 1024);
  uint64_t t0 = 0, t1 = 0, next_sample = 0;
  while (size_t n = p.read_some(buf.data(), buf.size())) {
    if (!c.problem.empty()) continue;  // keep reading to EIO so the proxy can exit
    size_t payload = c.feed(buf.data(), n);
    if (payload > 0) {
      if (t0 == 0) t0 = now_ns();
      else t.timed_bytes += payload;
      ++t.reads;
    }
    if (sample_rss && c.got >= next_sample) {
      // VmHWM only grows, so sampling every MiB while the proxy is alive (it cannot be read
      // once it is a zombie) catches its peak.
      t.proxy_hwm_kib = std::max(t.proxy_hwm_kib, vm_hwm_kib(p.pid()));
      next_sample = c.got + (1 << 20);
    }
    if (c.got == bytes && t1 == 0) t1 = now_ns();
    if (shape.slow_us) pause_us(shape.slow_us);
  }
  rusage ru{};
  int st = p.wait(ru);
  c.finish();
  t.bytes = c.got;
  t.problem = c.problem;
  if (t.problem.empty() && c.pre_got < preamble.size())
    t.problem = "the stream ended inside the preamble";
  else if (t.problem.empty() && c.got != bytes)
    t.problem = "only " + std::to_string(c.got) + " of " + std::to_string(bytes) + " bytes arrived";
  t.exact = t.problem.empty();
  t.seconds = t1 > t0 && t0 > 0 ? static_cast<double>(t1 - t0) / 1e9 : 0;
  double total_us = usec(ru.ru_utime) + usec(ru.ru_stime);
  std::ifstream f(report);
  double pu = 0, ps = 0, pcs = 0;
  if (!(f >> pu >> ps >> pcs)) throw BenchError("the producer wrote no CPU report (" + report + ")");
  t.producer_cpu_s = (pu + ps) / 1e6;
  if (v != Variant::Direct) {
    t.proxy_cpu_s = std::max(0.0, total_us / 1e6 - t.producer_cpu_s);
    t.proxy_switches =
        std::max(0.0, static_cast<double>(ru.ru_nvcsw + ru.ru_nivcsw) - pcs);
  }
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

Start run_first_output(const Setup& s, Variant v, const std::string& preamble, const std::string& postamble) {
  constexpr uint64_t kBytes = 64;
  PtyProc p(command_for(s, v, producer(Shape{}, kBytes, "", -1)), child_env(s), kSize);
  Checker c(preamble, pattern(Payload::Text), kBytes, postamble);
  char buf[4096];
  double ms = -1;
  while (size_t n = p.read_some(buf, sizeof buf)) {
    if (c.feed(buf, n) > 0 && ms < 0) ms = static_cast<double>(now_ns() - p.spawned_ns()) / 1e6;
  }
  rusage ru{};
  expect_clean_exit(p.wait(ru), name_of(v));
  c.finish();
  if (!c.problem.empty() || c.got != kBytes)
    throw BenchError("first-output run not byte-exact: " +
                     (c.problem.empty() ? std::to_string(c.got) + " bytes" : c.problem));
  return {ms, (usec(ru.ru_utime) + usec(ru.ru_stime)) / 1e3};
}

}  // namespace ptybench
