#include "app/apparmor.hpp"

#include <unistd.h>

#include "common/file_io.hpp"
#include "common/self_exe.hpp"
#include "common/path_search.hpp"
#include "common/shell_quote.hpp"
#include "common/subprocess.hpp"

namespace blaude::app::apparmor {

std::string profile_text(const std::string& bwrap_path) {
  // AppArmor needs a quoted path when it holds spaces; plain paths stay as the seed shows them.
  std::string attach = bwrap_path.find_first_of(" \t\"") == std::string::npos
                           ? bwrap_path
                           : "\"" + bwrap_path + "\"";
  return "abi <abi/4.0>,\n"
         "include <tunables/global>\n"
         "\n"
         "profile bwrap " + attach + " flags=(unconfined) {\n"
         "  userns,\n"
         "\n"
         "  include if exists <local/bwrap>\n"
         "}\n";
}

bool restricted(const Facts& f) {
  return f.module_loaded && f.restrict_value && *f.restrict_value == "1";
}

Verdict decide(const Facts& f) {
  if (!f.module_loaded || !f.parser_found) return Verdict::NotActive;
  if (!restricted(f)) return Verdict::NotRestricted;
  if (f.bwrap_path.empty()) return Verdict::NoBwrap;
  if (f.profile_path_exists) {
    if (f.profile_text && *f.profile_text == profile_text(f.bwrap_path)) return Verdict::Installed;
    return Verdict::ForeignProfile;
  }
  return f.is_root ? Verdict::Install : Verdict::NeedsRoot;
}

Outcome describe(Verdict v, const Facts& f) {
  switch (v) {
    case Verdict::NotActive:
      return {0, {"AppArmor is not active on this system. No fix needed."}, std::nullopt};
    case Verdict::NotRestricted:
      return {0, {"Unprivileged user namespaces are not restricted. No fix needed."}, std::nullopt};
    case Verdict::Installed:
      return {0, {std::string("AppArmor bwrap profile already installed at ") + kProfilePath +
                  " for " + f.bwrap_path + "."}, std::nullopt};
    case Verdict::ForeignProfile:
      return {1, {}, Failure{std::string(kProfilePath) + " exists but is not blaude's profile for " + f.bwrap_path,
                             "Check that it allows userns for this bwrap, or move it away and run blaude fix-apparmor again."}};
    case Verdict::NoBwrap:
      return {1, {}, Failure{"bubblewrap (bwrap) is not installed",
                             "Install with: apt install bubblewrap  OR  dnf install bubblewrap"}};
    case Verdict::NeedsRoot:
      return {1, {}, Failure{std::string("fix-apparmor must write ") + kProfilePath + " and needs root",
                             "Run as root: " + root_command(f)}};
    case Verdict::Install:
      break;
  }
  return {0, {}, std::nullopt};
}

std::vector<std::string> sudo_argv(const Facts& f) {
  if (f.sudo.empty() || f.self_exe.empty() || f.bwrap_path.empty()) return {};
  return {f.sudo, f.self_exe, "fix-apparmor", f.bwrap_path};
}

std::string root_command(const Facts& f) {
  std::string self = f.self_exe.empty() ? "blaude" : f.self_exe;
  return shell_quote(std::vector<std::string>{self, "fix-apparmor", f.bwrap_path.empty() ? "/usr/bin/bwrap" : f.bwrap_path});
}

std::vector<std::string> startup_warning(const Facts& f) {
  if (!restricted(f)) return {};
  if (f.profile_path_exists) return {};  // someone installed a profile; trust it at startup
  return {"Warning: AppArmor is restricting unprivileged user namespaces.",
          "  bwrap may fail with 'Operation not permitted' on this system.",
          "  Fix with: blaude fix-apparmor   (it asks for your sudo password)", ""};
}

Facts probe(const HostEnv& host, const std::string& bwrap_path) {
  Facts f;
  f.module_loaded = is_dir("/sys/module/apparmor");
  f.parser_found = find_executable("apparmor_parser", host.get("PATH") + ":/sbin:/usr/sbin").has_value();
  f.restrict_value = read_first_line(kRestrictSysctl);
  f.profile_path_exists = path_exists(kProfilePath);
  if (is_regular_file(kProfilePath)) f.profile_text = read_small_file(kProfilePath);
  if (!bwrap_path.empty()) {
    std::string real = canonical_path(bwrap_path);
    f.bwrap_path = real.empty() ? bwrap_path : real;
  }
  f.is_root = ::geteuid() == 0;
  f.self_exe = blaude::self_exe();
  // sudo where distributions put it, also when the user's PATH lacks it.
  f.sudo = find_executable("sudo", host.get("PATH") + ":/usr/bin:/bin", RelativeEntries::Skip).value_or("");
  return f;
}

Outcome install(const Facts& f) {
  if (std::string why = atomic_replace(kProfilePath, profile_text(f.bwrap_path), 0644); !why.empty())
    return {1, {}, Failure{"failed to write " + std::string(kProfilePath) + ": " + why,
                           "Run as root: " + root_command(f)}};
  RunOptions ro;
  ro.timeout_ms = 30000;
  auto r = run_capture({"apparmor_parser", "-r", kProfilePath}, ro);
  if (r.status != 0) {
    return {1, {}, Failure{"failed to load the AppArmor bwrap profile (apparmor_parser -r " +
                               std::string(kProfilePath) + "): " + r.output,
                           "Check the profile with: apparmor_parser -QT " + std::string(kProfilePath)}};
  }
  return {0, {"AppArmor bwrap profile installed at " + std::string(kProfilePath) + " for " +
              f.bwrap_path + " and loaded."}, std::nullopt};
}

}  // namespace blaude::app::apparmor
