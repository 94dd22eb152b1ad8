#include "sandbox/bwrap/plan/format.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "sandbox/bwrap/plan/held.hpp"
#include "sandbox/bwrap/plan/mount_order.hpp"
#include "sandbox/bwrap/plan/gate_args.hpp"
#include "sandbox/bwrap/plan/protect_form.hpp"
#include "sandbox/bwrap/plan/protect_layout.hpp"

#include <map>

#include "common/paths.hpp"
#include "common/shell_quote.hpp"

namespace blaude::sandbox::bwrap {

namespace {

// Whether `op` shares the line of the op before it: a data file with the dir it lands in, a
// --remount-ro with its --tmpfs, the ids with --unshare-user, the hostname with --unshare-uts.
bool joins(const MountOp& op, const MountOp* prev) {
  if (op.kind == OpKind::Option) {
    const std::string o = op.words.empty() ? std::string() : op.words.front();
    if (o == "--uid" || o == "--gid") return true;
    return o == "--hostname" && prev && prev->kind == OpKind::Option &&
           prev->words == std::vector<std::string>{"--unshare-uts"};
  }
  if (!prev) return false;
  return (op.kind == OpKind::Data && prev->kind == OpKind::Dir) ||
         (op.kind == OpKind::RemountRo && prev->kind == OpKind::Tmpfs);
}

// One op per line (but the joined ones), shell-quoted; `tokens`: data placeholders to print as.
std::string lines(const std::string& program, const Ops& ops, const std::vector<std::string>& tail,
                  const std::map<std::string, std::string>& tokens) {
  std::string out = shell_quote(program);
  std::string line;
  auto flush = [&] {
    if (!line.empty()) out += " \\\n  " + line;
    line.clear();
  };
  auto word = [&](const std::string& w) {
    auto t = tokens.find(w);
    if (!line.empty()) line += ' ';
    line += shell_quote(t == tokens.end() ? w : t->second);
  };
  const MountOp* prev = nullptr;
  for (const auto& op : ops) {
    if (!joins(op, prev)) flush();
    std::vector<std::string> words;
    render(op, words);
    // --info-fd and its value each on a line of their own, as --dry-run has always printed them.
    const bool split = op.kind == OpKind::Option && !words.empty() && words.front() == "--info-fd";
    for (const auto& w : words) {
      word(w);
      if (split) flush();
    }
    prev = &op;
  }
  flush();
  for (const auto& w : tail) word(w);
  flush();
  return out + "\n";
}

}  // namespace

std::string format_command(const std::string& program, const Ops& ops, const std::vector<std::string>& tail) {
  return lines(program, ops, tail, {});
}

namespace {

// What bwrap would be given, as --dry-run shows it: the gate's ops (run/protect_gate.hpp) stand
// for the helper's mounts and are shown as the equivalent bwrap options, so the printed command
// protects the same paths when run by hand; the helper's /dev is shown as bwrap's --dev, on the
// --tmpfs bwrap makes for it (the printed command is the same either way); the launcher's own
// ops (the held binds' setup-done marker) are left out.
Ops shown_ops(const LaunchPlan& plan, std::vector<std::pair<std::string, std::string>>& left_out) {
  std::vector<InnerMount> inner;
  std::copy_if(plan.inner_mounts.begin(), plan.inner_mounts.end(), std::back_inserter(inner),
               [](const InnerMount& m) { return m.kind != InnerKind::Dev; });
  bool dev = inner.size() < plan.inner_mounts.size();
  bool gate_shown = false;
  Ops out;
  for (const auto& op : *plan.ops) {
    if (op.helper || op.launcher_only) continue;
    if (op.gate && !plan.inner_mounts.empty()) {
      if (gate_shown) continue;
      gate_shown = true;
      for (auto& o : as_bwrap_ops(expressible_as_options(steps_of(out), inner, left_out))) out.push_back(std::move(o));
      continue;
    }
    out.push_back(op);
    if (dev && op.kind == OpKind::Tmpfs && normalize(op.dest) == "/dev") {
      out.back().kind = OpKind::Dev;
      dev = false;
    }
  }
  return out;
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
  if (plan.argv.empty()) return "";
  if (!plan.ops) throw std::logic_error("format_command: a plan without its ops");
  std::vector<std::pair<std::string, std::string>> left_out;
  const Ops ops = shown_ops(plan, left_out);
  std::map<std::string, std::string> tokens;
  std::string docs, redirects;
  int fd = 3;
  for (const auto& d : plan.data_fds) {
    if (d.token == kSetupDoneToken) continue;
    tokens[d.token] = std::to_string(fd);
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
  // The command: what follows bwrap's options ("--" first).
  const std::vector<std::string> tail(plan.argv.begin() + long(std::min(plan.options_end, plan.argv.size())),
                                      plan.argv.end());
  std::string out = lines(plan.argv[0], ops, tail, tokens);
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
  out = format_protections(plan) + out;
  if (docs.empty()) return out;
  out.pop_back();  // the final newline: the redirections belong on the command's last line
  return out + redirects + "\n" + docs;
}

}  // namespace blaude::sandbox::bwrap
