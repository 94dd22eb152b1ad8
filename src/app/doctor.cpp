#include "app/doctor.hpp"

#include <functional>
#include <sstream>

#include <stdlib.h>
#include <unistd.h>

#include "common/file_io.hpp"
#include "common/log.hpp"
#include "common/path_search.hpp"
#include "common/subprocess.hpp"
#include "osc52/backend.hpp"
#include "sandbox/bwrap/probe/features.hpp"
#include "sandbox/bwrap/run/limits.hpp"
#include "sandbox/seatbelt/context.hpp"
#include "sandbox/seatbelt/host.hpp"
#include "sandbox/seatbelt/profile.hpp"

namespace blaude::app::doctor {

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

namespace {

using AddLine = std::function<void(bool ok, bool fatal, const std::string& what, const std::string& text)>;

void claude_and_tools(const Facts& f, const AddLine& add) {
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

  add(true, false, "log", f.log_path.empty() ? "off" : f.log_path);
}

void seatbelt_lines(const Facts& f, const AddLine& add) {
  if (f.sandbox_exec.empty()) {
    add(false, true, "sandbox-exec", "not found at /usr/bin/sandbox-exec (macOS ships it; blaude will not run "
                                     "Claude unsandboxed)");
  } else {
    add(true, true, "sandbox-exec", f.sandbox_exec);
  }
  if (!f.profile_error.empty()) {
    add(false, true, "profile", f.profile_error);
  } else if (f.profile_status && *f.profile_status == 0) {
    add(true, true, "profile", "sandbox-exec loads the profile for this directory (-f PROFILE /usr/bin/true)");
  } else if (f.profile_status) {
    std::string first = f.profile_output.substr(0, f.profile_output.find('\n'));
    add(false, true, "profile", "sandbox-exec refused it (" + (first.empty() ? "exit " + std::to_string(*f.profile_status) : first) +
                                    "); please report it with `blaude --dry-run`");
  }
  add(false, false, "macOS backend", "not yet run on a Mac; scripts/macos-acceptance.sh checks it item by item");
}

}  // namespace

std::vector<Line> report(const Facts& f) {
  std::vector<Line> out;
  auto add = [&](bool ok, bool fatal, const std::string& what, const std::string& text) {
    out.push_back({ok, fatal, std::string(ok ? "OK   " : fatal ? "FIX  " : "NOTE ") + what + ": " + text});
  };
  if (f.backend == Backend::Seatbelt) {
    seatbelt_lines(f, add);
    claude_and_tools(f, add);
    return out;
  }

  if (f.bwrap_path.empty()) {
    add(false, true, "bwrap", "not found; install with: apt install bubblewrap  OR  dnf install bubblewrap");
  } else {
    std::string ver = f.bwrap_version.empty() ? "version unknown" : f.bwrap_version;
    add(true, true, "bwrap", f.bwrap_path + " " + ver);
    if (f.overlay) {
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
                           ? "run: blaude fix-apparmor"
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
      add(false, true, "AppArmor", "restricts user namespaces and bwrap has no profile; run: blaude fix-apparmor");
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

  if (!f.limits.empty()) {
    if (f.limits_cgroup)
      add(true, false, "resource limits", f.limits);
    else
      add(false, false, "resource limits",
          f.limits + "; a cgroup v2 leaf needs a delegated one (systemd's user manager: start blaude from a "
                     "terminal of your desktop session, or with systemd-run --user --scope)");
  }

  add(true, false, "selftest", "`blaude selftest` tries the sandbox's protections from inside on this machine");

  claude_and_tools(f, add);
  return out;
}

int exit_code(const std::vector<Line>& lines) {
  for (const auto& l : lines) {
    if (l.fatal && !l.ok) return 1;
  }
  return 0;
}

namespace {

// The profile a plain `blaude` here would get, handed to sandbox-exec the way the issue's
// acceptance check does: from a file, running /usr/bin/true. The file is private and removed.
void probe_seatbelt(const HostEnv& host, Facts& f) {
  namespace sb = sandbox::seatbelt;
  sandbox::SandboxRequest req;
  req.command = {"claude"};
  const sb::SeatbeltHost h = sb::SeatbeltHost::probe(host, req);
  f.sandbox_exec = h.sandbox_exec;
  auto made = sb::make_context(h, req, false, "", "");
  if (auto* e = std::get_if<sb::SeatbeltPlanError>(&made)) {
    f.profile_error = e->what;
    return;
  }
  std::string profile;
  try {
    profile = sb::seatbelt_profile({}, std::get<sb::SeatbeltDecision>(made).ctx);
  } catch (const sb::SeatbeltError& e) {
    f.profile_error = std::string("cannot be expressed: ") + e.what();
    return;
  }
  if (f.sandbox_exec.empty()) return;
  std::string tmpl = host.get("TMPDIR", "/tmp");
  if (tmpl.empty() || tmpl[0] != '/') tmpl = "/tmp";
  tmpl += "/blaude-doctor-XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0 || !write_all(fd, profile)) {
    f.profile_error = "cannot write a temporary profile file: " + errno_text();
    if (fd >= 0) {
      ::close(fd);
      ::unlink(tmpl.c_str());
    }
    return;
  }
  ::close(fd);
  auto r = run_capture({f.sandbox_exec, "-f", tmpl, "/usr/bin/true"});
  ::unlink(tmpl.c_str());
  f.profile_status = r.status;
  f.profile_output = r.timed_out ? "timed out" : r.output;
}

}  // namespace

// The same probes a launch uses: bwrap's feature test, the userns probe that explains a failed
// launch, the clipboard choice of the OSC 52 filter, AppArmor's facts (on macOS: sandbox-exec
// and the profile instead of bwrap, user namespaces and AppArmor).
Facts probe(const HostEnv& host) {
  Facts f;
  const std::string path = host.get("PATH");
  if (host_backend(host).backend == Backend::Seatbelt) {
    f.backend = Backend::Seatbelt;
    probe_seatbelt(host, f);
  } else if (auto b = find_executable("bwrap", path, RelativeEntries::Skip)) {
    f.bwrap_path = *b;
    auto r = run_capture({*b, "--version"});
    if (r.status == 0 && parse_bwrap_version(r.output)) {
      f.bwrap_version = r.output.substr(r.output.find_last_of(' ') + 1);
      while (!f.bwrap_version.empty() && f.bwrap_version.back() == '\n') f.bwrap_version.pop_back();
    }
    f.overlay = sandbox::bwrap::bwrap_features(*b, host.home, host.uid).overlay;
    auto u = sandbox::bwrap::probe_userns(*b);
    f.userns_status = u.status;
    f.userns_output = u.status == -1 ? "timed out or could not start" : u.output;
  }
  if (f.backend == Backend::Bwrap) f.apparmor = apparmor::probe(host, f.bwrap_path);
  f.claude_path = find_executable("claude", path).value_or("");
  f.display_present = !host.get("DISPLAY").empty() || !host.get("WAYLAND_DISPLAY").empty();
  const osc52::Backend clip = osc52::choose_backend(osc52::probe_host(host, false));
  if (clip.tool != osc52::Tool::None) f.clipboard_backend = osc52::tool_name(clip.tool);
  f.asciinema_path = find_executable("asciinema", path).value_or("");
  f.recording = host.get("ASCIINEMA_REC") == "1";
  if (f.backend == Backend::Bwrap) {
    f.legacy_tiocsti = read_first_line("/proc/sys/dev/tty/legacy_tiocsti");
    const auto lp = sandbox::bwrap::plan_limits(LimitSettings{});
    f.limits_cgroup = lp.kind == sandbox::bwrap::LimitKind::Cgroup;
    f.limits = sandbox::bwrap::describe_limits(lp).substr(8) + " by default (--memory-max, --pids-max)";
  }
  f.log_path = log::default_path(host);
  return f;
}

}  // namespace blaude::app::doctor
