#include "sandbox/trust/gate.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <termios.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstdlib>

#include "common/file_io.hpp"
#include "common/unique_fd.hpp"
#include "sandbox/policy/print.hpp"
#include "sandbox/policy/resolve.hpp"
#include "sandbox/policy/toolchains.hpp"
#include "sandbox/trust/io.hpp"
#include "sandbox/trust/ledger.hpp"

namespace blaude::sandbox::trust {

using namespace blaude::sandbox::policy;

namespace {

// Bump when the base policy's meaning changes in a way toolchains/protected lists don't show.
constexpr const char* kBaseRevision = "blaude-base-2";  // 2: the Seatbelt base policy's rewrite

GateResult error(std::string message, std::string hint) {
  GateResult r;
  r.status = GateResult::Status::Error;
  r.message = std::move(message);
  r.hint = std::move(hint);
  return r;
}

std::string format_errors(const std::vector<PolicyError>& errs) {
  std::string out = "invalid policy:";
  for (const auto& e : errs)
    out += "\n  " + e.file + (e.line ? ":" + std::to_string(e.line) : "") + ": " + e.why;
  return out;
}

// Writes all of `text` to the terminal; false on error.
bool tty_write(int fd, const std::string& text) { return write_all(fd, text); }

// One line from the terminal (EOF or error → ""), bounded.
std::string tty_read_line(int fd) {
  std::string line;
  char c;
  while (line.size() < 256) {
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    line += c;
  }
  return line;
}

}  // namespace

GateRequest gate_request(const HostEnv& host, bool trust_policy) {
  GateRequest req;
  req.home = host.home_real;
  req.project_root = host.cwd;
  const std::string xdg = host.get("XDG_CONFIG_HOME");
  req.config_dir = !xdg.empty() && xdg[0] == '/' ? xdg + "/blaude" : req.home + "/.config/blaude";
  const std::string path = host.get("PATH");  // get() returns a copy: keep it alive for rest
  std::string_view rest(path);
  while (!rest.empty()) {
    auto colon = rest.find(':');
    auto dir = rest.substr(0, colon);
    if (!dir.empty()) req.path_dirs.emplace_back(dir);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  req.trust_policy = trust_policy;
  return req;
}

std::string base_policy_id() {
  std::string s = std::string(kBaseRevision) + "\n" + protected_summary();
  for (const auto& t : toolchains()) {
    s += std::string(t.name) + ":";
    for (auto p : t.read) s += " r" + std::string(p);
    for (auto p : t.write) s += " w" + std::string(p);
    for (auto p : t.exec) s += " x" + std::string(p);
    s += "\n";
  }
  return sha256_hex(s).substr(0, 16);
}

GateResult load_policies(const GateRequest& req) {
  PolicyContext ctx{req.home, req.project_root, req.path_dirs, req.config_dir};
  GateResult r;
  LoadedPolicies& L = r.loaded;

  const std::string user_path = req.config_dir + "/policy";
  auto user = read_file_once(user_path);
  if (!user.error.empty())
    return error(user_path + " " + user.error, "fix or remove the file");
  if (user.exists) {
    auto parsed = parse_policy(user.content, user_path, ctx);
    if (!parsed.ok()) return error(format_errors(parsed.errors), "fix the lines above");
    L.user_file = user_path;
    L.user = std::move(parsed.policy);
  }

  const std::string blaude_path = req.project_root + "/" + std::string(kPolicyFileName);
  const std::string xclaude_path = req.project_root + "/" + std::string(kXclaudeFileName);
  auto b = read_file_once(blaude_path);
  auto x = read_file_once(xclaude_path);
  if (b.exists && x.exists)
    return error("both " + blaude_path + " and " + xclaude_path + " exist",
                 "keep one of them (blaude reads .blaude, or .xclaude when there is no .blaude)");
  const std::string& path = b.exists ? blaude_path : xclaude_path;
  FileRead& f = b.exists ? b : x;
  if (!f.error.empty()) return error(path + " " + f.error, "fix or remove the file");
  if (f.exists) {
    // The same bytes are hashed and parsed: there is no second read to race with.
    L.sha256 = sha256_hex(f.content);
    L.project_text = f.content;
    auto parsed = parse_policy(f.content, path, ctx);
    if (!parsed.ok()) return error(format_errors(parsed.errors), "fix the lines above");
    if (!parsed.policy.no_default_domains.empty())
      return error(parsed.policy.no_default_domains + ": no-default-domains belongs in your own policy (" + user_path +
                       "), not in a project's",
                   "remove the line; a project can add allow-domain lines, not take Claude's hosts away");
    // A file the agent can write must not be able to open the kernel's namespaces to it.
    if (!parsed.policy.nested_sandbox.empty())
      return error(parsed.policy.nested_sandbox + ": nested-sandbox belongs in your own policy (" + user_path +
                       "), not in a project's",
                   "remove the line; use --nested-sandbox for one session, or put it in your own policy");
    // Which keys sign as the user is the user's to say, not a repository's.
    if (!parsed.policy.ssh_agent.empty() || !parsed.policy.ssh_keys.empty())
      return error((parsed.policy.ssh_agent.empty() ? parsed.policy.ssh_keys.front().origin : parsed.policy.ssh_agent) +
                       ": ssh-agent and ssh-key belong in your own policy (" + user_path + "), not in a project's",
                   "remove the line; use --ssh-agent and --ssh-key for one session, or put them in your own policy");
    // What the agent may read of the user's clipboard is the user's to say.
    if (!parsed.policy.clipboard_paste.empty())
      return error(parsed.policy.clipboard_paste_origin + ": clipboard-paste belongs in your own policy (" + user_path +
                       "), not in a project's",
                   "remove the line; put it in your own policy");
    // Limits guard the user's machine from the agent: not the agent's to lift (nor to set).
    if (!parsed.policy.limits_origin.empty())
      return error(parsed.policy.limits_origin + ": memory-max, pids-max and no-limits belong in your own policy (" +
                       user_path + "), not in a project's",
                   "remove the line; use --memory-max, --pids-max or --no-limits for one session, or put it in "
                   "your own policy");
    L.project_file = path;
    L.project = std::move(parsed.policy);
    L.scope = trust_scope(req.project_root, path);
  }
  // Symlinks in the project (or home) must not widen what the text says: resolve and re-check.
  auto resolved = resolve_grants(policy_grants(merge_policies(L.user, L.project)), ctx);
  if (!resolved.errors.empty())
    return error(format_errors(resolved.errors), "remove the symlink or the grant");
  L.grants = std::move(resolved.grants);
  r.status = GateResult::Status::Proceed;
  return r;
}

bool seed_workspace(const std::string& flag, const LoadedPolicies& loaded) {
  if (!flag.empty()) return flag == "seed";
  return loaded.user.workspace_path == "seed" || loaded.project.workspace_path == "seed";
}

bool is_trusted(const GateRequest& req, const LoadedPolicies& loaded) {
  if (loaded.project_file.empty()) return true;
  std::string err;
  // No lock to read: the ledger is only ever replaced by rename, so a reader sees a whole one.
  auto ledger = load_ledger(req.config_dir, err);
  return ledger &&
         check_trust(*ledger, loaded.scope, loaded.sha256, base_policy_id()).state ==
             TrustState::Trusted;
}

GateResult run_trust_gate(const GateRequest& req) {
  GateResult r = load_policies(req);
  if (r.status != GateResult::Status::Proceed || r.loaded.project_file.empty()) return r;
  const LoadedPolicies& L = r.loaded;
  const std::string base = base_policy_id();
  const Grants project_grants = policy_grants(L.project);

  TrustCheck check;
  {
    std::string err;
    auto ledger = load_ledger(req.config_dir, err);
    if (!ledger) return error(err, "fix or remove it (you will be asked again)");
    check = check_trust(*ledger, L.scope, L.sha256, base);
  }
  if (check.state == TrustState::Trusted) {
    spdlog::info("policy {} trusted ({})", L.project_file, L.scope);
    return r;
  }
  if (req.trust_policy) {
    spdlog::warn("policy {} applied without asking (--trust-policy)", L.project_file);
    r.note = "blaude: " + L.project_file + " trusted for this run only (--trust-policy)";
    return r;
  }

  // Ask on the controlling terminal, never stdin: a pipe into blaude must not answer for the user.
  UniqueFd tty(::open(req.tty_path.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!tty || !::isatty(tty.get()))
    return error(L.project_file + " is new or changed and there is no terminal to ask on",
                 "run blaude from a terminal to review it, or pass --trust-policy to apply it "
                 "for this run");
  // Discard type-ahead: only an answer typed after the question counts.
  ::tcflush(tty.get(), TCIFLUSH);
  // What really applies here: the grants as written plus their symlink targets (resolve.hpp).
  const PolicyContext ctx{req.home, req.project_root, req.path_dirs, req.config_dir};
  const Grants resolved = resolve_grants(project_grants, ctx).grants;
  if (!tty_write(tty.get(), trust_prompt(L.project_file, check, project_grants, L.project.notes, L.project_text,
                                         resolved, seed_workspace(req.workspace_path, L))))
    return error("cannot write to " + req.tty_path, "run blaude from a terminal");
  const std::string reply = tty_read_line(tty.get());
  if (!is_yes(reply)) {
    tty_write(tty.get(), "blaude: not trusted; nothing was started\n");
    r.status = GateResult::Status::Declined;
    r.message = "policy " + L.project_file + " not trusted; nothing was started";
    r.hint = "edit the file, or answer y to apply it";
    return r;
  }

  // Recorded by the prepare step, once every other decision has been made (record_answer).
  r.to_record = TrustEntry{L.scope, L.sha256, base, L.project_file, project_grants};
  spdlog::info("policy {} trusted by the user ({})", L.project_file, L.scope);
  return r;
}

std::string record_answer(const GateRequest& req, const TrustEntry& entry) {
  std::string err;
  auto lock = LedgerLock::acquire(req.config_dir, err);
  if (!lock) return err + "; check the permissions of " + req.config_dir;
  auto ledger = load_ledger(req.config_dir, err);
  if (!ledger) return err + "; fix or remove it (you will be asked again)";
  record_trust(*ledger, entry);
  if (!save_ledger(req.config_dir, *ledger, err)) return err + "; check the permissions of " + req.config_dir;
  return {};
}

std::string format_policy_report(const LoadedPolicies& L, bool trusted) {
  std::string out;
  out += "project policy: " +
         (L.project_file.empty() ? std::string("none")
                                 : L.project_file + (trusted ? " (trusted)" : " (not trusted yet)")) +
         "\n";
  out += "user policy:    " + (L.user_file.empty() ? std::string("none") : L.user_file) + "\n";
  out += "grants, highest risk first:\n" + format_grants(L.grants);
  for (const auto* p : {&L.user, &L.project})
    for (const auto& n : p->notes) out += "  note: " + n + "\n";
  out += "whatever the policies say:\n" + protected_summary() + session_guards_summary();
  return out;
}

}  // namespace blaude::sandbox::trust
