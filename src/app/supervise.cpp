// Running the decided launch: the asciinema guard and the OSC 52 filter around the PTY
// supervisor, and an explanation when bwrap itself could not start the sandbox.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "inside/exec_shim.hpp"
#include "app/launch.hpp"
#include "broker/clip_service.hpp"
#include "inside/shim_isolation.hpp"
#include "asciinema/guard.hpp"
#include "common/platform.hpp"
#include "common/shell_quote.hpp"
#include "osc52/filter.hpp"
#include "pty/supervisor.hpp"
#include "sandbox/bwrap/plan/held.hpp"
#include "sandbox/bwrap/run/launch.hpp"

namespace blaude::app {

namespace {

constexpr const char* kChangedHint =
    "Something changed the workspace or /tmp while blaude was starting (another session? a rename?); nothing ran. "
    "Run blaude again.";

constexpr const char* kHeldHint =
    "bwrap refuses a bind whose path was swapped after blaude checked it (\"Race condition binding dirfd\", "
    "\"Can't mount on symlink destination\"): another session changing the workspace or /tmp? Run blaude again.";

asciinema::RecorderEnv recorder_env(const HostEnv& host) {
  asciinema::RecorderEnv e;
  if (auto it = host.env.find("ASCIINEMA_REC"); it != host.env.end()) e.rec = it->second;
  if (auto it = host.env.find("ASCIINEMA_SESSION"); it != host.env.end()) e.session = it->second;
  return e;
}

// The same argv with the exec shim told it runs on blaude's pty, where it gives the command its
// own process group (inside/shim_isolation.hpp); nullopt if the argv has no shim.
std::optional<std::vector<std::string>> shim_on_pty(const std::vector<std::string>& argv) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    const bool self = argv[i] == sandbox::kSandboxSelf && argv[i + 1] == inside::kExecShim;
    if (!self && (argv[i] != sandbox::kSandboxShim || argv[i + 1] != sandbox::kShimVerb)) continue;
    std::vector<std::string> v = argv;
    v[i + 1] = self ? inside::kExecShimOnPty : sandbox::kShimVerbOnPty;
    return v;
  }
  return std::nullopt;
}

// The child's work before bwrap's exec: the limits first (everything after runs inside them),
// then the confinement. Syscalls only (pty::PreExec).
struct ChildWork {
  const sandbox::bwrap::SandboxLimits* limits = nullptr;
  const sandbox::bwrap::PreparedConfinement* confine = nullptr;
};
constexpr int kStepLimits = 100;

int child_work(const void* arg, int* step) {
  const auto* w = static_cast<const ChildWork*>(arg);
  if (w->limits)
    if (int e = w->limits->enter()) {
      *step = kStepLimits;
      return e;
    }
  return w->confine ? sandbox::bwrap::run_confinement(w->confine, step) : 0;
}

const char* child_step_name(int step) {
  return step == kStepLimits ? "the resource limits (--no-limits starts without them)"
                             : sandbox::bwrap::confine_step_name(step);
}

}  // namespace

