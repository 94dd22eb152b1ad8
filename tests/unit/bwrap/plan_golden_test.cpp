// What plan() makes, recorded: over the planner's matrix (plan_matrix.hpp: host layouts, tool and
// config dirs nested into each other, option combinations) and the three places a protection
// can be made (the protect helper, the helper after a deferred scan, bwrap from held
// descriptors), each plan's --dry-run text, argv, helper mounts, held binds, mount checks,
// warnings and notes are rendered as text and compared, by digest, with golden/plan_golden.txt.
// A change of the planner that is meant to change nothing leaves every digest as it was.
//
// BLAUDE_GOLDEN_DUMP=DIR writes each case's text to DIR/<case>.txt (dump before and after a
// change and diff the two dirs to review what moved); BLAUDE_GOLDEN_UPDATE=1 rewrites the golden
// file from the current code; BLAUDE_GOLDEN_SEED=1 plans in the seed's layout (review only).
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "bwrap/plan_matrix.hpp"
#include "fake_host.hpp"
#include "bwrap/pending_host.hpp"
#include "sandbox/bwrap/plan/deferred.hpp"
#include "sandbox/bwrap/plan/format.hpp"
#include "sandbox/bwrap/plan/plan.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;
using namespace blaude::testing::matrix;

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Every probed dir or file, and every dir above one, with an identity of its own (the same on
// every platform: no std::hash), as a probe that recorded them all would leave them.
void identify_paths(HostFacts& f) {
  auto add = [&](std::string p, unsigned type) {
    for (; !p.empty(); p = p == "/" ? "" : p.substr(0, std::max<size_t>(1, p.rfind('/')))) {
      f.ws.ids.emplace(p, Identity{1, fnv1a(p), type});
      type = S_IFDIR;
    }
  };
  std::vector<std::pair<std::string, unsigned>> todo;
  for (const auto& [p, pf] : f.paths)
    if (pf.lkind == Kind::Dir || pf.lkind == Kind::File) todo.emplace_back(p, pf.lkind == Kind::Dir ? S_IFDIR : S_IFREG);
  for (const auto& g : f.ws.git.protect) todo.emplace_back(g.path, S_IFDIR);
  for (const auto& [p, t] : todo) add(p, t);
  add(f.cwd, S_IFDIR);
}

// Options beyond the matrix's that reach other rules: a -m mount, one below /dev (bwrap's own
// --dev then), and proxy mode's binds.
struct Extra {
  std::string name;
  std::function<void(SandboxRequest&, HostFacts&)> set;
};

std::vector<Extra> extras() {
  std::vector<Extra> out;
  for (const auto& c : combos()) out.push_back({c.name, [set = c.set](SandboxRequest& o, HostFacts&) { set(o); }});
  auto mount = [](SandboxRequest& o, HostFacts& f, const std::string& path, bool rw) {
    put(f, path, Kind::Dir);
    o.mounts.push_back({path, rw});
    f.mount_paths.push_back(path);
    f.mounts.push_back(f.at(path));
  };
  out.push_back({"-m /srv/data:rw -m /srv/ref", [=](SandboxRequest& o, HostFacts& f) {
                   mount(o, f, "/srv/data", true);
                   mount(o, f, "/srv/ref", false);
                 }});
  out.push_back({"-m /dev/shm/x:rw", [=](SandboxRequest& o, HostFacts& f) { mount(o, f, "/dev/shm/x", true); }});
  out.push_back({"proxy", [](SandboxRequest& o, HostFacts&) {
                   NetworkProxy p;
                   p.bwrap_args = {"--unshare-net", "--dir", "/run/blaude", "--ro-bind", "/usr/libexec/blaude/blaude",
                                   "/run/blaude/blaude"};
                   p.command_prefix = {"/run/blaude/blaude", "__relay", "--"};
                   o.proxy = p;
                 }});
  return out;
}

std::string id_text(const Identity& id) {
  return std::to_string(id.dev) + ":" + hex(id.ino) + ":" + std::to_string(id.type);
}

void inner_text(std::ostringstream& o, const std::vector<InnerMount>& mounts) {
  for (const auto& m : mounts)
    o << "inner " << int(m.kind) << ' ' << m.path << " host=" << m.host << " id=" << id_text(m.id) << " from=" << m.from
      << " if_same=" << m.if_same << " if_gone=" << m.if_gone << " why=" << m.why << '\n';
}

std::string render(const LaunchPlan& p) {
  std::ostringstream o;
  o << format_command(p) << "-- argv\n";
  for (const auto& a : p.argv) o << a << '\n';
  inner_text(o, p.inner_mounts);
  for (const auto& h : p.held) o << "held " << h.index << ' ' << h.host << " id=" << id_text(h.id) << " make_dir=" << h.make_dir << '\n';
  for (const auto& c : p.checks)
    o << "check " << int(c.kind) << ' ' << c.dst << " host=" << c.host << " ro=" << c.ro << " id=" << id_text(c.id) << '\n';
  for (const auto& d : p.data_fds) o << "data " << d.token << ' ' << hex(fnv1a(d.content)) << '\n';
  for (const auto& d : p.confine.overlays) o << "own overlay " << d << '\n';
  for (const auto& w : p.warnings) o << "warning " << w << '\n';
  for (const auto& n : p.notes) o << "note " << n << '\n';
  for (const auto& w : p.writable_dirs) o << "writable " << w << '\n';
  if (p.deferred) {
    const auto& r = p.deferred->finish();
    o << "-- deferred\n";
    inner_text(o, r.mounts);
    for (const auto& w : r.warnings) o << "warning " << w << '\n';
    for (const auto& n : r.notes) o << "note " << n << '\n';
    if (!r.error.empty()) o << "error " << r.error << " / " << r.hint << '\n';
  }
  return o.str();
}

// Under ASan/UBSan at -O0 the whole matrix takes ~170 s, most of that stage's time; the release
// suite compares every plan, the sanitizer build every ninth (all of the planner's code paths
// still run sanitized over 648 plans).
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kStride = 9;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kStride = 9;
#else
constexpr size_t kStride = 1;
#endif
#else
constexpr size_t kStride = 1;
#endif

std::filesystem::path golden_path() { return std::filesystem::path(__FILE__).parent_path() / "golden" / "plan_golden.txt"; }

}  // namespace

