// Telling the user what was decided, before anything happens. --dry-run is this step alone.
#include <cstdio>

#include "app/launch.hpp"
#include "common/shell_quote.hpp"
#include "sandbox/bwrap/probe/confine.hpp"
#include "sandbox/bwrap/plan/format.hpp"
#include "sandbox/bwrap/plan/syscall_table.hpp"
#include "sandbox/seatbelt/launch.hpp"

namespace blaude::app {

namespace {

void say(const char* kind, const std::string& text) { std::fprintf(stderr, "blaude: %s%s\n", kind, text.c_str()); }

// The host preparations as shell a user can run before the printed command (so that what
// --dry-run prints works when pasted), or as a comment where no one-liner says it.
std::string format_preparations(const std::vector<sandbox::HostPrep>& preps) {
  std::string out;
  for (const auto& p : preps) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%o", unsigned(p.mode));
    switch (p.kind) {
      case sandbox::HostPrep::Kind::MakeDir:
        out += "mkdir -p -m " + std::string(mode) + " " + shell_quote(p.path);
        break;
      case sandbox::HostPrep::Kind::CreateFile:
        out += "(umask 077 && set -C && : > " + shell_quote(p.path) + ")";
        break;
      case sandbox::HostPrep::Kind::ReplaceFile:
        out += "# blaude writes " + shell_quote(p.path) + " (" + std::to_string(p.content.size()) + " bytes)";
        break;
    }
    out += "  # " + p.why + (p.required ? "" : " (optional)") + "\n";
  }
  return out;
}

}  // namespace

Layers sandbox_layers(const Launch& l, const cli::Options& o) {
  Layers r;
  const bool own_net = o.no_network || l.net || !l.netns_pasta.empty();
  std::string t = "namespaces user, pid, mount, ipc, uts";
  if (own_net) t += ", net";
  const uint64_t scopes = l.plan.confine.landlock_scopes;
  if (scopes & sandbox::bwrap::kScopeAbstractUnixSocket) {
    t += "; Landlock scope: abstract sockets";
    if (scopes & sandbox::bwrap::kScopeSignal) t += ", signals";
  } else if (own_net) {
    t += "; abstract sockets: the sandbox's own network namespace";
  } else {
    t += "; NO scope on abstract sockets (the host's X server and D-Bus are reachable)";
    r.missing = true;
  }
  if (l.plan.syscalls.on) {
    t += l.plan.syscalls.nested ? "; syscall filter (nested sandboxes allowed)" : "; syscall filter";
  } else {
    t += "; NO syscall filter";
    r.missing = true;
  }
  if (l.plan.confine.fresh_keyring) t += "; own keyring";
  t += "; network: ";
  if (o.no_network)
    t += "none";
  else if (l.net)
    t += "proxy (" + std::to_string(l.net->policy.rules.size()) + " rules)";
  else if (!l.netns_pasta.empty())
    t += "host's, through pasta";
  else
    t += "host's";
  t += "; " + sandbox::bwrap::describe_limits(l.limits);
  if (l.limits.kind == sandbox::bwrap::LimitKind::Off) r.missing = true;
  r.text = std::move(t);
  return r;
}

void report_findings(const std::vector<std::string>& warnings, const std::vector<std::string>& notes) {
  for (const auto& w : warnings) say("warning: ", w);
  for (const auto& n : notes) say("note: ", n);
}

void report(const Launch& l, const cli::Options& o) {
  for (const auto& n : l.notices) std::fprintf(stderr, "%s\n", n.c_str());
  report_findings(l.plan.warnings, l.plan.notes);
  // Which layers hold, in one line: always with --debug, and whenever one is missing, so that a
  // weaker sandbox is never taken for the whole one.
  if (l.sandboxed && l.backend == Backend::Bwrap) {
    const Layers ly = sandbox_layers(l, o);
    if (o.debug || ly.missing) say("layers: ", ly.text);
  }
  if (!l.sandboxed) {
    if (o.debug) std::fprintf(stderr, "\033[2m%s\033[0m\n", shell_quote(l.plan.argv).c_str());
  } else if (l.backend == Backend::Seatbelt) {
    const std::string text = sandbox::seatbelt::format_dry_run(l.plan, l.child_env, l.cwd);
    if (o.dry_run) {
      std::fputs(format_preparations(l.plan.preparations).c_str(), stdout);
      std::fputs(text.c_str(), stdout);
    } else if (o.debug) {
      std::fputs(text.c_str(), stderr);
    }
  } else if (o.dry_run) {
    std::fputs(format_preparations(l.plan.preparations).c_str(), stdout);
    std::fputs(sandbox::bwrap::format_confinement(l.plan.confine).c_str(), stdout);
    std::fputs(sandbox::bwrap::format_syscall_filter(l.plan.syscalls).c_str(), stdout);
    std::fputs(sandbox::bwrap::format_command(l.plan).c_str(), stdout);
  } else if (o.debug) {
    std::fputs(sandbox::bwrap::format_command(l.plan).c_str(), stderr);
  }
  std::fflush(stdout);
  std::fflush(stderr);
}

}  // namespace blaude::app
