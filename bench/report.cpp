#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ptybench {

double percentile(std::vector<double> v, double p) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

double paired_ratio(const std::vector<double>& a, const std::vector<double>& b, double p) {
  std::vector<double> q;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (!std::isnan(a[i]) && !std::isnan(b[i]) && b[i] > 0) q.push_back(a[i] / b[i]);
  return percentile(q, p);
}

namespace {

constexpr size_t D = 0, S = 1, B = 2, R = 3, X = 4;  // Variant order: Direct Script Blaude Relay Base
constexpr size_t kColumns[] = {D, S, R, B};          // as the tables show them (and base, if run)

std::string header(const Results& r, const std::string& first, const std::string& rest) {
  std::string h = "| " + first + " | direct | script | relay | blaude";
  size_t n = 5;
  if (r.v[X].ran) h += " | base", ++n;
  h += rest + "\n|";
  size_t cols = n + static_cast<size_t>(std::count(rest.begin(), rest.end(), '|')) - 1;
  for (size_t i = 0; i < cols; ++i) h += "---|";
  return h + "\n";
}

std::vector<size_t> columns(const Results& r) {
  std::vector<size_t> c(std::begin(kColumns), std::end(kColumns));
  if (r.v[X].ran) c.push_back(X);
  return c;
}

std::string fmt(double x, int prec = 1) {
  if (std::isnan(x)) return "—";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, x);
  return b;
}

std::string met(bool ok) { return ok ? "yes" : "**no**"; }

double cpu_per_gib(const Cell& c) {
  return c.bytes > 0 ? c.proxy_cpu_s / (c.bytes / 1073741824.0) : NAN;
}

// "0.97 (0.91–1.02)": the median of the paired ratios and their spread.
std::string ratio_cell(const std::vector<double>& a, const std::vector<double>& b) {
  double m = paired_ratio(a, b);
  if (std::isnan(m)) return "—";
  return fmt(m, 2) + " (" + fmt(paired_ratio(a, b, 0), 2) + "–" + fmt(paired_ratio(a, b, 100), 2) +
         ")";
}

struct Verdicts {
  std::vector<std::string> lines;
  void add(const std::string& what, const std::string& value, bool ok) {
    lines.push_back("| " + what + " | " + value + " | " + met(ok) + " |");
  }
};

void throughput_table(const Results& r, std::ostringstream& o, Verdicts& verdict) {
  o << "Throughput, MiB/s: median of " << r.reps
    << " interleaved runs [best]; ratios are medians of the per-run pairs (min–max).\n\n"
    << header(r, "shape",
              std::string(" | blaude / relay | blaude / direct") +
                  (r.v[X].ran ? " | blaude / base" : "") + " | limit: no proxy above direct |");
  for (size_t i = 0; i < r.shapes.size(); ++i) {
    const auto& c = r.cells[i];
    o << "| " << r.shapes[i].name;
    for (size_t k : columns(r)) {
      if (!r.v[k].ran) {
        o << " | —";
        continue;
      }
      o << " | " << fmt(percentile(c[k].mib_s, 50)) << " [" << fmt(percentile(c[k].mib_s, 100))
        << "]";
    }
    double direct = percentile(c[D].mib_s, 50);
    bool limit = true;
    std::string over;
    for (size_t k : {S, B, R, X}) {
      double x = percentile(c[k].mib_s, 50);
      if (r.v[k].ran && !std::isnan(direct) && x > direct) {
        limit = false;
        over += (over.empty() ? "" : ", ") + std::string(name_of(static_cast<Variant>(k)));
      }
    }
    o << " | " << ratio_cell(c[B].mib_s, c[R].mib_s) << " | " << ratio_cell(c[B].mib_s, c[D].mib_s);
    if (r.v[X].ran) o << " | " << ratio_cell(c[B].mib_s, c[X].mib_s);
    o << " | "
      << (r.shapes[i].slow_us ? "(reader-bound)"
          : r.v[D].ran        ? (limit ? "yes" : "**no**: " + over)
                              : "—")
      << " |\n";
    if (r.v[B].ran && r.v[R].ran && r.shapes[i].slow_us == 0) {
      double q = paired_ratio(c[B].mib_s, c[R].mib_s);
      verdict.add("throughput >= 0.95x relay, " + r.shapes[i].name, fmt(q, 2) + "x", q >= 0.95);
    }
  }
  o << "\n";
}

void cpu_table(const Results& r, std::ostringstream& o, Verdicts& verdict) {
  o << "Proxy CPU, s per GiB (user+sys of the proxy and its reaped children, minus the "
       "producer's own; over all runs); ratios are medians of the per-run pairs (min–max):\n\n"
    << header(r, "shape",
              std::string(" | blaude / script") + (r.v[X].ran ? " | blaude / base" : "") +
                  " | driver reads per MiB (direct / blaude) | proxy context switches per MiB "
                  "(script / relay / blaude) | CPU halts per MiB (direct / relay / blaude) |");
  for (size_t i = 0; i < r.shapes.size(); ++i) {
    const auto& c = r.cells[i];
    o << "| " << r.shapes[i].name;
    for (size_t k : columns(r)) {
      // direct has no proxy: its column shows the producer's own CPU.
      double x = k == D ? (c[D].bytes > 0 ? c[D].producer_cpu_s / (c[D].bytes / 1073741824.0) : NAN)
                        : cpu_per_gib(c[k]);
      o << " | " << (r.v[k].ran ? fmt(x, 3) : "—") << (k == D && r.v[k].ran ? " (producer)" : "");
    }
    double q = paired_ratio(c[B].cpu_s_gib, c[S].cpu_s_gib);
    auto per_mib = [](const Cell& x) {
      return x.bytes > 0 ? static_cast<double>(x.reads) / (x.bytes / 1048576.0) : NAN;
    };
    o << " | " << ratio_cell(c[B].cpu_s_gib, c[S].cpu_s_gib);
    if (r.v[X].ran) o << " | " << ratio_cell(c[B].cpu_s_gib, c[X].cpu_s_gib);
    auto cs = [](const Cell& x) { return x.bytes > 0 ? x.proxy_switches / (x.bytes / 1048576.0) : NAN; };
    o << " | " << fmt(per_mib(c[D]), 0) << " / " << fmt(per_mib(c[B]), 0) << " | " << fmt(cs(c[S]), 0)
      << " / " << fmt(cs(c[R]), 0) << " / " << fmt(cs(c[B]), 0) << " | ";
    auto halts = [](const Cell& x) { return x.bytes > 0 ? x.halts / (x.bytes / 1048576.0) : NAN; };
    o << fmt(halts(c[D]), 1) << " / " << fmt(halts(c[R]), 1) << " / " << fmt(halts(c[B]), 1) << " |\n";
    if (r.v[B].ran && r.v[S].ran)
      verdict.add("CPU per GiB <= 0.95x script, " + r.shapes[i].name, fmt(q, 2) + "x", q <= 0.95);
  }
  o << "\n";
}

