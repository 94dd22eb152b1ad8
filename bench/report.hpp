// Collected samples per variant and the markdown table that compares them with the targets.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "measure.hpp"

namespace ptybench {

struct Samples {
  std::vector<double> mib_s;  // one per throughput run
  double proxy_cpu_s = 0;     // summed over throughput runs
  double producer_cpu_s = 0;
  double bytes = 0;  // payload bytes of those runs
  bool exact = true;
  std::vector<double> echo_us, resize_us, first_output_ms;
  long rss_kib = 0;        // peak RSS while proxying the big run
  double rss_run_mib = 0;  // its size
  double rss_run_mib_s = 0;
  bool ran = false;
};

struct Context {
  std::string command;
  std::string load_before, load_after;
  int reps = 0;
  double size_mib = 0;
  std::vector<std::string> problems;
};

double percentile(std::vector<double> v, double p);  // nearest rank; NaN if empty

// Columns: direct, script, blaude; relay (index 3) is reported below the table.
std::string render_table(const std::array<Samples, 4>& s, const Context& ctx);

}  // namespace ptybench