int supervise(const HostEnv& host, const cli::Options& o, const Launch& l, const ScanHook& before_command,
              const StartHook& started) {
  pty::Command cmd;
  sandbox::bwrap::PreparedLaunch prepared;
  std::unique_ptr<sandbox::bwrap::SandboxLimits> limits;
  ChildWork child;
  if (l.sandboxed && l.backend == Backend::Seatbelt) {
    // sandbox-exec runs the command where blaude starts it: bwrap's --chdir, here.
    if (!l.cwd.empty() && ::chdir(l.cwd.c_str()) != 0) {
      print(Failure{"cannot enter " + l.cwd + ": " + std::string(std::strerror(errno)), ""});
      return 1;
    }
    cmd.argv = l.plan.argv;
    cmd.tty_token = l.tty_token;
  } else if (l.sandboxed) {
    try {
      prepared = sandbox::bwrap::prepare_launch(l.plan);
    } catch (const sandbox::bwrap::HeldPathChanged& e) {
      print(Failure{std::string("the sandbox did not start: ") + e.what(), kChangedHint});
      return 1;
    } catch (const std::exception& e) {  // a memfd (std::system_error), the syscall filter
      print(Failure{std::string("cannot prepare the sandbox: ") + e.what(), ""});
      return 1;
    }
    cmd.argv = prepared.argv;
    cmd.keep_fds = prepared.keep_fds;
    cmd.pty_argv = shim_on_pty(cmd.argv);
    std::string note;
    limits = sandbox::bwrap::SandboxLimits::start(l.limits, &note);
    if (!note.empty()) spdlog::warn("limits: {}", note);
    if (limits && limits->kind() == sandbox::bwrap::LimitKind::Cgroup) spdlog::info("limits: cgroup {}", limits->leaf());
    child = {limits.get(), prepared.confine.get()};
    if (child.limits || child.confine) cmd.pre_exec = {child_work, &child, child_step_name};
  } else {
    cmd.argv = l.plan.argv;
  }
  // bwrap's own environment is what its pid-1 reaper keeps, readable at /proc/1/environ inside:
  // it gets none; the sandbox's environment is entirely in its --setenv options.
  cmd.env = l.child_env;

  // Declared before the session: the recorder guard resumes a paused asciinema after it.
  asciinema::Guard recorder(o.no_asciinema, recorder_env(host));
  pty::SuperviseOptions so;
  so.endpoint = [&recorder] { return recorder.endpoint(); };
  so.terminal = host.stdio_tty();
  // OSC 52 copies go to the host clipboard; with no usable tool they pass to the terminal, and
  // read requests never do.
  osc52::Config clip = osc52::configure(host, o.no_clipboard);
  so.make_filter = [clip](uv_loop_t* loop) { return osc52::make_filter(loop, clip); };
  // The terminal state guard is off only to measure the pass-through alone.
  if (auto g = host.env.find("BLAUDE_TERM_GUARD"); g != host.env.end() && g->second == "off")
    so.guard_terminal = false;
  // Without bwrap's pid namespace (Seatbelt, and --no-sandbox) the session's processes could
  // outlive it and race the audit: on the POSIX calls (macOS, and Linux's forced-fallbacks build,
  // which tests it) they are swept. Linux's --no-sandbox keeps its behaviour (nothing changes there).
  so.sweep_session = !kLinuxCalls && !(l.sandboxed && l.backend == Backend::Bwrap);
  // The protect helper is forked once bwrap runs (protect_gate.hpp: bwrap waits at its gate).
  // A deferred plan is finished first (the scan overlapped bwrap's start), and the audit takes
  // its snapshot: both before the helper's fork, so before anything in the sandbox runs. (Taking
  // the snapshot after the fork, with blaude holding the gate, measured no faster: the snapshot's
  // copy-on-write faults after the fork cost what the overlap gained.)
  // A deferred layout that failed (the gate closed without the proof): its own hint, as plan()
  // would have given it before the start.
  std::string deferred_hint;
  so.after_spawn = [&l, &prepared, &before_command, &deferred_hint, &started, &limits](pid_t pid) {
    if (prepared.gate) {
      if (const auto* r = sandbox::bwrap::finish_deferred(l.plan, prepared)) {
        if (!r->error.empty()) deferred_hint = r->hint;
        report_findings(r->warnings, r->notes);
        std::fflush(stderr);
        if (r->scan && before_command) before_command(*r->scan);
      }
      prepared.gate->launch_helper();
    }
    if (limits) limits->watch();
    if (started) started(pid);
  };

  // Proxy mode: the proxy and the published ports are bound now, before the child exists.
  std::unique_ptr<NetSession> net;
  if (l.net) {
    auto started = NetSession::start(*l.net, control_runtime_dir(host.get("XDG_RUNTIME_DIR")), cmd.argv, cmd.keep_fds);
    if (auto* f = std::get_if<Failure>(&started)) {
      print(*f);
      return 1;
    }
    net = std::get<std::unique_ptr<NetSession>>(std::move(started));
    // The relay's descriptor number is in argv now; the pty variant was made before it.
    if (cmd.pty_argv) cmd.pty_argv = shim_on_pty(cmd.argv);
  }

  // The broker's sockets listen before the child exists (the sandbox binds their directory).
  std::unique_ptr<ServicesSession> services;
  if (l.services) {
    auto started = ServicesSession::start(*l.services, so.terminal);
    if (auto* f = std::get_if<Failure>(&started)) {
      print(*f);
      return 1;
    }
    services = std::get<std::unique_ptr<ServicesSession>>(std::move(started));
    // The user's paste key on blaude's own terminal opens the clipboard's read window.
    if (auto gate = services->paste_gate())
      so.on_input = [gate, keys = std::make_shared<broker::clipboard::PasteKeys>()](const char* p, size_t n) {
        if (keys->feed(std::string_view(p, n))) {
          gate->open(broker::clipboard::now_ms());
          spdlog::info("broker: clipboard: the paste key opened the read window");
        }
      };
  }

  // The default mode in a namespace of its own: pasta joins it once bwrap has made it, before
  // the command runs (net/netns.hpp).
  std::unique_ptr<net::NetnsLink> netns;
  if (!l.netns_pasta.empty()) {
    auto started = net::NetnsLink::start(l.netns_pasta, kNetnsToken, cmd.argv, cmd.keep_fds);
    if (auto* e = std::get_if<std::string>(&started)) {
      print(Failure{*e, ""});
      return 1;
    }
    netns = std::get<std::unique_ptr<net::NetnsLink>>(std::move(started));
    if (cmd.pty_argv) cmd.pty_argv = shim_on_pty(cmd.argv);
  }

  spdlog::info("launching: {}", shell_quote(cmd.argv));
  int rc = pty::supervise(cmd, so);
  // pasta could not connect the namespace: nothing ran (the command waits for it).
  if (netns)
    if (std::string why = netns->finish(); !why.empty()) {
      print(Failure{"the sandbox's network could not be set up: " + why + "; nothing ran",
                    "BLAUDE_NETNS=off runs it on the host's network instead, where the host's abstract unix sockets "
                    "stay reachable; --no-network gives it none."});
      return 1;
    }
  // The terminal's again: with --debug, what the terminal firewall kept from it.
  if (o.debug)
    if (uint64_t n = clip.dropped->load(); n > 0)
      std::fprintf(stderr, "blaude: the terminal firewall dropped %llu escape sequence(s) of the command's output (the log says which)\n",
                   static_cast<unsigned long long>(n));
  // After the session, with the terminal the user's again: what the proxy refused, in one line.
  if (net)
    if (std::string line = net->finish(); !line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
  // What the signing-only agent signed and refused.
  if (services)
    for (const auto& line : services->finish()) std::fprintf(stderr, "%s\n", line.c_str());
  // Programs that wanted a user namespace of their own (a nested sandbox), and the setting.
  if (prepared.userns)
    if (std::string line = prepared.userns->finish(); !line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
  // A limit that ended the sandbox: which one, and the setting that changes it.
  if (limits)
    if (std::string line = limits->finish(); !line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
  // The protections are made by a helper inside the sandbox before the command starts: if it
  // could not make them all, bwrap stopped before the command and this says why.
  if (auto why = sandbox::bwrap::protect_outcome(prepared); !why.empty()) {
    // The helper waits for bwrap's own mounts: when bwrap refused one of its held binds first,
    // that is the reason to give.
    if (auto held = sandbox::bwrap::held_outcome(l.plan, prepared);
        !held.empty() && why.find("changed while") == std::string::npos) {
      print(Failure{"the sandbox did not start: " + held + "; nothing ran", kHeldHint});
    } else {
      print(Failure{"the sandbox did not start: " + why, deferred_hint.empty() ? kChangedHint : deferred_hint});
    }
    return 1;
  }
  if (l.sandboxed && l.backend == Backend::Bwrap && rc == 1) {
    // bwrap could not make its user namespace (AppArmor, sysctls), or refused a held bind whose
    // path was swapped after blaude checked it (held.hpp): say which.
    if (auto why = sandbox::bwrap::explain_failure(l.bwrap); !why.empty()) {
      print(Failure{why[0], why[1]});
    } else if (auto held = sandbox::bwrap::held_outcome(l.plan, prepared); !held.empty()) {
      print(Failure{"the sandbox did not start: " + held + "; nothing ran", kHeldHint});
    }
  }
  return rc;
}

}  // namespace blaude::app
