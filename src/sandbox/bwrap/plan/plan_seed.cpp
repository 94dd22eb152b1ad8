// Seed behaviours of the plan: the directories the seed creates on the host, the
// WSL warning, and the exec shim the command starts through.
#include <algorithm>
#include <cctype>

#include "common/paths.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"

namespace blaude::sandbox::bwrap {

std::vector<std::string> wsl_warning(const std::string& osrelease, const std::string& proc_version,
                                     const std::string& cwd) {
  std::string k = osrelease + "\n" + proc_version;
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (k.find("microsoft") == std::string::npos || !is_under(cwd, "/mnt") || cwd == "/mnt") return {};
  return {"workspace is on the Windows filesystem (/mnt/*).\n"
          "  WSL2's 9P protocol has known bugs causing spurious ENOENT errors.\n"
          "  For best reliability, move your project to the Linux filesystem:\n"
          "  e.g., /home/$USER/projects/ instead of /mnt/c/..."};
}

namespace detail {

void persistent_dir(Builder& b, const std::string& path, const std::string& why) {
  if (b.is_dir(path)) {
    b.rw(path);
    return;
  }
  // Only a name that is free (a dangling link or a file there is left alone), in a home that
  // is there; created 0700 by the prepare step, bound only if that worked (--bind-try).
  if (b.f.at(path).lkind != Kind::Missing || b.f.home_real.empty()) return;
  b.p.preparations.push_back({HostPrep::Kind::MakeDir, path, 0700, "", false, why});
  b.add(OpKind::BindTry, path, path);
}

void add_wsl_warning(Builder& b) {
  auto w = wsl_warning(b.f.kernel_osrelease, b.f.proc_version, b.f.cwd);
  const std::string marker = b.home(".cache/blaude/wsl-mnt-warned");
  if (w.empty() || b.req.tmp || b.f.at(marker).lkind != Kind::Missing) return;
  b.p.warnings.insert(b.p.warnings.end(), w.begin(), w.end());
  // Once, as the seed: a marker in blaude's cache (hidden from the sandbox by the tmpfs $HOME).
  for (const std::string& d : {b.home(".cache"), b.home(".cache/blaude")})
    b.p.preparations.push_back({HostPrep::Kind::MakeDir, d, 0700, "", false, "blaude's cache"});
  b.p.preparations.push_back({HostPrep::Kind::CreateFile, marker, 0600, "", false, "the WSL /mnt warning is shown once"});
}

std::vector<std::string> shimmed(Builder& b, const std::vector<std::string>& command, bool bind_self) {
  // Without the shim nothing inside would check bwrap's mounts (plan_verify.cpp) or isolate the
  // command from bwrap: refuse rather than run the command bare.
  if (b.f.self_exe.empty() && !b.f.self_exe_problem.empty() && !command.empty())
    throw PlanError(b.f.self_exe_problem,
                    "Run blaude again by its full path (after an upgrade, the new binary); nothing was started.");
  if (b.f.self_exe.empty() || command.empty()) return command;
  // The static shim when it is installed; proxy mode's relay runs the shim in its own process
  // (blaude's binary, bound by the proxy's arguments), so it keeps blaude's own verb.
  const bool own = bind_self && !b.f.shim_exe.empty();
  if (own) b.ro(b.f.shim_exe, kSandboxShim);
  else if (bind_self) b.ro(b.f.self_exe, kSandboxSelf);
  std::vector<std::string> argv{own ? kSandboxShim : kSandboxSelf, own ? kShimVerb : kExecShim};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

}  // namespace detail

}  // namespace blaude::sandbox::bwrap
