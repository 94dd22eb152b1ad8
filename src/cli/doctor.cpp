#include "cli/doctor.hpp"

#include <cstdlib>
#include <sstream>

#include "cli/host.hpp"
#include "common/log.hpp"

namespace blaude::cli::doctor {

std::optional<std::vector<int>> parse_bwrap_version(const std::string& text) {
  auto sp = text.find_last_of(' ');
  std::string v = text.substr(sp == std::string::npos ? 0 : sp + 1);
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
  std::vector<int> parts;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, '.')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    parts.push_back(std::stoi(item));
  }
  if (parts.size() < 2) return std::nullopt;
  return parts;
}

bool overlay_supported(const std::string& version) {
  // The seed says 0.8.0, but --overlay-src/--tmp-overlay arrived in 0.9.0 (reference §11.9).
  auto v = parse_bwrap_version(version);
  if (!v) return false;
  return (*v)[0] > 0 || (*v)[1] >= 9;
}

std::vector<Line> report(const Facts& f) {
  std::vector<Line> out;
  auto add = [&](bool ok, bool fatal, const std::string& what, const std::string& text) {
    out.push_back({ok, fatal, std::string(ok ? "OK   " : fatal ? "FIX  " : "NOTE ") + what + ": " + text});
  };

  if (f.bwrap_path.empty()) {
    add(false, true, "bwrap", "not found; install with: apt install bubblewrap  OR  dnf install bubblewrap");
  } else {
    std::string ver = f.bwrap_version.empty() ? "version unknown" : f.bwrap_version;
    add(true, true, "bwrap", f.bwrap_path + " " + ver);
    if (overlay_supported(f.bwrap_version)) {
      add(true, false, "bwrap overlays", "supported (--tmp-overlay)");
    } else {
      add(false, false, "bwrap overlays",
          "not supported before bwrap 0.9.0; ~/.config and caches fall back to read-write binds");
    }
  }

  if (f.userns_status && *f.userns_status == 0) {
    add(true, true, "user namespaces", "bwrap can create a sandbox");
  } else if (f.userns_status) {
    std::string first = f.userns_output.substr(0, f.userns_output.find('\n'));
    std::string hint = apparmor::restricted(f.apparmor)
                           ? "run: sudo blaude fix-apparmor"
                           : "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)";
    add(false, true, "user namespaces", "bwrap failed (" + first + "); " + hint);
  }

  switch (apparmor::decide(f.apparmor)) {
    case apparmor::Verdict::NotActive:
      add(true, false, "AppArmor", "not active");
      break;
    case apparmor::Verdict::NotRestricted:
      add(true, false, "AppArmor", "does not restrict user namespaces");
      break;
    case apparmor::Verdict::Installed:
      add(true, false, "AppArmor", std::string("restricts user namespaces; profile ") +
                                       apparmor::kProfilePath + " allows bwrap");
      break;
    case apparmor::Verdict::ForeignProfile:
      add(true, false, "AppArmor", std::string("restricts user namespaces; ") +
                                       apparmor::kProfilePath + " exists (not blaude's)");
      break;
    default:
      add(false, true, "AppArmor", "restricts user namespaces and bwrap has no profile; run: sudo blaude fix-apparmor");
  }

  if (f.claude_path.empty()) {
    add(false, true, "claude", "not found in PATH; install from https://docs.anthropic.com/en/docs/claude-code");
  } else {
    add(true, true, "claude", f.claude_path);
  }

  if (!f.clipboard_backend.empty()) {
    add(true, false, "clipboard", "OSC 52 copies go to " + f.clipboard_backend);
  } else if (!f.display_present) {
    add(true, false, "clipboard", "no display; OSC 52 passes through to the terminal");
  } else {
    add(false, false, "clipboard", "no xclip, xsel or wl-copy; install one for OSC 52 copies on VTE terminals");
  }

  if (f.recording) {
    add(true, false, "asciinema", "recording detected; blaude pauses it during the session");
  } else if (!f.asciinema_path.empty()) {
    add(true, false, "asciinema", f.asciinema_path + " (not recording now)");
  } else {
    add(true, false, "asciinema", "not installed");
  }

  if (!f.legacy_tiocsti) {
    add(true, false, "dev.tty.legacy_tiocsti", "not present (kernel blocks TIOCSTI injection)");
  } else if (*f.legacy_tiocsti == "0") {
    add(true, false, "dev.tty.legacy_tiocsti", "0 (TIOCSTI injection blocked)");
  } else {
    add(false, false, "dev.tty.legacy_tiocsti",
        *f.legacy_tiocsti + ": TIOCSTI injection allowed; blaude keeps the sandbox off your terminal "
        "(own pty / new session), for defence in depth: sysctl -w dev.tty.legacy_tiocsti=0");
  }

  add(true, false, "log", f.log_path.empty() ? "off" : f.log_path);
  return out;
}

int exit_code(const std::vector<Line>& lines) {
  for (const auto& l : lines) {
    if (l.fatal && !l.ok) return 1;
  }
  return 0;
}

Facts probe() {
  Facts f;
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  auto env = [](const char* k) { const char* v = std::getenv(k); return std::string(v ? v : ""); };
  if (auto b = host::find_in_path("bwrap", path)) {
    f.bwrap_path = *b;
    auto r = host::run_capture({*b, "--version"});
    if (r.status == 0 && parse_bwrap_version(r.output)) {
      f.bwrap_version = r.output.substr(r.output.find_last_of(' ') + 1);
      while (!f.bwrap_version.empty() && f.bwrap_version.back() == '\n') f.bwrap_version.pop_back();
    }
    // The real test: a minimal sandbox with every namespace blaude uses.
    auto u = host::run_capture({*b, "--unshare-all", "--share-net", "--die-with-parent",
                                "--ro-bind", "/", "/", "--", "true"}, 10000);
    f.userns_status = u.status;
    f.userns_output = u.status == -1 ? "timed out or could not start" : u.output;
  }
  f.apparmor = apparmor::probe(f.bwrap_path);
  f.claude_path = host::find_in_path("claude", path).value_or("");
  f.display_present = !env("DISPLAY").empty() || !env("WAYLAND_DISPLAY").empty();
  if (!env("WAYLAND_DISPLAY").empty() && host::find_in_path("wl-copy", path)) {
    f.clipboard_backend = "wl-copy";
  } else if (!env("DISPLAY").empty()) {
    for (const char* tool : {"xclip", "xsel"}) {
      if (host::find_in_path(tool, path)) {
        f.clipboard_backend = tool;
        break;
      }
    }
  }
  f.asciinema_path = host::find_in_path("asciinema", path).value_or("");
  f.recording = env("ASCIINEMA_REC") == "1";
  f.legacy_tiocsti = host::read_trimmed("/proc/sys/dev/tty/legacy_tiocsti");
  f.log_path = log::default_path();
  return f;
}

}  // namespace blaude::cli::doctor
