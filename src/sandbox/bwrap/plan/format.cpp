#include "sandbox/bwrap/plan/format.hpp"

#include <algorithm>
#include <iterator>

#include "sandbox/bwrap/plan/held.hpp"
#include "sandbox/bwrap/plan/mount_order.hpp"
#include "sandbox/bwrap/plan/gate_args.hpp"
#include "sandbox/bwrap/plan/protect_layout.hpp"

#include <map>

#include "common/shell_quote.hpp"

namespace blaude::sandbox::bwrap {

namespace {

int arity(const std::string& opt) {
  static const std::map<std::string, int> n = {
      {"--bind", 2}, {"--ro-bind", 2}, {"--dev-bind", 2}, {"--bind-try", 2}, {"--ro-bind-try", 2},
      {"--symlink", 2}, {"--setenv", 2}, {"--ro-bind-data", 2}, {"--bind-data", 2},
      {"--tmpfs", 1}, {"--dir", 1}, {"--dev", 1}, {"--proc", 1}, {"--mqueue", 1},
      {"--unsetenv", 1}, {"--chdir", 1}, {"--hostname", 1}, {"--uid", 1}, {"--gid", 1},
      {"--cap-drop", 1}, {"--cap-add", 1}, {"--overlay-src", 1}, {"--tmp-overlay", 1},
      {"--ro-overlay", 1}, {"--remount-ro", 1}, {"--perms", 1}, {"--args", 1}, {"--file", 2},
      {"--seccomp", 1}, {"--chmod", 2}};
  auto it = n.find(opt);
  return it == n.end() ? 0 : it->second;
}

// Options that only make sense with the next one share its line.
bool joins_next(const std::string& opt) { return opt == "--overlay-src" || opt == "--perms"; }

}  // namespace

std::string format_command(const std::vector<std::string>& argv) {
  if (argv.empty()) return "";
  std::string out = shell_quote(argv[0]);
  size_t i = 1;
  std::string line;
  auto flush = [&] {
    if (!line.empty()) out += " \\\n  " + line;
    line.clear();
  };
  std::string prev;
  while (i < argv.size()) {
    const std::string& a = argv[i];
    if (a == "--") break;
    bool joined = joins_next(prev) || (a == "--ro-bind-data" && prev == "--dir") ||
                  (a == "--remount-ro" && prev == "--tmpfs") || (a == "--uid" || a == "--gid") ||
                  (a == "--hostname" && prev == "--unshare-uts");
    if (!joined) flush();
    if (!line.empty()) line += ' ';
    line += shell_quote(a);
    int n = arity(a);
    for (int k = 0; k < n && i + 1 < argv.size(); ++k) line += ' ' + shell_quote(argv[++i]);
    prev = a;
    ++i;
  }
  flush();
  for (; i < argv.size(); ++i) line += (line.empty() ? "" : " ") + shell_quote(argv[i]);
  flush();
  return out + "\n";
}

namespace {

// The gate options (run/protect_gate.hpp) stand for the inner mounts: shown as the equivalent bwrap
// options, so the printed command protects the same paths when run by hand.
std::vector<std::string> with_inner_mounts_as_options(const LaunchPlan& plan,
                                                     std::vector<std::pair<std::string, std::string>>& left_out) {
  const std::vector<std::string> gate = gate_args(kInfoToken, kGateToken);
  // The helper's /dev (InnerKind::Dev) is shown where bwrap's --dev would be, on the --tmpfs
  // bwrap makes for it: the printed command is the same either way.
  std::vector<InnerMount> inner;
  std::copy_if(plan.inner_mounts.begin(), plan.inner_mounts.end(), std::back_inserter(inner),
               [](const InnerMount& m) { return m.kind != InnerKind::Dev; });
  size_t dev_at = plan.argv.size();  // the --tmpfs /dev op, when the helper makes /dev
  if (inner.size() < plan.inner_mounts.size())
    for (const auto& st : mount_steps(plan.argv))
      if (st.op == "--tmpfs" && st.dst == "/dev") {
        dev_at = st.index;
        break;
      }
  std::vector<std::string> argv;
  for (size_t i = 0; i < plan.argv.size(); ++i) {
    if (i == dev_at) {
      argv.push_back("--dev");
    } else if (!plan.inner_mounts.empty() && plan.argv.size() - i >= gate.size() &&
        std::equal(gate.begin(), gate.end(), plan.argv.begin() + long(i))) {
      auto opts = as_bwrap_options(expressible_as_options(mount_steps(argv), inner, left_out));
      argv.insert(argv.end(), opts.begin(), opts.end());
      i += gate.size() - 1;
    } else {
      argv.push_back(plan.argv[i]);
    }
  }
  return argv;
}

// Pins blaude makes on the sandbox's own view that no bwrap option can express.
std::string pins_note(const std::vector<std::pair<std::string, std::string>>& left_out) {
  std::string out;
  for (const auto& [path, below] : left_out)
    out += "# Not shown: blaude also pins " + path + " (as a bwrap option it would hide " + below + ").\n";
  return out;
}

}  // namespace

std::string format_command(const LaunchPlan& plan) {
  std::vector<std::pair<std::string, std::string>> left_out;
  std::vector<std::string> argv = with_inner_mounts_as_options(plan, left_out);
  // The held binds' setup-done marker (held.hpp) is the launcher's business, not the command's.
  for (size_t i = 0; i + 2 < argv.size(); ++i)
    if (argv[i] == "--file" && argv[i + 1] == kSetupDoneToken) {
      size_t from = i >= 2 && argv[i - 2] == "--dir" ? i - 2 : i;
      argv.erase(argv.begin() + long(from), argv.begin() + long(i + 3));
      break;
    }
  std::string docs, redirects;
  int fd = 3;
  for (const auto& d : plan.data_fds) {
    if (d.token == kSetupDoneToken) continue;
    for (auto& a : argv)
      if (a == d.token) a = std::to_string(fd);
    std::string delim = "BLAUDE_DATA_" + std::to_string(fd);
    // The delimiter must not occur as a line of the content.
    while (("\n" + d.content + "\n").find("\n" + delim + "\n") != std::string::npos) delim += "_";
    redirects += " " + std::to_string(fd) + "<<'" + delim + "'";
    // A here-document always ends in a newline; the data is text (resolv.conf), so that is harmless.
    docs += d.content;
    if (d.content.empty() || d.content.back() != '\n') docs += '\n';
    docs += delim + "\n";
    ++fd;
  }
  std::string out = format_command(argv);
  const auto protections = size_t(std::count_if(plan.inner_mounts.begin(), plan.inner_mounts.end(),
                                                [](const InnerMount& m) { return m.kind != InnerKind::Dev; }));
  const auto binds = size_t(std::count_if(plan.inner_mounts.begin(), plan.inner_mounts.end(), [](const InnerMount& m) {
    return m.kind == InnerKind::Bind || m.kind == InnerKind::RoBind;
  }));
  if (protections)
    out = "# The last " + std::to_string(protections) + " mounts (" +
          (binds == protections ? std::string("binds of leaf dirs and files")
           : binds             ? std::to_string(binds) + " binds of leaf dirs and files, then the protected paths"
                               : std::string("the protected paths")) +
          ")\n# are not bwrap's: blaude makes them itself inside the sandbox's namespaces after bwrap's own\n"
          "# mounts and before the command, each on the object the probe checked (shown here as the\n"
          "# equivalent bwrap options).\n" + pins_note(left_out) + out;
  if (protections < plan.inner_mounts.size())
    out = "# --dev /dev is blaude's too: bwrap mounts an empty tmpfs there, and blaude makes the same nodes,\n"
          "# links and devpts in it (each node cloned from the host's /dev after checking it is that device).\n" + out;
  if (!plan.held.empty())
    out = "# " + std::to_string(plan.held.size()) +
          " of the binds are made from descriptors blaude opens with no symlink on the path and checks\n"
          "# against its probe (--bind-fd / --ro-bind-fd; bwrap then checks where each one landed); shown\n"
          "# here by path." + std::string(plan.held.end() != std::find_if(plan.held.begin(), plan.held.end(), [](const HeldPath& h) { return h.make_dir; })
                                  ? " A missing protected dir is created by blaude first.\n" : "\n") + out;
  if (!plan.checks.empty())
    out = "# " + std::to_string(plan.checks.size()) +
          " of the mounts bwrap makes by path (binds bwrap makes itself, shadows) are re-checked by\n"
          "# blaude inside the sandbox before the command runs: each must show the object blaude found\n"
          "# at its source with no symlink on the way (a tmpfs: one mounted on that very name), or\n"
          "# nothing runs. Not part of the printed command.\n" + out;
  if (docs.empty()) return out;
  out.pop_back();  // the final newline: the redirections belong on the command's last line
  return out + redirects + "\n" + docs;
}

}  // namespace blaude::sandbox::bwrap
