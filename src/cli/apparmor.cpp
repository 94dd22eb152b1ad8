#include "cli/apparmor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cli/host.hpp"
#include "common/unique_fd.hpp"

namespace blaude::cli::apparmor {

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
      return {0, {"AppArmor is not active on this system. No fix needed."}, false};
    case Verdict::NotRestricted:
      return {0, {"Unprivileged user namespaces are not restricted. No fix needed."}, false};
    case Verdict::Installed:
      return {0, {std::string("AppArmor bwrap profile already installed at ") + kProfilePath +
                  " for " + f.bwrap_path + "."}, false};
    case Verdict::ForeignProfile:
      return {1,
              {std::string("blaude: ") + kProfilePath + " exists but is not blaude's profile for " +
                   f.bwrap_path,
               "Check that it allows userns for this bwrap, or move it away and run blaude fix-apparmor again."},
              true};
    case Verdict::NoBwrap:
      return {1,
              {"blaude: bubblewrap (bwrap) is not installed",
               "Install with: apt install bubblewrap  OR  dnf install bubblewrap"},
              true};
    case Verdict::NeedsRoot:
      return {1,
              {std::string("blaude: fix-apparmor must write ") + kProfilePath + " and needs root",
               "Run: sudo blaude fix-apparmor"},
              true};
    case Verdict::Install:
      break;
  }
  return {0, {}, false};
}

std::vector<std::string> startup_warning(const Facts& f) {
  if (!restricted(f)) return {};
  if (f.profile_path_exists) return {};  // someone installed a profile; trust it at startup
  return {"Warning: AppArmor is restricting unprivileged user namespaces.",
          "  bwrap may fail with 'Operation not permitted' on this system.",
          "  Fix with: sudo blaude fix-apparmor", ""};
}

Facts probe(const std::string& bwrap_path) {
  Facts f;
  f.module_loaded = host::is_dir("/sys/module/apparmor");
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  f.parser_found = host::find_in_path("apparmor_parser", path + ":/sbin:/usr/sbin").has_value();
  f.restrict_value = host::read_trimmed(kRestrictSysctl);
  f.profile_path_exists = host::exists(kProfilePath);
  if (host::is_regular_file(kProfilePath)) {
    std::ifstream in(kProfilePath);
    std::stringstream ss;
    ss << in.rdbuf();
    f.profile_text = ss.str();
  }
  if (!bwrap_path.empty()) {
    char* real = ::realpath(bwrap_path.c_str(), nullptr);
    f.bwrap_path = real ? real : bwrap_path;
    std::free(real);
  }
  f.is_root = ::geteuid() == 0;
  return f;
}

Outcome install(const Facts& f) {
  std::string text = profile_text(f.bwrap_path);
  std::string tmp = std::string(kProfilePath) + ".blaude-XXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  bool ok = fd && ::fchmod(fd.get(), 0644) == 0 &&
            ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            ::fsync(fd.get()) == 0;
  fd.reset();
  if (!ok || ::rename(tmp.c_str(), kProfilePath) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return {1,
            {std::string("blaude: failed to write ") + kProfilePath + ": " + err,
             "Run as root: sudo blaude fix-apparmor"},
            true};
  }
  auto r = host::run_capture({"apparmor_parser", "-r", kProfilePath}, 30000);
  if (r.status != 0) {
    return {1,
            {"blaude: failed to load the AppArmor bwrap profile (apparmor_parser -r " +
                 std::string(kProfilePath) + "): " + r.output,
             "Check the profile with: apparmor_parser -QT " + std::string(kProfilePath)},
            true};
  }
  return {0, {"AppArmor bwrap profile installed at " + std::string(kProfilePath) + " for " +
              f.bwrap_path + " and loaded."}, false};
}

}  // namespace blaude::cli::apparmor
