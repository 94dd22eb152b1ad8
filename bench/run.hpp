// The benchmark run: every measurement, interleaved across variants, then the report.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "measure.hpp"

namespace ptybench {

struct Config {
  Setup setup;
  std::vector<Variant> variants;
  std::vector<Shape> shapes;
  double size_mib = 32, rss_mib = 1024;
  int reps = 5, latency = 2000, resize = 200, starts = 20;
  int64_t corrupt_at = -1;
  bool wrong_preamble = false;  // control: expect one more byte before the payload
  bool awake = true;            // SCHED_IDLE spinners keep the CPUs out of halt (idle.hpp)
};

// "a,b,,c" -> {"a", "b", "", "c"}: the words of a --shapes / --variants list.
std::vector<std::string> split_commas(const std::string& list);
// The producer shapes by name ("text-64k", ...); false on an unknown name.
bool parse_shapes(const std::string& list, std::vector<Shape>& out);
extern const char* const kDefaultShapes;
extern const char* const kShapeHelp;

// Runs everything, prints the report on stdout; 0 when every stream was byte-exact.
int run_bench(Config& c, const std::string& cmdline);

}  // namespace ptybench
