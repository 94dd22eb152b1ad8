// The protect gate as the plan writes it (the helper that holds it: run/protect_gate.hpp): the
// bwrap options that end a plan with inner mounts, the tokens the launcher replaces with the
// gate's descriptors, and the order the helper needs its mounts in. Pure.
#pragma once
#include <string>
#include <vector>

#include "sandbox/bwrap/plan/mount_op.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

using sandbox::Identity;
using sandbox::InnerKind;
using sandbox::InnerMount;

inline constexpr const char* kInfoToken = "@fd:protect-info";  // substituted by the launcher
inline constexpr const char* kGateToken = "@fd:protect-gate";
inline constexpr const char* kGateDir = "/run/blaude";
inline constexpr const char* kGateFile = "/run/blaude/gate";
inline constexpr const char* kProofDir = "/run/blaude/protected";

// The bwrap options of the gate, to come after every other mount op. The tokens stand for the
// descriptors ProtectGate makes (the launcher substitutes them). Pure.
std::vector<std::string> gate_args(const std::string& info_token, const std::string& gate_token);
// The same as the planner's ops (what gate_args renders).
Ops gate_ops(const std::string& info_token, const std::string& gate_token);

// "" when `mounts` is what the helper can apply: absolute normalized paths, no duplicates, every
// ancestor before its descendants (a later mount on an ancestor would hide an earlier one).
// Otherwise what is wrong. Pure.
std::string check_inner_mounts(const std::vector<InnerMount>& mounts);

}  // namespace blaude::sandbox::bwrap
