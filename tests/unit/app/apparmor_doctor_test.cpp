// fix-apparmor's detection and profile text over synthetic facts (this host has no AppArmor),
// and doctor's report.
#include <string>

#include "catch.hpp"
#include "app/apparmor.hpp"
#include "app/doctor.hpp"

using namespace blaude::app;
namespace aa = blaude::app::apparmor;

namespace {

aa::Facts ubuntu2404() {
  aa::Facts f;
  f.module_loaded = true;
  f.parser_found = true;
  f.restrict_value = "1";
  f.bwrap_path = "/usr/bin/bwrap";
  f.is_root = true;
  return f;
}

}  // namespace

TEST_CASE("AppArmor profile text is the seed's, for the bwrap actually used") {
  CHECK(aa::profile_text("/usr/bin/bwrap") ==
        "abi <abi/4.0>,\n"
        "include <tunables/global>\n"
        "\n"
        "profile bwrap /usr/bin/bwrap flags=(unconfined) {\n"
        "  userns,\n"
        "\n"
        "  include if exists <local/bwrap>\n"
        "}\n");
  CHECK(aa::profile_text("/usr/local/bin/bwrap").find("profile bwrap /usr/local/bin/bwrap flags") !=
        std::string::npos);
  CHECK(aa::profile_text("/opt/my tools/bwrap").find("profile bwrap \"/opt/my tools/bwrap\" flags") !=
        std::string::npos);
}

TEST_CASE("AppArmor detection over synthetic hosts") {
  auto f = ubuntu2404();
  CHECK(aa::decide(f) == aa::Verdict::Install);

  auto no_module = f;
  no_module.module_loaded = false;
  CHECK(aa::decide(no_module) == aa::Verdict::NotActive);
  auto no_parser = f;
  no_parser.parser_found = false;
  CHECK(aa::decide(no_parser) == aa::Verdict::NotActive);

  auto open = f;
  open.restrict_value = "0";
  CHECK(aa::decide(open) == aa::Verdict::NotRestricted);
  auto old_kernel = f;
  old_kernel.restrict_value.reset();
  CHECK(aa::decide(old_kernel) == aa::Verdict::NotRestricted);

  auto installed = f;
  installed.profile_path_exists = true;
  installed.profile_text = aa::profile_text("/usr/bin/bwrap");
  CHECK(aa::decide(installed) == aa::Verdict::Installed);  // idempotent: nothing to do

  auto other_bwrap = installed;
  other_bwrap.bwrap_path = "/usr/local/bin/bwrap";
  CHECK(aa::decide(other_bwrap) == aa::Verdict::ForeignProfile);
  auto symlinked = f;
  symlinked.profile_path_exists = true;  // a symlink or directory: never written through
  CHECK(aa::decide(symlinked) == aa::Verdict::ForeignProfile);

  auto user = f;
  user.is_root = false;
  CHECK(aa::decide(user) == aa::Verdict::NeedsRoot);
  auto out = aa::describe(aa::Verdict::NeedsRoot, user);
  CHECK(out.exit_code == 1);
  REQUIRE(out.failure);
  // No sudo: a command that works as printed (absolute paths; sudo's secure_path and root's
  // PATH would find neither ~/.local/bin/blaude nor the user's own bwrap).
  user.self_exe = "/home/u/.local/bin/blaude";
  CHECK(aa::sudo_argv(user).empty());
  CHECK(aa::describe(aa::Verdict::NeedsRoot, user).failure->hint ==
        "Run as root: /home/u/.local/bin/blaude fix-apparmor /usr/bin/bwrap");
  user.sudo = "/usr/bin/sudo";
  CHECK(aa::sudo_argv(user) ==
        std::vector<std::string>{"/usr/bin/sudo", "/home/u/.local/bin/blaude", "fix-apparmor", "/usr/bin/bwrap"});
  user.self_exe.clear();
  CHECK(aa::sudo_argv(user).empty());

  auto nobwrap = f;
  nobwrap.bwrap_path.clear();
  CHECK(aa::decide(nobwrap) == aa::Verdict::NoBwrap);

  CHECK(aa::describe(aa::Verdict::NotActive, no_module).exit_code == 0);
  CHECK(aa::describe(aa::Verdict::NotActive, no_module).lines[0] ==
        "AppArmor is not active on this system. No fix needed.");
  CHECK(aa::describe(aa::Verdict::Installed, installed).exit_code == 0);
}

