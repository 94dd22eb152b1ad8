#include "run.hpp"

#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>

#include "idle.hpp"
#include "report.hpp"

namespace ptybench {

const char* const kDefaultShapes = "text-4k,text-64k,text-1m,escapes-64k,slow-64k";
const char* const kShapeHelp =
    "text-4k text-64k text-1m: printable text in writes of 4 KiB / 64 KiB / 1 MiB;\n"
    "escapes-4k escapes-64k: TUI output (SGR, cursor moves, titles, links: an ESC every ~14 B);\n"
    "slow-64k: text, and a terminal that sleeps 200 µs after every read (1/4 of --size)";

namespace {

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  f >> a >> b >> c;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
  return buf;
}

size_t idx(Variant v) { return static_cast<size_t>(v); }

// Runs one measurement, turning a failure into a recorded problem instead of an abort.
template <class F>
bool attempt(Results& r, Variant v, const std::string& what, F f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    r.problems.push_back(std::string(name_of(v)) + " " + what + ": " + e.what());
    r.v[idx(v)].exact = false;
    return false;
  }
}

// One probe per variant, all open at once; samples alternate A B C A B C ... after a warm-up.
template <class P, class Out>
void sample_side_by_side(const Config& c, Results& r, const char* what, int samples, Out out) {
  std::vector<std::pair<Variant, std::unique_ptr<Probe>>> probes;
  for (Variant v : c.variants)
    attempt(r, v, what, [&] { probes.emplace_back(v, std::make_unique<P>(c.setup, v)); });
  constexpr int kWarmup = 5;
  for (int i = 0; i < samples + kWarmup; ++i) {
    // Plain references, not structured bindings: clang before 16 cannot capture those.
    for (auto& entry : probes) {
      Variant v = entry.first;
      std::unique_ptr<Probe>& probe = entry.second;
      if (!probe) continue;
      attempt(r, v, what, [&] {
        try {
          double us = probe->sample_us();
          if (i >= kWarmup) out(r.v[idx(v)]).push_back(us);
        } catch (...) {
          probe.reset();  // its destructor kills and reaps the helper
          throw;
        }
      });
    }
  }
  for (auto& entry : probes) {
    Probe* probe = entry.second.get();
    if (probe) attempt(r, entry.first, what, [&] { probe->finish(); });
  }
}

uint64_t bytes_for(const Config& c, const Shape& s) {
  auto n = static_cast<uint64_t>(c.size_mib * s.size_factor * 1048576.0);
  if (s.payload == Payload::Escapes && n > 0) {
    // Whole periods: the stream ends where the payload's state is the terminal's default.
    size_t period = pattern(s.payload).period;
    n = (n + period - 1) / period * period;
  }
  return n;
}

// The variants in a fresh order at each round (shuffled, seeded by the round: the same run
// gives the same orders), not always the same order: what a session leaves behind as it ends
// delays the next start (the start after script's was ~8 ms slower at the median here), and in a
// fixed order, or a rotation of it (which keeps who follows whom), that falls on one variant
// (blaude's, after script's in the default order) instead of on every variant alike.
std::vector<Variant> shuffled(const std::vector<Variant>& vs, size_t round) {
  std::vector<Variant> out = vs;
  std::mt19937 rng(static_cast<std::mt19937::result_type>(round * 2654435761u + 1));
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

void throughput(const Config& c, Results& r) {
  for (int rep = 0; rep < c.reps; ++rep) {
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      const Shape& shape = c.shapes[i];
      for (Variant v : shuffled(c.variants, size_t(rep) * c.shapes.size() + i)) {
        Cell& cell = r.cells[i][idx(v)];
        std::fprintf(stderr, "throughput %d/%d %s %s...\n", rep + 1, c.reps, shape.name.c_str(),
                     name_of(v));
        double mib_s = NAN, cpu = NAN;
        attempt(r, v, "throughput " + shape.name, [&] {
          uint64_t halts0 = cpu_halts();
          Transfer t = run_transfer(c.setup, v, shape, bytes_for(c, shape),
                                    r.v[idx(v)].preamble, c.corrupt_at, false, r.v[idx(v)].postamble);
          if (!t.exact) {
            r.problems.push_back(std::string(name_of(v)) + " " + shape.name +
                                 " transfer not byte-exact: " + t.problem);
            cell.exact = false;
            return;
          }
          if (t.seconds > 0) mib_s = static_cast<double>(t.timed_bytes) / 1048576.0 / t.seconds;
          if (t.bytes > 0) cpu = t.proxy_cpu_s / (static_cast<double>(t.bytes) / 1073741824.0);
          cell.proxy_cpu_s += t.proxy_cpu_s;
          cell.producer_cpu_s += t.producer_cpu_s;
          cell.proxy_switches += t.proxy_switches;
          cell.bytes += static_cast<double>(t.bytes);
          cell.reads += t.reads;
          cell.halts += static_cast<double>(cpu_halts() - halts0);
        });
        cell.mib_s.push_back(mib_s);
        cell.cpu_s_gib.push_back(cpu);
      }
    }
  }
}

