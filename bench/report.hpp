// Collected samples and the markdown tables that compare them with the targets.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "measure.hpp"

namespace ptybench {

constexpr size_t kVariants = 5;  // indexed by Variant

// One producer shape under one variant, over the interleaved repetitions.
struct Cell {
  std::vector<double> mib_s;      // per rep (NaN: that rep failed)
  std::vector<double> cpu_s_gib;  // per rep, the proxy alone
  double proxy_cpu_s = 0, producer_cpu_s = 0, bytes = 0, proxy_switches = 0;
  double halts = 0;    // CPU idle-state entries during its runs, whole machine (idle.hpp)
  uint64_t reads = 0;  // the driver's reads
  bool exact = true;
};

// Per variant, whatever is not per shape.
struct VariantSamples {
  bool ran = false;
  bool exact = true;
  std::string preamble;
  std::string postamble;  // what the variant writes after its child's last byte
  std::vector<double> echo_us, resize_us, first_output_ms;
  std::vector<double> start_cpu_ms;  // CPU of each whole start (variant + producer)
  long rss_kib = 0;        // peak RSS while proxying the big run
  double rss_run_mib = 0;  // its size
  double rss_run_mib_s = 0;
};

struct Results {
  std::vector<Shape> shapes;
  std::vector<std::array<Cell, kVariants>> cells;  // [shape][variant]
  std::array<VariantSamples, kVariants> v;
  std::string command;
  std::string load_before, load_after;
  std::string idle;  // the CPUs' idle states, and whether the bench kept them awake
  int reps = 0;
  double size_mib = 0;
  std::vector<std::string> problems;

  bool ran(Variant x) const { return v[static_cast<size_t>(x)].ran; }
};

double percentile(std::vector<double> v, double p);  // nearest rank, NaNs dropped; NaN if empty
// Median of a[i] / b[i] over the reps where both exist: pairs run back to back, so a slow
// stretch of the machine hits both sides of each pair alike.
double paired_ratio(const std::vector<double>& a, const std::vector<double>& b, double p = 50);

std::string render(const Results& r);

}  // namespace ptybench
