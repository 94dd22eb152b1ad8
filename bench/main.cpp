// ptybench: measures a pty proxy against the bare pty and against script(1), side by side.
// Usage: ptybench --blaude PATH [options]; the helper modes (--produce, --echo, --winch) are
// what runs inside the pty under test.
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "measure.hpp"
#include "ptyproc.hpp"
#include "report.hpp"

using namespace ptybench;

namespace {

const char* kUsage =
    "usage: ptybench --blaude PATH [options]\n"
    "  --blaude PATH          blaude binary (run as: blaude --no-sandbox --exec CMD)\n"
    "  --script PATH          util-linux script (default: script)\n"
    "  --variants LIST        comma list of direct,script,blaude,relay (default: all four;\n"
    "                         relay is ptybench's own minimal poll/read/write relay: the floor)\n"
    "  --size MIB             payload per throughput run (default 48)\n"
    "  --reps N               repetitions, interleaved across variants (default 7)\n"
    "  --rss-size MIB         one extra run each for script and blaude, for peak RSS\n"
    "                         (default 1024; 0 skips)\n"
    "  --latency-samples N    keystroke round trips per variant (default 2000)\n"
    "  --resize-samples N     resizes per variant (default 200)\n"
    "  --start-samples N      starts per variant for time to first output (default 20)\n"
    "  --corrupt-at N         control: the producer flips payload byte N (must be reported)\n"
    "helper modes: --produce BYTES [--report FILE] [--corrupt-at N] | --echo | --winch |\n"
    "              --relay CMD ARGS...\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "ptybench: %s\nTry 'ptybench --help'.\n", msg.c_str());
  return 2;
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  f >> a >> b >> c;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
  return buf;
}

struct Config {
  Setup setup;
  std::vector<Variant> variants;
  double size_mib = 48, rss_mib = 1024;
  int reps = 7, latency = 2000, resize = 200, starts = 20;
  int64_t corrupt_at = -1;
};

bool parse_variants(const std::string& list, std::vector<Variant>& out) {
  out.clear();
  size_t i = 0;
  while (i <= list.size()) {
    size_t j = list.find(',', i);
    if (j == std::string::npos) j = list.size();
    std::string n = list.substr(i, j - i);
    if (n == "direct")
      out.push_back(Variant::Direct);
    else if (n == "script")
      out.push_back(Variant::Script);
    else if (n == "blaude")
      out.push_back(Variant::Blaude);
    else if (n == "relay")
      out.push_back(Variant::Relay);
    else
      return false;
    i = j + 1;
  }
  return !out.empty();
}

