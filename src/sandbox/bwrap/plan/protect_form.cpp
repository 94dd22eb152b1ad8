#include "sandbox/bwrap/plan/protect_form.hpp"

#include <algorithm>
#include <set>

#include "common/paths.hpp"
#include "common/shown.hpp"
#include "sandbox/bwrap/plan/mount_op.hpp"

namespace blaude::sandbox::bwrap {

const char* form_name(ProtectForm f) {
  switch (f) {
    case ProtectForm::Helper: return "helper";
    case ProtectForm::HelperLater: return "helper, after the scan";
    case ProtectForm::Held: return "held descriptor";
    case ProtectForm::ByPathChecked: return "by path, re-checked";
    case ProtectForm::ByPath: return "by path";
    case ProtectForm::Overlay: return "bwrap overlay";
    case ProtectForm::OwnOverlay: return "blaude overlay";
    case ProtectForm::HostWritable: return "HOST-WRITABLE";
    case ProtectForm::NotMade: return "NOT MADE";
  }
  return "?";
}

namespace {

const char* meaning(ProtectForm f) {
  switch (f) {
    case ProtectForm::Helper: return "blaude mounts it inside the sandbox, after bwrap's mounts, on the object its probe checked";
    case ProtectForm::HelperLater: return "the same, laid out when the workspace scan finishes";
    case ProtectForm::Held: return "bwrap binds a descriptor blaude opened with no symlink on the path and checked";
    case ProtectForm::ByPathChecked: return "bwrap mounts it by path; blaude checks it inside before the command runs";
    case ProtectForm::ByPath: return "bwrap mounts it by path, not re-checked";
    case ProtectForm::Overlay: return "bwrap's --tmp-overlay: writes are discarded at exit";
    case ProtectForm::OwnOverlay: return "blaude's overlay, made before bwrap (bwrap < 0.9): writes are discarded";
    case ProtectForm::HostWritable: return "no overlay here: writable on the host (see the warning)";
    case ProtectForm::NotMade: return "left out (see the warning)";
  }
  return "";
}

}  // namespace

const char* protection_what(InnerKind k) {
  switch (k) {
    case InnerKind::ReadOnly: return "read-only";
    case InnerKind::Pin: return "pinned";
    case InnerKind::EmptyDir: return "empty, read-only";
    case InnerKind::ShadowFile: return "hidden (/dev/null)";
    case InnerKind::ShadowDir: return "hidden (empty tmpfs)";
    case InnerKind::Mirror: return "the workspace's view";
    case InnerKind::Dev:
    case InnerKind::Bind:
    case InnerKind::RoBind: break;
  }
  return "";
}

std::vector<Protection> protections_of(const LaunchPlan& plan) {
  std::vector<Protection> out;
  for (const auto& m : plan.inner_mounts)
    if (*protection_what(m.kind)) out.push_back({m.path, protection_what(m.kind), ProtectForm::Helper, m.why});
  if (plan.ops) {
    std::set<std::string> checked;
    for (const auto& c : plan.checks) checked.insert(normalize(c.dst));
    for (const auto& op : *plan.ops) {
      if (!op.protects) continue;
      ProtectForm form = ProtectForm::ByPath;
      if (op.protects->form) form = *op.protects->form;
      else if (op.helper) form = ProtectForm::Helper;
      else if (op.held) form = ProtectForm::Held;
      else if (op.kind == OpKind::Overlay) form = ProtectForm::Overlay;
      else if (checked.count(normalize(op.dest))) form = ProtectForm::ByPathChecked;
      out.push_back({normalize(op.dest), op.protects->what, form, op.protects->why});
    }
    if (plan.deferred) {
      std::string ws;
      for (const auto& op : *plan.ops)
        if (op.kind == OpKind::Option && op.words.size() == 2 && op.words[0] == "--chdir") ws = op.words[1];
      out.push_back({ws, "as the scan finds them", ProtectForm::HelperLater, "the workspace's protected paths"});
    }
  }
  for (const auto& [path, below] : plan.unpinned)
    out.push_back({path, "pinned", ProtectForm::NotMade, "as a bwrap option it would hide " + below});
  std::stable_sort(out.begin(), out.end(), [](const Protection& a, const Protection& b) { return a.path < b.path; });
  return out;
}

std::string format_protections(const LaunchPlan& plan) {
  const auto list = protections_of(plan);
  if (list.empty()) return "";
  std::set<ProtectForm> forms;
  size_t path_w = 0, what_w = 0, form_w = 0;
  std::vector<std::string> paths;
  for (const auto& p : list) {
    forms.insert(p.form);
    paths.push_back(shown(p.path));
    path_w = std::max(path_w, paths.back().size());
    what_w = std::max(what_w, p.what.size());
    form_w = std::max(form_w, std::string(form_name(p.form)).size());
  }
  path_w = std::min<size_t>(path_w, 56);
  std::string out = "# Protected paths, and the form each took:\n";
  for (ProtectForm f : forms) out += "#   " + std::string(form_name(f)) + ": " + meaning(f) + "\n";
  auto pad = [](std::string s, size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
  };
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& p = list[i];
    std::string line = "#   " + pad(paths[i], path_w) + "  " + pad(p.what, what_w) + "  " +
                       pad(form_name(p.form), form_w) + "  " + shown(p.why);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace blaude::sandbox::bwrap