TEST_CASE("plan golden: every plan of the matrix is what it was", "[sandbox][plan][golden]") {
  std::map<std::string, std::string> want;
  {
    std::ifstream in(golden_path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto sp = line.find(' ');
      if (sp != std::string::npos) want[line.substr(0, sp)] = line.substr(sp + 1);
    }
  }
  const char* dump = std::getenv("BLAUDE_GOLDEN_DUMP");
  const bool update = std::getenv("BLAUDE_GOLDEN_UPDATE") != nullptr;
  // BLAUDE_GOLDEN_SEED=1: every plan in the seed's layout (--workspace-path=seed), for review: a
  // dump of it beside one of the default layout shows exactly what the host path changes.
  const bool seed = std::getenv("BLAUDE_GOLDEN_SEED") != nullptr;
  if (seed && update) FAIL("BLAUDE_GOLDEN_SEED is for review; the golden file holds the default layout");
  if (!update) REQUIRE_FALSE(want.empty());
  PlanInputs in;
  in.env = {{"HOME", "/home/u"}, {"PATH", "/usr/bin"}};
  in.command = {"claude"};
  const std::vector<std::string> homes = {"/home/u", "/tmp/h/u"};
  const auto vs = variants();
  const auto xs = extras();
  std::map<std::string, std::string> got;
  size_t changed = 0;
  const size_t stride = update ? 1 : kStride;
  size_t index = 0;
  for (size_t hi = 0; hi < homes.size(); ++hi) {
    const std::string& home = homes[hi];
    const std::vector<std::string> cwds = {home + "/proj", "/tmp/work/proj", "/srv/code/proj"};
    for (size_t ci = 0; ci < cwds.size(); ++ci)
      for (size_t vi = 0; vi < vs.size(); ++vi)
        for (int ov = 0; ov < 3; ++ov)            // bwrap's overlay, blaude's own, none
          for (int form = 0; form < 3; ++form)    // helper, helper after the scan, held descriptors
            for (size_t xi = 0; xi < xs.size(); ++xi) {
              if (index++ % stride != 0) continue;
              const std::string key = "h" + std::to_string(hi) + ".c" + std::to_string(ci) + ".v" + std::to_string(vi) +
                                      ".o" + std::to_string(ov) + ".f" + std::to_string(form) + ".x" + std::to_string(xi);
              HostFacts f = rich_host(home, cwds[ci]);
              f.uid = f.gid = 1000;
              f.overlay = ov == 0;
              f.ipc.own_overlay = ov == 1;
              f.inner_mounts = form != 2;
              f.self_exe = "/usr/libexec/blaude/blaude";
              put(f, f.self_exe, Kind::File);
              vs[vi].second(f);
              SandboxRequest req;
              xs[xi].set(req, f);
              req.seed_workspace = seed;
              identify_paths(f);
              if (form == 1) f = pending_host(f);
              std::string text;
              try {
                text = render(plan(req, f, in));
              } catch (const PlanError& e) {
                text = std::string("plan error: ") + e.what() + " / " + e.hint + "\n";
              }
              if (dump) std::ofstream(std::filesystem::path(dump) / (key + ".txt")) << text;
              const std::string digest = hex(fnv1a(text));
              got[key] = digest;
              if (update) continue;
              auto it = want.find(key);
              if (it == want.end() || it->second != digest) {
                ++changed;
                if (changed <= 10)
                  FAIL_CHECK("plan changed: " << key << " (HOME " << home << ", workspace " << cwds[ci] << ", "
                                              << vs[vi].first << ", overlay " << ov << ", form " << form << ", "
                                              << xs[xi].name << ")");
              }
            }
  }
  if (update) {
    std::ofstream out(golden_path());
    out << "# plan_golden_test.cpp: case -> digest of its rendered plan. Case h<home>.c<workspace>.v<variant>\n"
           "# .o<overlay: 0 bwrap's, 1 blaude's own, 2 none>.f<form: 0 helper, 1 helper after the scan, 2 held>\n"
           "# .x<options>; the names are in the test. Regenerate with BLAUDE_GOLDEN_UPDATE=1.\n";
    for (const auto& [k, v] : got) out << k << ' ' << v << '\n';
    return;
  }
  CHECK(changed == 0);
  CHECK(got.size() == (want.size() + stride - 1) / stride);
}