bool on_path(const std::string& cmd) {
  if (cmd.find('/') != std::string::npos) return access(cmd.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (size_t i = 0; i <= p.size();) {
    size_t j = p.find(':', i);
    if (j == std::string::npos) j = p.size();
    if (access((p.substr(i, j - i) + "/" + cmd).c_str(), X_OK) == 0) return true;
    i = j + 1;
  }
  return false;
}

// Runs one measurement, turning a failure into a recorded problem instead of an abort.
template <class F>
void attempt(Context& ctx, Samples& s, Variant v, const char* what, F f) {
  try {
    f();
  } catch (const std::exception& e) {
    ctx.problems.push_back(std::string(name_of(v)) + " " + what + ": " + e.what());
    s.exact = false;
  }
}

// One probe per variant, all open at once; samples alternate A B C A B C ... after a warm-up.
template <class P, class Out>
void sample_side_by_side(const Config& c, std::array<Samples, 4>& s, Context& ctx, const char* what,
                         int samples, Out out) {
  std::vector<std::pair<Variant, std::unique_ptr<Probe>>> probes;
  for (Variant v : c.variants) {
    attempt(ctx, s[static_cast<size_t>(v)], v, what,
            [&] { probes.emplace_back(v, std::make_unique<P>(c.setup, v)); });
  }
  constexpr int kWarmup = 5;
  for (int i = 0; i < samples + kWarmup; ++i) {
    // Plain references, not structured bindings: clang before 16 cannot capture those.
    for (auto& entry : probes) {
      Variant v = entry.first;
      std::unique_ptr<Probe>& probe = entry.second;
      if (!probe) continue;
      attempt(ctx, s[static_cast<size_t>(v)], v, what, [&] {
        try {
          double us = probe->sample_us();
          if (i >= kWarmup) out(s[static_cast<size_t>(v)]).push_back(us);
        } catch (...) {
          probe.reset();  // its destructor kills and reaps the helper
          throw;
        }
      });
    }
  }
  for (auto& entry : probes) {
    Probe* probe = entry.second.get();
    if (probe)
      attempt(ctx, s[static_cast<size_t>(entry.first)], entry.first, what,
              [&] { probe->finish(); });
  }
}

int bench(Config& c, const std::string& cmdline) {
  char tmpl[] = "/tmp/ptybench.XXXXXX";
  if (!mkdtemp(tmpl)) return usage_error("cannot create a temp dir");
  c.setup.tmpdir = tmpl;
  std::array<Samples, 4> s;
  Context ctx;
  ctx.command = cmdline;
  ctx.reps = c.reps;
  ctx.size_mib = c.size_mib;
  ctx.load_before = loadavg();
  for (Variant v : c.variants) s[static_cast<size_t>(v)].ran = true;
  auto bytes = static_cast<uint64_t>(c.size_mib * 1048576.0);

  for (int r = 0; r < c.reps; ++r) {
    for (Variant v : c.variants) {
      Samples& x = s[static_cast<size_t>(v)];
      std::fprintf(stderr, "throughput %d/%d %s...\n", r + 1, c.reps, name_of(v));
      attempt(ctx, x, v, "throughput", [&] {
        Transfer t = run_transfer(c.setup, v, bytes, c.corrupt_at);
        if (!t.exact) {
          ctx.problems.push_back(std::string(name_of(v)) +
                                 " transfer not byte-exact: " + t.problem);
          x.exact = false;
          return;
        }
        if (t.seconds > 0) x.mib_s.push_back(static_cast<double>(t.bytes) / 1048576.0 / t.seconds);
        x.proxy_cpu_s += t.proxy_cpu_s;
        x.producer_cpu_s += t.producer_cpu_s;
        x.bytes += static_cast<double>(t.bytes);
      });
    }
  }
  for (int r = 0; r < c.reps; ++r) {
    std::fprintf(stderr, "latency %d/%d...\n", r + 1, c.reps);
    sample_side_by_side<EchoProbe>(c, s, ctx, "keystroke latency", std::max(1, c.latency / c.reps),
                                   [](Samples& x) -> std::vector<double>& { return x.echo_us; });
    sample_side_by_side<ResizeProbe>(
        c, s, ctx, "resize latency", std::max(1, c.resize / c.reps),
        [](Samples& x) -> std::vector<double>& { return x.resize_us; });
  }
  std::fprintf(stderr, "time to first output...\n");
  for (int i = 0; i < c.starts; ++i) {
    for (Variant v : c.variants) {
      Samples& x = s[static_cast<size_t>(v)];
      attempt(ctx, x, v, "first output",
              [&] { x.first_output_ms.push_back(run_first_output(c.setup, v)); });
    }
  }
  if (c.rss_mib > 0) {
    for (Variant v : c.variants) {
      if (v == Variant::Direct || v == Variant::Relay) continue;
      Samples& x = s[static_cast<size_t>(v)];
      std::fprintf(stderr, "peak RSS, %.0f MiB through %s...\n", c.rss_mib, name_of(v));
      attempt(ctx, x, v, "big run", [&] {
        Transfer t = run_transfer(c.setup, v, static_cast<uint64_t>(c.rss_mib * 1048576.0));
        if (!t.exact) {
          ctx.problems.push_back(std::string(name_of(v)) + " big run not byte-exact: " + t.problem);
          x.exact = false;
          return;
        }
        x.rss_kib = t.proxy_hwm_kib;
        x.rss_run_mib = c.rss_mib;
        x.rss_run_mib_s = t.seconds > 0 ? static_cast<double>(t.bytes) / 1048576.0 / t.seconds : 0;
      });
    }
  }
  ctx.load_after = loadavg();
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);  // CPU reports and blaude's log (XDG_STATE_HOME)
  utsname u{};
  uname(&u);
  std::printf("`%s`  \n%ld CPUs, Linux %s\n\n", cmdline.c_str(), sysconf(_SC_NPROCESSORS_ONLN),
              u.release);
  std::fputs(render_table(s, ctx).c_str(), stdout);
  bool ok = ctx.problems.empty();
  for (Variant v : c.variants) ok = ok && s[static_cast<size_t>(v)].exact;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  auto num = [&](size_t& i, double& out) {
    if (i + 1 >= a.size()) return false;
    char* end = nullptr;
    out = std::strtod(a[++i].c_str(), &end);
    return end && *end == '\0' && out >= 0 && std::isfinite(out);
  };
  // Helper modes first: they are what the proxies run.
  if (!a.empty() && a[0] == "--echo") return run_echo();
  if (!a.empty() && a[0] == "--winch") return run_winch();
  if (!a.empty() && a[0] == "--relay") {
    if (argc < 3) return usage_error("--relay needs a command");
    return run_relay(argv + 2);
  }
  if (!a.empty() && a[0] == "--produce") {
    double n = 0, k = -1;
    std::string report;
    size_t i = 0;
    if (!num(i, n)) return usage_error("--produce needs a byte count");
    for (++i; i < a.size(); ++i) {
      if (a[i] == "--report" && i + 1 < a.size())
        report = a[++i];
      else if (a[i] == "--corrupt-at" && num(i, k)) {
      } else
        return usage_error("unknown producer option " + a[i]);
    }
    return run_producer(static_cast<uint64_t>(n), report, static_cast<int64_t>(k));
  }

  Config c;
  c.setup.script = "script";
  parse_variants("direct,script,blaude,relay", c.variants);
  std::string cmdline = "ptybench";
  for (const auto& s : a) cmdline += " " + s;
  for (size_t i = 0; i < a.size(); ++i) {
    double x;
    const std::string& o = a[i];
    if (o == "--help" || o == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (o == "--blaude" && i + 1 < a.size()) {
      c.setup.blaude = a[++i];
    } else if (o == "--script" && i + 1 < a.size()) {
      c.setup.script = a[++i];
    } else if (o == "--variants" && i + 1 < a.size()) {
      if (!parse_variants(a[++i], c.variants)) return usage_error("bad --variants: " + a[i]);
    } else if (o == "--size" && num(i, x)) {
      c.size_mib = x;
    } else if (o == "--rss-size" && num(i, x)) {
      c.rss_mib = x;
    } else if (o == "--reps" && num(i, x) && x >= 1) {
      c.reps = static_cast<int>(x);
    } else if (o == "--latency-samples" && num(i, x) && x >= 1) {
      c.latency = static_cast<int>(x);
    } else if (o == "--resize-samples" && num(i, x) && x >= 1) {
      c.resize = static_cast<int>(x);
    } else if (o == "--start-samples" && num(i, x) && x >= 1) {
      c.starts = static_cast<int>(x);
    } else if (o == "--corrupt-at" && num(i, x)) {
      c.corrupt_at = static_cast<int64_t>(x);
    } else {
      return usage_error("bad option or value: " + o);
    }
  }
  bool want_script = false;
  for (Variant v : c.variants) want_script |= v == Variant::Script;
  if (want_script && !on_path(c.setup.script))
    return usage_error(c.setup.script +
                       " not found (util-linux script is the peer)\n"
                       "Install util-linux, pass --script PATH, or leave it out with --variants");
  bool want_blaude = false;
  for (Variant v : c.variants) want_blaude |= v == Variant::Blaude;
  if (want_blaude && c.setup.blaude.empty())
    return usage_error("--blaude PATH is needed (or leave blaude out of --variants)");
  if (want_blaude && access(c.setup.blaude.c_str(), X_OK) != 0)
    return usage_error("cannot execute " + c.setup.blaude);
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return usage_error("cannot find this binary (/proc/self/exe)");
  c.setup.self.assign(self, static_cast<size_t>(n));
  try {
    return bench(c, cmdline);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptybench: %s\n", e.what());
    return 1;
  }
}
