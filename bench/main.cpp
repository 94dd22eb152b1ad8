// ptybench: measures a pty proxy against the bare pty and against script(1), side by side.
// Usage: ptybench --blaude PATH [options]; the helper modes (--produce, --echo, --winch) are
// what runs inside the pty under test.
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "measure.hpp"
#include "run.hpp"

using namespace ptybench;

namespace {

const char* kUsage =
    "usage: ptybench --blaude PATH [options]\n"
    "  --blaude PATH          blaude binary (run as: blaude --no-sandbox --exec CMD)\n"
    "  --blaude-arg ARG       one more option for blaude, before --exec (repeatable)\n"
    "  --baseline PATH        another blaude binary, run as variant \"base\" (adds it to the\n"
    "                         variants): before/after in one interleaved run\n"
    "  --script PATH          util-linux script (default: script)\n"
    "  --variants LIST        comma list of direct,script,blaude,relay (default: all four;\n"
    "                         relay is ptybench's own minimal poll/read/write relay: the floor)\n"
    "  --shapes LIST          producer shapes (default: text-4k,text-64k,text-1m,\n"
    "                         escapes-64k,slow-64k; also escapes-4k)\n"
    "  --size MIB             payload per throughput run (default 32)\n"
    "  --reps N               repetitions, interleaved across shapes and variants (default 5)\n"
    "  --rss-size MIB         one extra run each for script and blaude, for peak RSS\n"
    "                         (default 1024; 0 skips)\n"
    "  --latency-samples N    keystroke round trips per variant (default 2000)\n"
    "  --resize-samples N     resizes per variant (default 200)\n"
    "  --start-samples N      starts per variant for time to first output (default 20)\n"
    "  --corrupt-at N         control: the producer flips payload byte N (must be reported)\n"
    "  --no-awake             let idle CPUs halt (default: one SCHED_IDLE spinner per CPU\n"
    "                         in the throughput and latency runs, so that no CPU halts;\n"
    "                         on a VM a halted vCPU's wake-up is a VM exit, paid per chunk\n"
    "                         when idle). The starts (time to first output) never have them.\n"
    "  --wrong-preamble       control: expect one byte more before the payload than each\n"
    "                         variant prints (must be reported at the stream's first bytes)\n"
    "helper modes: --produce BYTES [--write-size N] [--escapes] [--report FILE]\n"
    "              [--corrupt-at N] | --echo | --winch |\n"
    "              --relay CMD ARGS...\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "ptybench: %s\nTry 'ptybench --help'.\n", msg.c_str());
  return 2;
}

bool parse_variants(const std::string& list, std::vector<Variant>& out) {
  out.clear();
  for (const std::string& n : split_commas(list)) {
    if (n == "direct")
      out.push_back(Variant::Direct);
    else if (n == "script")
      out.push_back(Variant::Script);
    else if (n == "blaude")
      out.push_back(Variant::Blaude);
    else if (n == "relay")
      out.push_back(Variant::Relay);
    else if (n == "base")
      out.push_back(Variant::Base);
    else
      return false;
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
    double n = 0, k = -1, w = 0;
    ProducerArgs pa;
    size_t i = 0;
    if (!num(i, n)) return usage_error("--produce needs a byte count");
    pa.bytes = static_cast<uint64_t>(n);
    for (++i; i < a.size(); ++i) {
      if (a[i] == "--report" && i + 1 < a.size())
        pa.report_path = a[++i];
      else if (a[i] == "--corrupt-at" && num(i, k))
        pa.corrupt_at = static_cast<int64_t>(k);
      else if (a[i] == "--write-size" && num(i, w) && w >= 1)
        pa.write_size = static_cast<size_t>(w);
      else if (a[i] == "--escapes")
        pa.payload = Payload::Escapes;
      else
        return usage_error("unknown producer option " + a[i]);
    }
    return run_producer(pa);
  }

  Config c;
  c.setup.script = "script";
  parse_variants("direct,script,blaude,relay", c.variants);
  parse_shapes(kDefaultShapes, c.shapes);
  std::string cmdline = "ptybench";
  for (const auto& s : a) cmdline += " " + s;
  for (size_t i = 0; i < a.size(); ++i) {
    double x;
    const std::string& o = a[i];
    if (o == "--help" || o == "-h") {
      std::fputs(kUsage, stdout);
      std::printf("shapes:\n%s\n", kShapeHelp);
      return 0;
    } else if (o == "--blaude" && i + 1 < a.size()) {
      c.setup.blaude = a[++i];
    } else if (o == "--baseline" && i + 1 < a.size()) {
      c.setup.baseline = a[++i];
    } else if (o == "--blaude-arg" && i + 1 < a.size()) {
      c.setup.blaude_args.push_back(a[++i]);
    } else if (o == "--shapes" && i + 1 < a.size()) {
      if (!parse_shapes(a[++i], c.shapes))
        return usage_error("bad --shapes: " + a[i] + "\nKnown shapes:\n" + kShapeHelp);
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
    } else if (o == "--no-awake") {
      c.awake = false;
    } else if (o == "--wrong-preamble") {
      c.wrong_preamble = true;
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
  bool want_base = false;
  for (Variant v : c.variants) want_base |= v == Variant::Base;
  if (!c.setup.baseline.empty() && !want_base) c.variants.push_back(Variant::Base);
  if ((want_base || !c.setup.baseline.empty()) && access(c.setup.baseline.c_str(), X_OK) != 0)
    return usage_error("--baseline PATH must name a blaude binary (variant base)");
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return usage_error("cannot find this binary (/proc/self/exe)");
  c.setup.self.assign(self, static_cast<size_t>(n));
  try {
    return run_bench(c, cmdline);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptybench: %s\n", e.what());
    return 1;
  }
}
