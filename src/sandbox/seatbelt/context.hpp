// macOS backend, the decision: host facts + the request → what the profile allows, what the
// launch looks like, and what the user is told. Pure (no I/O); the bwrap planner's counterpart.
//
// What the options mean under Seatbelt (there is no mount namespace, so nothing is remapped:
// every path inside is the host's own, and options give or take access):
//   --tmp          no project: the project dir is not granted; the session starts in /private/tmp
//                  (or $TMPDIR with --clear-tmp)
//   --clear-tmp    the host's /tmp is neither readable nor writable; $TMPDIR (private to the
//                  user) is the temporary dir
//   -m PATH[:rw]   PATH readable (and writable); refused for home or a parent of it, as on Linux
//   --ssh          ~/.ssh readable and the agent socket connectable
//   --aws          ~/.aws readable
//   --git          ~/.git-credentials, gnupg's public files readable; gpg-agent's socket connectable
//   --keyring      the login keychain's dir writable (it is readable by default: claude's login)
//   --no-network   loopback only
//   --allow-protected-writes  the workspace protections are dropped (not the policy files)
#pragma once
#include <string>
#include <variant>
#include <vector>

#include "sandbox/request.hpp"
#include "sandbox/seatbelt/host.hpp"
#include "sandbox/seatbelt/profile.hpp"

namespace blaude::sandbox::seatbelt {

struct SeatbeltPlanError {
  std::string what;
  std::string hint;
};

struct SeatbeltDecision {
  SeatbeltContext ctx;
  std::string cwd;  // where the session starts
  std::string tmpdir;  // TMPDIR inside ("" = leave unset)
  std::vector<std::string> notes, warnings;
};

// own_pty: the session runs on blaude's pty (stdio is a terminal), whose slave name reaches the
// profile as tty_token (replaced at spawn). policy_file: the project policy file, if any.
std::variant<SeatbeltDecision, SeatbeltPlanError> make_context(const SeatbeltHost& h, const SandboxRequest& req,
                                                               bool own_pty, const std::string& tty_token,
                                                               const std::string& policy_file);

// The dirs the sandbox can write where a repository may live, for the post-session audit of
// git's code-bearing files (app/audit; bwrap's plan lists its rw binds the same way): the project,
// -m :rw dirs, a linked worktree's gitdir and common dir, Claude's config dir, the write grants.
// Not the temporary dirs, and not the keychain's (--keyring).
std::vector<std::string> audit_dirs(const SeatbeltContext& c, const Grants& grants);

}  // namespace blaude::sandbox::seatbelt
