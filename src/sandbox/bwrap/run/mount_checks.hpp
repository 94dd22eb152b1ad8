// The two halves of LaunchPlan::checks (launch_plan.hpp, planned in plan/plan_verify.cpp): the
// launcher records what each by-path bind's source is (no symlink on the way), and blaude's exec
// shim, inside the sandbox after bwrap's last mount and before the command, checks that every
// mount landed on exactly that. The record travels as a file bwrap writes from a memfd
// (kChecksFile); the shim learns it must check from kChecksEnv (set by bwrap's --setenv: nothing
// inside runs before the shim to unset it) and refuses to run anything on a mismatch.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

inline constexpr const char* kChecksEnv = "BLAUDE_MOUNT_CHECKS";
inline constexpr const char* kChecksFile = "/run/blaude/checks";

// One recorded check: what the shim expects at `dst`.
struct CheckLine {
  MountCheck::Kind kind = MountCheck::Kind::Bind;
  unsigned long long dev = 0, ino = 0;  // Bind: the source's identity
  bool ro = false;
  std::string dst;
  bool operator==(const CheckLine&) const = default;
};

// Pure: "B <dev> <ino> <0|1> <dst>\0" / "T 0 0 0 <dst>\0" per check (NUL-terminated: a path may
// hold any other byte). parse_check_lines gives nullopt for anything else (the shim then refuses).
std::string format_check_lines(const std::vector<CheckLine>& lines);
std::optional<std::vector<CheckLine>> parse_check_lines(std::string_view text);

// Launcher: each bind's source opened from "/" with no symlink anywhere (plan/held.hpp hold_path) and
// checked against the probe's identity when the plan has it. Throws HeldPathChanged.
std::vector<CheckLine> record_checks(const std::vector<MountCheck>& checks);

// Inside the sandbox: "" when every mount is as recorded, else "<dst> ..." saying what is wrong.
// dst is opened with no symlink on the way: a mount bwrap made through a swapped-in link is not
// at dst, whatever is there now.
std::string verify_mounts(const std::vector<CheckLine>& lines);
// The shim's entry: reads `file` (bounded, no symlink), parses, verifies. "" = all good.
std::string verify_mounts_file(const std::string& file);

}  // namespace blaude::sandbox::bwrap