TEST_CASE("AppArmor startup warning only when restricted and no profile") {
  auto f = ubuntu2404();
  auto w = aa::startup_warning(f);
  REQUIRE(w.size() == 4);
  CHECK(w[0] == "Warning: AppArmor is restricting unprivileged user namespaces.");
  f.profile_path_exists = true;
  CHECK(aa::startup_warning(f).empty());
  auto open = ubuntu2404();
  open.restrict_value = "0";
  CHECK(aa::startup_warning(open).empty());
}

TEST_CASE("doctor: bwrap version; overlays as the launch's feature probe found them") {
  CHECK(doctor::parse_bwrap_version("bubblewrap 0.8.0\n") == std::vector<int>{0, 8, 0});
  CHECK_FALSE(doctor::parse_bwrap_version("garbage").has_value());
  doctor::Facts f;
  f.bwrap_path = "/usr/bin/bwrap";
  f.bwrap_version = "0.11.1";  // the version alone decides nothing: the probe's answer does
  auto text = [](const doctor::Facts& facts) {
    std::string all;
    for (const auto& l : doctor::report(facts)) all += l.text + "\n";
    return all;
  };
  CHECK(text(f).find("bwrap overlays: not supported") != std::string::npos);
  f.overlay = true;
  CHECK(text(f).find("bwrap overlays: supported") != std::string::npos);
}

TEST_CASE("doctor: exit 0 only if blaude can run here") {
  doctor::Facts good;
  good.bwrap_path = "/usr/bin/bwrap";
  good.bwrap_version = "0.9.0";
  good.overlay = true;
  good.userns_status = 0;
  good.claude_path = "/usr/local/bin/claude";
  good.log_path = "/l";
  auto lines = doctor::report(good);
  CHECK(doctor::exit_code(lines) == 0);
  for (const auto& l : lines) {
    INFO(l.text);
    CHECK(l.ok);
  }
  std::string all;
  for (const auto& l : lines) all += l.text + "\n";
  for (const char* what : {"bwrap:", "bwrap overlays:", "user namespaces:", "AppArmor:", "claude:",
                           "clipboard:", "asciinema:", "dev.tty.legacy_tiocsti:", "log:"}) {
    INFO(what);
    CHECK(all.find(what) != std::string::npos);
  }

  auto no_claude = good;
  no_claude.claude_path.clear();
  CHECK(doctor::exit_code(doctor::report(no_claude)) == 1);
  auto no_bwrap = good;
  no_bwrap.bwrap_path.clear();
  no_bwrap.userns_status.reset();
  CHECK(doctor::exit_code(doctor::report(no_bwrap)) == 1);
  auto no_userns = good;
  no_userns.userns_status = 1;
  no_userns.userns_output = "bwrap: setting up uid map: Permission denied\n";
  auto nl = doctor::report(no_userns);
  CHECK(doctor::exit_code(nl) == 1);
  bool mentioned = false;
  for (const auto& l : nl) mentioned = mentioned || l.text.find("Permission denied") != std::string::npos;
  CHECK(mentioned);
  auto restricted = good;
  restricted.apparmor = ubuntu2404();
  CHECK(doctor::exit_code(doctor::report(restricted)) == 1);
  // Caveats are not fatal: old bwrap, TIOCSTI allowed, no clipboard tool.
  auto caveats = good;
  caveats.bwrap_version = "0.8.0";
  caveats.overlay = false;
  caveats.legacy_tiocsti = "1";
  caveats.display_present = true;
  CHECK(doctor::exit_code(doctor::report(caveats)) == 0);
}
