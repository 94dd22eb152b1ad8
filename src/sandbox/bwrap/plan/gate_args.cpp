#include "sandbox/bwrap/plan/gate_args.hpp"

namespace blaude::sandbox::bwrap {

Ops gate_ops(const std::string& info_token, const std::string& gate_token) {
  Ops ops{option_op({"--info-fd", info_token}), mount_op(OpKind::Dir, "", kGateDir),
          mount_op(OpKind::File, gate_token, kGateFile), mount_op(OpKind::RemountRo, "", kProofDir)};
  for (auto& op : ops) op.gate = true;
  return ops;
}

std::vector<std::string> gate_args(const std::string& info_token, const std::string& gate_token) {
  return render(gate_ops(info_token, gate_token));
}

std::string check_inner_mounts(const std::vector<InnerMount>& mounts) {
  for (size_t i = 0; i < mounts.size(); ++i) {
    const std::string& p = mounts[i].path;
    if (p.size() < 2 || p[0] != '/' || p.back() == '/' || p.find("//") != std::string::npos ||
        p.find("/./") != std::string::npos || p.find("/../") != std::string::npos ||
        p.ends_with("/.") || p.ends_with("/.."))
      return "not an absolute normalized path: " + p;
    for (size_t j = i + 1; j < mounts.size(); ++j) {
      const std::string& q = mounts[j].path;
      if (q == p) return "mounted twice: " + p;
      if (p.size() > q.size() && p.compare(0, q.size(), q) == 0 && p[q.size()] == '/')
        return q + " comes after its descendant " + p + " and would hide it";
    }
  }
  return {};
}

}  // namespace blaude::sandbox::bwrap