void latency_table(const Results& r, std::ostringstream& o, Verdicts& verdict) {
  o << header(r, "per start / keystroke",
              std::string(" | blaude / script") + (r.v[X].ran ? " | blaude / base" : "") + " |");
  struct Line {
    const char* name;
    std::vector<double> VariantSamples::*v;
    double p;
    int prec;
  };
  const Line lines[] = {
      {"time to first output p50, ms", &VariantSamples::first_output_ms, 50, 2},
      {"CPU per start p50, ms (all processes)", &VariantSamples::start_cpu_ms, 50, 2},
      {"keystroke round trip p50, µs", &VariantSamples::echo_us, 50, 1},
      {"keystroke round trip p99, µs", &VariantSamples::echo_us, 99, 1},
      {"resize latency p50, µs", &VariantSamples::resize_us, 50, 1},
      {"resize latency p99, µs", &VariantSamples::resize_us, 99, 1},
  };
  for (const Line& l : lines) {
    o << "| " << l.name;
    for (size_t k : columns(r))
      o << " | " << (r.v[k].ran ? fmt(percentile(r.v[k].*l.v, l.p), l.prec) : "—");
    double q = percentile(r.v[B].*l.v, l.p) / percentile(r.v[S].*l.v, l.p);
    o << " | " << fmt(q, 2);
    if (r.v[X].ran) o << " | " << fmt(percentile(r.v[B].*l.v, l.p) / percentile(r.v[X].*l.v, l.p), 2);
    o << " |\n";
  }
  if (r.v[B].ran && r.v[S].ran) {
    double q = percentile(r.v[B].first_output_ms, 50) / percentile(r.v[S].first_output_ms, 50);
    verdict.add("time to first output p50 <= script", fmt(q, 2) + "x", q <= 1.0);
    for (double p : {50.0, 99.0}) {
      double e = percentile(r.v[B].echo_us, p) / percentile(r.v[S].echo_us, p);
      verdict.add("keystroke round trip p" + fmt(p, 0) + " <= script", fmt(e, 2) + "x", e <= 1.0);
    }
    double rz = percentile(r.v[B].resize_us, 99);
    verdict.add("resize latency p99 <= 1000 µs", fmt(rz) + " µs", rz <= 1000);
  }
  if (r.v[B].rss_kib > 0) {
    double mib = static_cast<double>(r.v[B].rss_kib) / 1024.0;
    verdict.add("peak RSS <= 8 MiB while " + fmt(r.v[B].rss_run_mib, 0) + " MiB pass",
                fmt(mib, 2) + " MiB (script " +
                    fmt(static_cast<double>(r.v[S].rss_kib) / 1024.0, 2) + ")",
                mib <= 8);
  }
  o << "\n";
}

}  // namespace

std::string render(const Results& r) {
  std::ostringstream o;
  Verdicts verdict;
  throughput_table(r, o, verdict);
  cpu_table(r, o, verdict);
  latency_table(r, o, verdict);
  if (!verdict.lines.empty()) {
    o << "| target | blaude | met? |\n|---|---|---|\n";
    for (const auto& l : verdict.lines) o << l << "\n";
    o << "\n";
  }
  o << "byte-exact:";
  for (size_t k = 0; k < kVariants; ++k) {
    if (!r.v[k].ran) continue;
    bool ok = r.v[k].exact;
    for (const auto& c : r.cells) ok = ok && c[k].exact;
    o << " " << name_of(static_cast<Variant>(k)) << " " << (ok ? "yes" : "NO");
  }
  o << " (every byte of every stream compared, from the first)\n";
  for (size_t k = 0; k < kVariants; ++k) {
    if (!r.v[k].ran) continue;
    o << "- " << name_of(static_cast<Variant>(k)) << ": preamble " << r.v[k].preamble.size()
      << " bytes; " << r.v[k].echo_us.size() << " round trips, " << r.v[k].resize_us.size()
      << " resizes, " << r.v[k].first_output_ms.size() << " starts";
    if (r.v[k].rss_run_mib > 0)
      o << "; big run " << fmt(r.v[k].rss_run_mib, 0) << " MiB at " << fmt(r.v[k].rss_run_mib_s)
        << " MiB/s";
    o << "\n";
  }
  o << "- CPU idle: " << r.idle << "\n";
  o << "- load average before: " << r.load_before << "; after: " << r.load_after << "\n";
  for (const auto& p : r.problems) o << "- PROBLEM: " << p << "\n";
  return o.str();
}

}  // namespace ptybench
