#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ptybench {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

namespace {

std::string fmt(double x, int prec = 1) {
  if (std::isnan(x)) return "—";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, x);
  return b;
}

struct Row {
  std::string metric;
  std::array<double, 3> v;  // NaN = not applicable / not measured
  int prec;
  // ratio = blaude / v[base]; met when ratio <= limit (or >= limit if higher_better), or when
  // blaude's absolute value <= abs_limit.
  int base = -1;
  double limit = NAN;
  bool higher_better = false;
  double abs_limit = NAN;
  std::string target;
};

std::string render_row(const Row& r) {
  std::ostringstream o;
  o << "| " << r.metric;
  for (double x : r.v) o << " | " << fmt(x, r.prec);
  double b = r.v[2];
  std::string ratio = "—", met = "—";
  if (r.base >= 0 && !std::isnan(b) && !std::isnan(r.v[r.base]) && r.v[r.base] > 0) {
    double q = b / r.v[r.base];
    ratio = fmt(q, 2) + "x " + (r.base == 0 ? "direct" : "script");
    if (!std::isnan(r.limit))
      met = (r.higher_better ? q >= r.limit : q <= r.limit) ? "yes" : "**no**";
  }
  if (!std::isnan(r.abs_limit) && !std::isnan(b)) met = b <= r.abs_limit ? "yes" : "**no**";
  o << " | " << ratio << " | " << r.target << " | " << met << " |\n";
  return o.str();
}

std::array<double, 3> each(const std::array<Samples, 4>& s, auto f) {
  std::array<double, 3> r;
  for (size_t i = 0; i < 3; ++i) r[i] = s[i].ran ? f(s[i]) : NAN;
  return r;
}

}  // namespace

std::string render_table(const std::array<Samples, 4>& s, const Context& ctx) {
  auto cpu_per_gib = [](const Samples& x) {
    return x.bytes > 0 ? x.proxy_cpu_s / (x.bytes / 1073741824.0) : NAN;
  };
  std::array<double, 3> cpu = each(s, cpu_per_gib);
  cpu[0] = NAN;  // direct has no proxy
  std::array<double, 3> rss = each(s, [](const Samples& x) {
    return x.rss_kib > 0 ? static_cast<double>(x.rss_kib) / 1024.0 : NAN;
  });
  rss[0] = NAN;
  double rss_mib = s[2].rss_run_mib > 0 ? s[2].rss_run_mib : s[1].rss_run_mib;
  std::string rss_label = rss_mib > 0 ? fmt(rss_mib, 0) + " MiB proxied" : "not run";

  std::vector<Row> rows = {
      // Best of N: on a shared machine noise only ever slows a run down, so the fastest run is
      // the best estimate of what each path can do (the spread is listed below the table).
      {"throughput, MiB/s (best of " + std::to_string(ctx.reps) + " × " + fmt(ctx.size_mib, 0) +
           " MiB)",
       each(s, [](const Samples& x) { return percentile(x.mib_s, 100); }), 1, 0, 0.93, true, NAN,
       ">= 0.93x direct"},
      {"proxy CPU, s per GiB (proxy alone)", cpu, 3, 1, 0.95, false, NAN, "<= 0.95x script"},
      {"keystroke round trip p50, µs",
       each(s, [](const Samples& x) { return percentile(x.echo_us, 50); }), 1, 1, 1.0, false, NAN,
       "<= script"},
      {"keystroke round trip p99, µs",
       each(s, [](const Samples& x) { return percentile(x.echo_us, 99); }), 1, 1, 1.0, false, NAN,
       "<= script"},
      {"time to first output p50, ms",
       each(s, [](const Samples& x) { return percentile(x.first_output_ms, 50); }), 2, 1, 1.0,
       false, NAN, "<= script"},
      {"resize latency p50, µs",
       each(s, [](const Samples& x) { return percentile(x.resize_us, 50); }), 1, 1, NAN, false,
       1000, "<= 1000 µs"},
      {"resize latency p99, µs",
       each(s, [](const Samples& x) { return percentile(x.resize_us, 99); }), 1, 1, NAN, false,
       1000, "<= 1000 µs"},
      {"peak RSS of the proxy, MiB (" + rss_label + ")", rss, 2, 1, NAN, false, 8, "<= 8 MiB"},
  };
  std::ostringstream o;
  o << "| metric | direct | script | blaude | ratio | target | met? |\n"
    << "|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) o << render_row(r);
  o << "\n";
  o << "byte-exact:";
  static const char* names[] = {"direct", "script", "blaude", "relay"};
  for (size_t i = 0; i < 4; ++i)
    if (s[i].ran) o << " " << names[i] << " " << (s[i].exact ? "yes" : "NO");
  o << " (every payload byte compared with the pattern)\n";
  for (size_t i = 0; i < 4; ++i) {
    if (!s[i].ran || s[i].bytes == 0) continue;
    o << "- " << names[i] << ": throughput min/median/max " << fmt(percentile(s[i].mib_s, 0)) << "/"
      << fmt(percentile(s[i].mib_s, 50)) << "/" << fmt(percentile(s[i].mib_s, 100))
      << " MiB/s; producer CPU " << fmt(s[i].producer_cpu_s / (s[i].bytes / 1073741824.0), 3)
      << " s/GiB; " << s[i].echo_us.size() << " round trips, " << s[i].resize_us.size()
      << " resizes, " << s[i].first_output_ms.size() << " starts";
    if (s[i].rss_run_mib > 0)
      o << "; big run " << fmt(s[i].rss_run_mib, 0) << " MiB at " << fmt(s[i].rss_run_mib_s)
        << " MiB/s";
    o << "\n";
  }
  if (s[3].ran) {
    const Samples& r = s[3];
    double tp = percentile(r.mib_s, 100), tpd = percentile(s[0].mib_s, 100);
    double cpu_r = cpu_per_gib(r), cpu_s = s[1].ran ? cpu_per_gib(s[1]) : NAN;
    o << "- floor, ptybench's minimal poll/read/write relay: best throughput " << fmt(tp)
      << " MiB/s (" << fmt(tp / tpd, 2) << "x direct), proxy CPU " << fmt(cpu_r, 3) << " s/GiB ("
      << fmt(cpu_r / cpu_s, 2) << "x script), round trip p50/p99 " << fmt(percentile(r.echo_us, 50))
      << "/" << fmt(percentile(r.echo_us, 99)) << " µs, resize p50/p99 "
      << fmt(percentile(r.resize_us, 50)) << "/" << fmt(percentile(r.resize_us, 99))
      << " µs, first output p50 " << fmt(percentile(r.first_output_ms, 50), 2) << " ms\n";
  }
  o << "- load average before: " << ctx.load_before << "; after: " << ctx.load_after << "\n";
  for (const auto& p : ctx.problems) o << "- PROBLEM: " << p << "\n";
  return o.str();
}

}  // namespace ptybench