void latencies(const Config& c, Results& r) {
  for (int rep = 0; rep < c.reps; ++rep) {
    std::fprintf(stderr, "latency %d/%d...\n", rep + 1, c.reps);
    sample_side_by_side<EchoProbe>(c, r, "keystroke latency", std::max(1, c.latency / c.reps),
                                   [](VariantSamples& x) -> auto& { return x.echo_us; });
    sample_side_by_side<ResizeProbe>(c, r, "resize latency", std::max(1, c.resize / c.reps),
                                     [](VariantSamples& x) -> auto& { return x.resize_us; });
  }
}

void starts(const Config& c, Results& r) {
  std::fprintf(stderr, "time to first output...\n");
  for (int i = 0; i < c.starts; ++i) {
    for (Variant v : shuffled(c.variants, size_t(i))) {
      VariantSamples& x = r.v[idx(v)];
      attempt(r, v, "first output", [&] {
        Start st = run_first_output(c.setup, v, x.preamble, x.postamble);
        x.first_output_ms.push_back(st.first_output_ms);
        x.start_cpu_ms.push_back(st.cpu_ms);
      });
    }
  }
}

void peak_rss(const Config& c, Results& r) {
  Shape shape{"text-64k", Payload::Text, 64 * 1024};
  for (Variant v : c.variants) {
    if (v == Variant::Direct || v == Variant::Relay) continue;  // no proxy / not ours
    VariantSamples& x = r.v[idx(v)];
    std::fprintf(stderr, "peak RSS, %.0f MiB through %s...\n", c.rss_mib, name_of(v));
    attempt(r, v, "big run", [&] {
      Transfer t = run_transfer(c.setup, v, shape, static_cast<uint64_t>(c.rss_mib * 1048576.0),
                                x.preamble, -1, true, x.postamble);
      if (!t.exact) {
        r.problems.push_back(std::string(name_of(v)) + " big run not byte-exact: " + t.problem);
        x.exact = false;
        return;
      }
      x.rss_kib = t.proxy_hwm_kib;
      x.rss_run_mib = c.rss_mib;
      x.rss_run_mib_s = t.seconds > 0 ? static_cast<double>(t.timed_bytes) / 1048576.0 / t.seconds
                                      : 0;
    });
  }
}

}  // namespace

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= list.size()) {
    size_t j = list.find(',', i);
    if (j == std::string::npos) j = list.size();
    out.push_back(list.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool parse_shapes(const std::string& list, std::vector<Shape>& out) {
  out.clear();
  for (const std::string& n : split_commas(list)) {
    Shape s{n, Payload::Text, 64 * 1024};
    if (n == "text-4k") s.write_size = 4096;
    else if (n == "text-64k") {
    } else if (n == "text-1m") s.write_size = 1 << 20;
    else if (n == "escapes-4k") s.payload = Payload::Escapes, s.write_size = 4096;
    else if (n == "escapes-64k") s.payload = Payload::Escapes;
    else if (n == "slow-64k") s.slow_us = 200, s.size_factor = 0.25;
    else return false;
    out.push_back(s);
  }
  return !out.empty();
}

int run_bench(Config& c, const std::string& cmdline) {
  char tmpl[] = "/tmp/ptybench.XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::fprintf(stderr, "ptybench: cannot create a temp dir\n");
    return 1;
  }
  c.setup.tmpdir = tmpl;
  Results r;
  r.command = cmdline;
  r.reps = c.reps;
  r.size_mib = c.size_mib;
  r.shapes = c.shapes;
  r.cells.resize(c.shapes.size());
  r.load_before = loadavg();
  for (Variant v : c.variants) {
    r.v[idx(v)].ran = true;
    // Also a warm-up: the first start of each program pays for a cold page cache.
    attempt(r, v, "preamble",
            [&] { r.v[idx(v)].preamble = learn_preamble(c.setup, v, &r.v[idx(v)].postamble); });
    if (c.wrong_preamble) r.v[idx(v)].preamble += 'X';
  }
  for (const Shape& s : c.shapes) pattern(s.payload);  // the driver's tables, built untimed
  r.idle = idle_description() + (c.awake ? "; CPUs kept awake (SCHED_IDLE spinners, --awake) but for the "
                                           "time-to-first-output starts"
                                         : "; CPUs may halt when idle (--no-awake)");
  std::optional<Awake> awake;
  if (c.awake) awake.emplace();
  throughput(c, r);
  latencies(c, r);
  // Starts without the spinners: with them every variant's start measured ~2x slower and noisier,
  // direct's own included (time to first output 1.88 -> 3.76 ms, script 5.39 -> 10.95, the relay
  // 3.52 -> 8.31). A start is process creations and execs on a
  // VM whose vCPUs then look busy, not a stream of per-chunk wake-ups (what the spinners are for).
  awake.reset();
  starts(c, r);
  if (c.rss_mib > 0) peak_rss(c, r);
  r.load_after = loadavg();
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);  // CPU reports and blaude's log (XDG_STATE_HOME)
  utsname u{};
  uname(&u);
  std::printf("`%s`  \n%ld CPUs, Linux %s\n\n", cmdline.c_str(), sysconf(_SC_NPROCESSORS_ONLN),
              u.release);
  std::fputs(render(r).c_str(), stdout);
  bool ok = r.problems.empty();
  for (Variant v : c.variants) {
    ok = ok && r.v[idx(v)].exact;
    for (const auto& cell : r.cells) ok = ok && cell[idx(v)].exact;
  }
  return ok ? 0 : 1;
}

}  // namespace ptybench
