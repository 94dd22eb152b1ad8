// In-process cost of the child→terminal stage, side by side: the terminal firewall alone (its
// zero-copy pass() and feed() on the rest, as the session runs it; OSC 52 is judged there too),
// the firewall with the terminal state tracker shown the tokens it passes (what blaude runs), the
// tracker alone on raw bytes (its own state machine), and a memcpy of the same bytes. Streams
// are fed in 4095-byte reads, as a pty hands them out. Prints CPU ns per byte (best of the
// rounds) and GiB/s per stage and stream, and the tracker's share: (firewall+tracker) / firewall.
//
//   build/termbench [MiB per stream, default 256] [rounds, default 5] [STREAM [STAGE]]
//
// STREAM (plain, utf8, tui, osc) runs that stream alone; STAGE (firewall, both, tracker) runs that
// stage alone, once, with no table: the form for counting instructions under
// `valgrind --tool=callgrind`, which is independent of the machine's load.
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "term/firewall.hpp"
#include "term/tracker.hpp"

using namespace blaude;

namespace {

std::string make_stream(const char* kind, size_t bytes) {
  std::mt19937 rng(1);
  std::string s;
  s.reserve(bytes + 256);
  if (!std::strcmp(kind, "plain")) {  // printable ASCII lines, like ptybench's pattern
    while (s.size() < bytes) {
      for (int i = 0; i < 99; ++i) s.push_back(static_cast<char>('!' + rng() % 94));
      s += "\r\n";
    }
  } else if (!std::strcmp(kind, "utf8")) {
    while (s.size() < bytes) s += "h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 \xf0\x9f\x98\x80 text\r\n";
  } else if (!std::strcmp(kind, "osc")) {  // ptybench's escapes-64k mix: titles and links too
    char buf[128];
    while (s.size() < bytes) {
      unsigned x = static_cast<unsigned>(rng() % 256), y = static_cast<unsigned>(rng() % 80);
      const char* text = "some text ";
      int n = 0;
      switch (rng() % 9) {
        case 0: n = std::snprintf(buf, sizeof buf, "\x1b[38;5;%um%s", x, text); break;
        case 1: n = std::snprintf(buf, sizeof buf, "\x1b[%u;%uH%s", 1 + x % 50, 1 + y, text); break;
        case 2: n = std::snprintf(buf, sizeof buf, "\x1b[0m%s", text); break;
        case 3: n = std::snprintf(buf, sizeof buf, "\x1b[K\r\n"); break;
        case 4: n = std::snprintf(buf, sizeof buf, "\x1b[1;4%um%s", x % 8, text); break;
        case 5: n = std::snprintf(buf, sizeof buf, "\x1b[%uA\x1b[%uC", 1 + x % 9, 1 + y % 80); break;
        case 6: n = std::snprintf(buf, sizeof buf, y % 2 ? "\x1b]0;task %u\x07" : "\x1b]0;task %u\x1b\\", x); break;
        case 7:
          n = std::snprintf(buf, sizeof buf, "\x1b]8;;https://example.invalid/%u\x1b\\link\x1b]8;;\x1b\\", x);
          break;
        default: n = std::snprintf(buf, sizeof buf, "%s%s", text, text);
      }
      s.append(buf, static_cast<size_t>(n));
    }
  } else {  // a TUI redraw: colour, cursor moves, mode toggles, short runs of text
    char buf[96];
    while (s.size() < bytes) {
      int n = std::snprintf(buf, sizeof buf, "\x1b[38;5;%um%.*s\x1b[0m\x1b[%u;%uH",
                            static_cast<unsigned>(rng() % 256), 1 + static_cast<int>(rng() % 12),
                            "xxxxxxxxxxxx", 1 + static_cast<unsigned>(rng() % 50),
                            1 + static_cast<unsigned>(rng() % 200));
      s.append(buf, static_cast<size_t>(n));
      if (rng() % 64 == 0) s += "\x1b[?2026h\x1b[?25l";
      if (rng() % 64 == 0) s += "\x1b[?25h\x1b[?2026l";
    }
  }
  s.resize(bytes);
  return s;
}

// CPU time of this process, not wall time: the machine is shared, and a stage that is
// descheduled has not become slower.
double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

template <class F>
double best_ns_per_byte(const std::string& in, int rounds, F&& run) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    double t0 = cpu_ns();
    run();
    double ns = cpu_ns() - t0;
    if (ns / static_cast<double>(in.size()) < best) best = ns / static_cast<double>(in.size());
  }
  return best;
}

constexpr size_t kRead = 4095;

}  // namespace

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const char* only = argc > 3 ? argv[3] : nullptr;
  const char* stage = argc > 4 ? argv[4] : nullptr;
  if (!stage) std::printf("%-6s %-18s %9s %9s\n", "stream", "stage", "ns/byte", "GiB/s");
  for (const char* kind : {"plain", "utf8", "tui", "osc"}) {
    if (only && std::strcmp(only, kind) != 0) continue;
    std::string in = make_stream(kind, mib << 20);
    std::string out;
    out.reserve(kRead * 2);
    volatile size_t sink = 0;
    auto scanner = [&](bool watch) {
      term::Firewall f(term::ClipboardMode::PassWrites);
      term::Tracker t;
      if (watch) f.show_to(&t);  // shown the tokens that pass, as the session's filter does
      std::vector<term::Osc52> clips;
      // As the session drives the filter: pass() first (those bytes stay in the session's
      // queue, nothing is copied), feed() only on the rest.
      for (size_t i = 0; i < in.size(); i += kRead) {
        std::string_view read = std::string_view(in).substr(i, kRead);
        size_t k = f.pass(read, 0, clips);
        out.clear();
        if (k < read.size()) f.feed(read.substr(k), 0, out, clips);
        clips.clear();
        sink = sink + k + out.size();
      }
      sink = sink + t.state().alt;
    };
    auto tracker = [&] {
      term::Tracker t;
      for (size_t i = 0; i < in.size(); i += kRead) t.feed(std::string_view(in).substr(i, kRead));
      sink = sink + t.state().alt;
    };
    if (stage) {
      if (!std::strcmp(stage, "firewall")) scanner(false);
      else if (!std::strcmp(stage, "both")) scanner(true);
      else if (!std::strcmp(stage, "tracker")) tracker();
      else return std::fprintf(stderr, "termbench: unknown stage %s\n", stage), 2;
      std::printf("%s %s: %zu bytes\n", kind, stage, in.size());
      continue;
    }
    double copy = best_ns_per_byte(in, rounds, [&] {
      for (size_t i = 0; i < in.size(); i += kRead) {
        size_t n = std::min(kRead, in.size() - i);
        out.assign(in.data() + i, n);
        sink = sink + out.size();
      }
    });
    double scan = best_ns_per_byte(in, rounds, [&] { scanner(false); });
    double both = best_ns_per_byte(in, rounds, [&] { scanner(true); });
    double track = best_ns_per_byte(in, rounds, tracker);
    auto row = [&](const char* stage, double ns) {
      std::printf("%-6s %-18s %9.3f %9.2f\n", kind, stage, ns, 1.0 / ns / 1.073741824);
    };
    row("memcpy", copy);
    row("firewall", scan);
    row("firewall+tracker", both);
    row("tracker", track);
    std::printf("%-6s %-18s %8.2fx  (+%.3f s per GiB)\n", kind, "tracker share", both / scan,
                (both - scan) * 1.073741824);
  }
  return 0;
}
