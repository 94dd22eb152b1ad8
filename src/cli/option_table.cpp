#include "cli/option_table.hpp"

#include <algorithm>

#include "cli/parse.hpp"
#include "common/limits.hpp"
#include "net/host.hpp"
#include "net/pattern.hpp"

namespace blaude::cli {

namespace {

std::optional<UsageError> apply_env(Options& o, std::string_view v) {
  auto kv = parse_env_assignment(v);
  if (auto* e = std::get_if<UsageError>(&kv)) return *e;
  o.env.push_back(std::get<std::pair<std::string, std::string>>(kv));
  return std::nullopt;
}

std::optional<UsageError> apply_mount(Options& o, std::string_view v) {
  auto m = parse_mount(v);
  if (auto* e = std::get_if<UsageError>(&m)) return *e;
  o.mounts.push_back(std::get<Mount>(m));
  return std::nullopt;
}

std::optional<UsageError> apply_allow_domain(Options& o, std::string_view v) {
  const std::string text(v);
  auto p = net::parse_pattern(text);
  if (auto* e = std::get_if<net::PatternError>(&p))
    return UsageError{"--allow-domain " + net::pattern_error_text(text, *e)};
  std::string canon = std::get<net::Pattern>(p).text();
  if (std::find(o.allow_domains.begin(), o.allow_domains.end(), canon) == o.allow_domains.end())
    o.allow_domains.push_back(canon);
  return std::nullopt;
}

std::optional<UsageError> apply_ssh_key(Options& o, std::string_view v) {
  if (v.empty()) return UsageError{"--ssh-key: give a key's fingerprint (SHA256:...) or its comment, as ssh-add -l shows them"};
  o.ssh_agent = true;
  o.ssh_keys.emplace_back(v);
  return std::nullopt;
}

std::optional<UsageError> apply_publish(Options& o, std::string_view v) {
  auto port = net::parse_port(std::string(v));
  if (!port) return UsageError{"--publish: '" + std::string(v) + "' is not a port (1 to 65535)"};
  if (std::find(o.publish.begin(), o.publish.end(), *port) == o.publish.end()) o.publish.push_back(*port);
  return std::nullopt;
}

std::optional<UsageError> apply_workspace_path(Options& o, std::string_view v) {
  if (v != "host" && v != "seed")
    return UsageError{"--workspace-path: '" + std::string(v) + "' is not a layout",
                      "Use --workspace-path=host (the project at its own path, the default) or "
                      "--workspace-path=seed (at /workspaces/<dir> only, its host path hidden)."};
  o.workspace_path = std::string(v);
  return std::nullopt;
}

std::optional<UsageError> apply_memory_max(Options& o, std::string_view v) {
  std::string why;
  auto n = parse_memory_size(v, &why);
  if (!n) return UsageError{"--memory-max: " + why};
  o.memory_max = n;
  return std::nullopt;
}

std::optional<UsageError> apply_pids_max(Options& o, std::string_view v) {
  std::string why;
  auto n = parse_pids_count(v, &why);
  if (!n) return UsageError{"--pids-max: " + why};
  o.pids_max = n;
  return std::nullopt;
}

// To add an option: one row here (the order is the order of --help and the man page), its
// field in Options. A flag: {.name, .flag = &Options::x, .help}. With a value: .arg =
// Arg::Value, .metavar, .apply (a function above that stores it or returns a UsageError),
// .complete for the shells. .man is the man page's longer text (defaults to .help).
// tests/unit/cli/option_table_test.cpp checks every row reaches --help, the man page and the
// three completions, and that no row is within two edits of one of claude's options.
constexpr OptionSpec kOptions[] = {
    {.name = "--env", .metavar = "KEY=VALUE", .arg = Arg::Value, .apply = apply_env,
     .complete = Complete::EnvAssign, .help = "set an environment variable in the sandbox",
     .man = "Set an environment variable in the sandbox. Applied last, so it overrides "
            "anything blaude sets. Repeatable."},
    {.name = "--mount", .short_name = "-m", .metavar = "PATH[:rw]", .arg = Arg::Value,
     .apply = apply_mount, .complete = Complete::Dir,
     .help = "mount a directory (read-only; append :rw for read-write)",
     .man = "Mount PATH at the same path in the sandbox, read-only, or read-write with :rw. "
            "A leading ~ or ~/ is your home directory (also when quoted or given as "
            "--mount=~/x); ~user is refused. Repeatable."},
    {.name = "--git", .flag = &Options::git,
     .help = "git config, GPG agent socket, GH_TOKEN/GITHUB_TOKEN",
     .man = "Mount ~/.gitconfig and ~/.git-credentials read-only, the GPG agent's socket, and "
            "pass GH_TOKEN and GITHUB_TOKEN."},
    {.name = "--ssh", .flag = &Options::ssh, .help = "SSH keys and the ssh-agent socket",
     .man = "Mount ~/.ssh read-only and forward the ssh-agent: its own directory when it is a "
            "dedicated one (so an agent that restarts keeps working), else the socket alone."},
    {.name = "--ssh-agent", .flag = &Options::ssh_agent,
     .help = "a signing-only ssh-agent: lists and signs with allowed keys only, no key files",
     .man = "Give the sandbox an ssh-agent of blaude's own as SSH_AUTH_SOCK, in front of yours: it "
            "lists and signs with the keys --ssh-key (or ssh-key lines of ~/.config/blaude/policy) "
            "name, and refuses adding, removing, locking and extensions. Without a named key, the "
            "key git's user.signingkey names. No key file is mounted. Each signature is named "
            "after the session."},
    {.name = "--ssh-key", .metavar = "KEY", .arg = Arg::Value, .apply = apply_ssh_key,
     .help = "a key the --ssh-agent agent may use: SHA256:... or its comment (repeatable)",
     .man = "A key the signing-only agent (--ssh-agent, which this implies) lists and signs with: "
            "its fingerprint (SHA256:..., as ssh-add -l prints it) or its comment. Repeatable."},
    {.name = "--aws", .flag = &Options::aws, .help = "~/.aws read-only (Bedrock auth)"},
    {.name = "--no-network", .flag = &Options::no_network, .help = "no network access",
     .man = "Run in a network namespace of its own: loopback only."},
    // No short forms: -p is claude's --print, and blaude never takes a claude flag.
    {.name = "--allow-domain", .metavar = "PATTERN", .arg = Arg::Value, .apply = apply_allow_domain,
     .help = "proxy mode: reach only allowed destinations, through blaude's proxy (repeatable)",
     .man = "Proxy mode: the sandbox gets a network namespace of its own whose only way out is "
            "blaude's proxy, which lets through only allowed destinations. PATTERN: example.com, "
            "*.example.com (subdomains only), host:port, 10.0.0.5, [::1]:8080, or *. The hosts "
            "Claude Code needs for its provider are allowed by default (listed by --help and "
            "doctor); no-default-domains in ~/.config/blaude/policy drops them. After the session "
            "blaude prints one line naming what it refused. Repeatable."},
    {.name = "--publish", .metavar = "PORT", .arg = Arg::Value, .apply = apply_publish,
     .help = "make 127.0.0.1:PORT inside reachable from the host (proxy mode; repeatable)",
     .man = "Proxy mode: make 127.0.0.1:PORT inside the sandbox reachable from the host at the "
            "same port (a dev server, an OAuth callback). Repeatable."},
    {.name = "--keyring", .flag = &Options::keyring,
     .help = "GNOME Keyring access (D-Bus session bus)",
     .man = "Give the sandbox the D-Bus session bus and ~/.local/share/keyrings. The session "
            "bus can start programs on the host."},
    {.name = "--remote-control", .flag = &Options::remote_control,
     .help = "prepare the session for /remote-control (telemetry on, API keys dropped)"},
    {.name = "--keep-env", .flag = &Options::keep_env,
     .help = "keep the whole host environment instead of clearing it"},
    {.name = "--chic", .flag = &Options::chic, .help = "run claudechic instead of claude"},
    {.name = "--tmp", .flag = &Options::tmp, .help = "run isolated in /tmp (no workspace)"},
    {.name = "--clear-tmp", .flag = &Options::clear_tmp,
     .help = "empty tmpfs /tmp instead of the host's /tmp"},
    {.name = "--allow-protected-writes", .flag = &Options::allow_protected_writes,
     .help = "allow writes to protected files (.git/hooks, .bashrc, ...)"},
    {.name = "--nested-sandbox", .flag = &Options::nested_sandbox,
     .help = "let programs inside make sandboxes of their own (user namespaces)",
     .man = "Let programs inside the sandbox make namespaces of their own: Claude Code's /sandbox, "
            "bubblewrap, Chromium's and Playwright's sandboxes. The syscall filter then allows "
            "user namespaces, setns and the mount calls (in those namespaces only; the sandbox's "
            "own mounts stay as they are). Off by default: a user namespace is the way in to most "
            "of the kernel's privileged interfaces. When a program inside asked for one without "
            "it, blaude's exit line says how many times and which programs."},
    {.name = "--workspace-path", .metavar = "host|seed", .arg = Arg::Value, .apply = apply_workspace_path,
     .help = "where the project is inside: host (its own path, default) or seed (/workspaces/<dir> only)",
     .man = "Where the project is inside the sandbox. host (the default): at its own host path, which "
            "is the working directory, so paths stored in the project (a venv, a build tree, git "
            "worktree pointers) and Claude Code's per-project history and settings are the same "
            "inside and out; /workspaces/<dir> is a symlink to it. seed: at /workspaces/<dir> only, "
            "the working directory there and the host path absent (unless it lies in a directory the "
            "sandbox shows anyway, such as the host's /tmp); conversations are then kept under "
            "/workspaces/<dir>, shared by every project with that directory name. "
            "workspace-path in a policy file sets the same; this option wins."},
    {.name = "--memory-max", .metavar = "SIZE", .arg = Arg::Value, .apply = apply_memory_max,
     .help = "memory for the whole sandbox (default 8G; K, M, G, T)",
     .man = "The memory the sandbox's processes may use together (default 8G; a number with K, M, G "
            "or T). Past it the kernel ends all of them and blaude says so. Needs a cgroup v2 leaf, "
            "made where your account has a delegated cgroup (systemd's user manager); without one "
            "there is no memory limit (`blaude doctor` says which). Also `memory-max` in "
            "~/.config/blaude/policy."},
    {.name = "--pids-max", .metavar = "N", .arg = Arg::Value, .apply = apply_pids_max,
     .help = "processes and threads for the whole sandbox (default 4096)",
     .man = "The processes and threads the sandbox may have at once (default 4096). When it reaches "
            "them blaude ends the sandbox and says so. Without a delegated cgroup: RLIMIT_NPROC, "
            "which counts all your account's processes (so it is raised by as many as you run at "
            "the start). Also `pids-max` in ~/.config/blaude/policy."},
    {.name = "--no-limits", .flag = &Options::no_limits,
     .help = "no memory or process limits of blaude's own (your account's apply)"},
    {.name = "--debug", .flag = &Options::debug, .help = "show the sandbox command; verbose log"},
    {.name = "--dry-run", .flag = &Options::dry_run,
     .help = "show the command without running it",
     .man = "Print the bwrap command (runnable as printed) and the host changes it needs, change "
            "nothing, exit 0. Every protected path is listed first with the form it took: made by "
            "blaude's protect helper, bound by bwrap from a descriptor blaude checked, mounted by "
            "path and re-checked inside, or a write-discarding overlay; a path left writable or a "
            "pin left out is listed too, and warned about."},
    {.name = "--exec", .metavar = "CMD [ARGS...]", .arg = Arg::Rest, .complete = Complete::Command,
     .special = Special::Exec,
     .help = "run CMD instead of claude (takes the rest of the line verbatim)"},
    {.name = "--no-clipboard", .flag = &Options::no_clipboard,
     .help = "do not intercept OSC 52 clipboard sequences, nor copy what the clipboard stand-ins inside are given"},
    {.name = "--no-asciinema", .flag = &Options::no_asciinema,
     .help = "do not pause an asciinema recording"},
    {.name = "--print-policy", .flag = &Options::print_policy,
     .help = "show the grants of the project (.blaude/.xclaude) and user policy"},
    {.name = "--trust-policy", .flag = &Options::trust_policy,
     .help = "apply a new or changed project policy for this run without asking"},
    {.name = "--no-sandbox", .flag = &Options::no_sandbox,
     .help = "run WITHOUT the sandbox (diagnosis only; says so)"},
    {.name = "--help", .short_name = "-h", .special = Special::Help,
     .help = "this text (after a claude argument: claude's help)"},
    {.name = "--version", .special = Special::Version,
     .help = "blaude's version and git revision (claude's: blaude -v)"},
};

constexpr CommandSpec kCommands[] = {
    {"doctor", "check that blaude can run here (claude's own: blaude --exec claude doctor)"},
    {"selftest", "try the sandbox's protections from inside, on this machine, and show which hold"},
    {"fix-apparmor", "install the AppArmor profile bwrap needs (Ubuntu 24.04+; asks sudo)"},
    {"update", "claude's own update, on the host, unsandboxed"},
    {"install", "claude's own install, on the host, unsandboxed"},
    {"install-github-app", "claude's own install-github-app, on the host, unsandboxed"},
    {"remote-control", "claude's Remote Control server mode, in the sandbox"},
    {"net", "a running proxy-mode session, from another terminal: `net log` follows its refusals (and, "
            "marked, what it allows) as they happen, `net allow PATTERN` allows a destination for the rest "
            "of it, `net sessions` lists the sessions (--session PID picks one)"},
};

}  // namespace

std::span<const OptionSpec> option_table() { return kOptions; }
std::span<const CommandSpec> command_table() { return kCommands; }

const OptionSpec* find_option(std::string_view word) {
  std::string_view name = word;
  if (auto eq = word.find('='); eq != std::string_view::npos && word.starts_with("--"))
    name = word.substr(0, eq);
  auto it = std::find_if(std::begin(kOptions), std::end(kOptions), [&](const OptionSpec& s) {
    if (word == s.name || (!s.short_name.empty() && word == s.short_name)) return true;
    return name != word && s.arg == Arg::Value && name == s.name;  // --opt=VALUE
  });
  return it == std::end(kOptions) ? nullptr : it;
}

}  // namespace blaude::cli
