// The drop-in command line, parsed by hand: blaude must pass every argument it does not know to
// claude unchanged and in place, without knowing claude's own options or their arities.
// Why not CLI11 (the project's listed option library, removed from the build for this reason;
// tests/unit/cli/parse_test.cpp "cases a declarative parser cannot express" pins each one):
//  - --exec CMD ARGS... takes the rest of the line verbatim, blaude's own option names included
//    (`--exec sh -c x --git`); CLI11's options end at the next option it knows.
//  - --help/--version are blaude's only before the first claude argument (`blaude mcp --help`
//    is claude's help for mcp); CLI11's help flag fires wherever it appears.
//  - unknown options keep their place among known ones, and a claude option's value that is
//    spelled like a blaude option stays claude's after `--` only; CLI11's extras are collected
//    without their positions relative to the options it consumed.
// So one left-to-right pass decides each argument here.
#include "cli/parse.hpp"

#include "net/host.hpp"
#include "net/pattern.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace blaude::cli {

namespace {

struct Flag {
  std::string_view name;
  bool Options::*field;
};

// Boolean blaude options: each consumed wherever it appears before `--`.
constexpr std::array kFlags{
    Flag{"--git", &Options::git},
    Flag{"--ssh", &Options::ssh},
    Flag{"--aws", &Options::aws},
    Flag{"--no-network", &Options::no_network},
    Flag{"--keyring", &Options::keyring},
    Flag{"--remote-control", &Options::remote_control},
    Flag{"--keep-env", &Options::keep_env},
    Flag{"--chic", &Options::chic},
    Flag{"--tmp", &Options::tmp},
    Flag{"--clear-tmp", &Options::clear_tmp},
    Flag{"--allow-protected-writes", &Options::allow_protected_writes},
    Flag{"--debug", &Options::debug},
    Flag{"--dry-run", &Options::dry_run},
    Flag{"--no-clipboard", &Options::no_clipboard},
    Flag{"--no-sandbox", &Options::no_sandbox},
    Flag{"--no-asciinema", &Options::no_asciinema},
    Flag{"--trust-policy", &Options::trust_policy},
    Flag{"--print-policy", &Options::print_policy},
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

// Combinations that cannot mean anything: said before anything runs.
std::optional<UsageError> check_network_options(const Options& o) {
  const bool proxy = !o.allow_domains.empty() || !o.publish.empty();
  if (!proxy) return std::nullopt;
  const char* which = o.allow_domains.empty() ? "--publish" : "--allow-domain";
  if (o.no_network)
    return UsageError{std::string("--no-network and ") + which +
                      " contradict each other: --no-network allows no destination at all (drop one)"};
  if (o.no_sandbox)
    return UsageError{std::string(which) + " needs the sandbox's own network; --no-sandbox has none"};
  return std::nullopt;
}

bool valid_env_name(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

std::variant<std::pair<std::string, std::string>, UsageError> parse_env_assignment(
    std::string_view spec) {
  auto eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return UsageError{"--env needs KEY=VALUE, got '" + std::string(spec) + "' (no '=')"};
  }
  std::string_view key = spec.substr(0, eq);
  if (!valid_env_name(key)) {
    return UsageError{"--env: '" + std::string(key) +
                      "' is not a valid variable name (letters, digits, _; not starting with a digit)"};
  }
  return std::pair{std::string(key), std::string(spec.substr(eq + 1))};
}

std::variant<Mount, UsageError> parse_mount(std::string_view spec) {
  Mount m;
  std::string_view path = spec;
  if (path.size() >= 3 && path.substr(path.size() - 3) == ":rw") {
    m.rw = true;
    path.remove_suffix(3);
  } else if (path.size() >= 3 && path.substr(path.size() - 3) == ":ro") {
    path.remove_suffix(3);
  }
  if (path.empty()) return UsageError{"--mount needs a PATH (append :rw for read-write)"};
  m.path = std::string(path);
  return m;
}

std::variant<Options, UsageError> parse(const std::vector<std::string>& args) {
  Options o;
  bool help = false;
  bool version = false;

  // The value of an option given as `--opt VALUE` or `--opt=VALUE`.
  auto take_value = [&](size_t& i, std::string_view opt,
                        std::string_view a) -> std::variant<std::string, UsageError> {
    if (a.size() > opt.size() && a[opt.size()] == '=') return std::string(a.substr(opt.size() + 1));
    if (i + 1 >= args.size()) return UsageError{std::string(a) + " requires a value"};
    const std::string& v = args[++i];
    // `--env --git` or `-m -c`: almost certainly a forgotten value, not a path named "-c".
    if (starts_with(v, "-")) {
      return UsageError{std::string(a) + " requires a value, got option '" + v + "'"};
    }
    return v;
  };

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];

    if (a == "--") {
      // Ends blaude's options. The `--` itself reaches claude too, so that `blaude -p -- --debug`
      // means exactly what `claude -p -- --debug` means.
      o.saw_double_dash = true;
      o.claude_args.insert(o.claude_args.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    if (a == "--exec") {
      if (i + 1 >= args.size()) return UsageError{"--exec requires a command (--exec CMD [ARGS...])"};
      o.exec.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }

    auto flag = std::find_if(kFlags.begin(), kFlags.end(), [&](const Flag& f) { return f.name == a; });
    if (flag != kFlags.end()) {
      o.*(flag->field) = true;
      continue;
    }

    if (a == "--env" || starts_with(a, "--env=")) {
      auto v = take_value(i, "--env", a);
      if (auto* e = std::get_if<UsageError>(&v)) return *e;
      auto kv = parse_env_assignment(std::get<std::string>(v));
      if (auto* e = std::get_if<UsageError>(&kv)) return *e;
      o.env.push_back(std::get<std::pair<std::string, std::string>>(kv));
      continue;
    }
    if (a == "-m" || a == "--mount" || starts_with(a, "--mount=")) {
      auto v = take_value(i, a == "-m" ? "-m" : "--mount", a);
      if (auto* e = std::get_if<UsageError>(&v)) return *e;
      auto m = parse_mount(std::get<std::string>(v));
      if (auto* e = std::get_if<UsageError>(&m)) return *e;
      o.mounts.push_back(std::get<Mount>(m));
      continue;
    }
    // No short forms: -p is claude's --print, and blaude never takes a claude flag.
    if (a == "--allow-domain" || starts_with(a, "--allow-domain=")) {
      auto v = take_value(i, "--allow-domain", a);
      if (auto* e = std::get_if<UsageError>(&v)) return *e;
      const std::string& text = std::get<std::string>(v);
      auto p = net::parse_pattern(text);
      if (auto* e = std::get_if<net::PatternError>(&p))
        return UsageError{"--allow-domain \"" + text + "\": " + e->what + " (" + e->hint + ")"};
      std::string canon = std::get<net::Pattern>(p).text();
      if (std::find(o.allow_domains.begin(), o.allow_domains.end(), canon) == o.allow_domains.end())
        o.allow_domains.push_back(canon);
      continue;
    }
    if (a == "--publish" || starts_with(a, "--publish=")) {
      auto v = take_value(i, "--publish", a);
      if (auto* e = std::get_if<UsageError>(&v)) return *e;
      auto port = net::parse_port(std::get<std::string>(v));
      if (!port) return UsageError{"--publish: '" + std::get<std::string>(v) + "' is not a port (1 to 65535)"};
      if (std::find(o.publish.begin(), o.publish.end(), *port) == o.publish.end()) o.publish.push_back(*port);
      continue;
    }
    // --help/--version are blaude's until a claude argument came first: `blaude mcp --help`
    // shows claude's help for `mcp`.
    if ((a == "--help" || a == "-h") && o.claude_args.empty()) {
      help = true;
      continue;
    }
    if (a == "--version" && o.claude_args.empty()) {
      version = true;
      continue;
    }
    o.claude_args.push_back(a);
  }

  if (help) {
    o.action = Action::Help;
    return o;
  }
  if (version) {
    o.action = Action::Version;
    return o;
  }
  if (o.dry_run) o.debug = true;
  if (auto e = check_network_options(o)) return *e;

  if (!o.exec.empty()) {
    // The bash blaude silently dropped these; refusing says why nothing ran.
    if (!o.claude_args.empty()) {
      return UsageError{"claude arguments before --exec would be ignored: '" + o.claude_args[0] +
                        "' (put them after --exec CMD, or drop --exec)"};
    }
    if (o.chic) return UsageError{"--chic and --exec both choose the command; use one"};
    return o;
  }

  const std::string first = o.claude_args.empty() ? "" : o.claude_args[0];
  if (first == "fix-apparmor" || first == "doctor") {
    if (o.claude_args.size() > 1) {
      return UsageError{first + " takes no arguments, got '" + o.claude_args[1] + "'"};
    }
    o.action = first == "doctor" ? Action::Doctor : Action::FixApparmor;
    o.claude_args.clear();
    return o;
  }
  // Only claude's own subcommands leave the sandbox: never `--exec update` or `--chic install`.
  if (!o.chic && (first == "update" || first == "install" || first == "install-github-app")) {
    o.action = Action::HostBypass;
    return o;
  }
  if (!o.chic && first == "remote-control") o.remote_control_subcommand = true;
  return o;
}

std::string help_text() {
  return R"(usage: blaude [blaude options] [claude options and arguments]
       blaude [blaude options] --exec CMD [ARGS...]
       blaude doctor | fix-apparmor | update | install | install-github-app

Runs Claude Code with --dangerously-skip-permissions inside a bubblewrap sandbox.

blaude options (anywhere on the line, before a `--`):
  --env KEY=VALUE           set an environment variable in the sandbox
  -m, --mount PATH[:rw]     mount a directory (read-only; append :rw for read-write)
  --git                     git config, GPG agent socket, GH_TOKEN/GITHUB_TOKEN
  --ssh                     SSH keys and the ssh-agent socket
  --aws                     ~/.aws read-only (Bedrock auth)
  --no-network              no network access
  --allow-domain PATTERN    proxy mode: the sandbox reaches only allowed destinations, through
                            blaude's proxy (repeatable). PATTERN: example.com, *.example.com
                            (subdomains only), host:port, 10.0.0.5, [::1]:8080, or *
  --publish PORT            make 127.0.0.1:PORT inside reachable from the host (proxy mode;
                            repeatable; a dev server, an OAuth callback)
  --keyring                 GNOME Keyring access (D-Bus session bus)
  --remote-control          prepare the session for /remote-control (telemetry on, API keys dropped)
  --keep-env                keep the whole host environment instead of clearing it
  --chic                    run claudechic instead of claude
  --tmp                     run isolated in /tmp (no workspace)
  --clear-tmp               empty tmpfs /tmp instead of the host's /tmp
  --allow-protected-writes  allow writes to protected files (.git/hooks, .bashrc, ...)
  --debug                   show the sandbox command; verbose log
  --dry-run                 show the command without running it
  --exec CMD [ARGS...]      run CMD instead of claude (takes the rest of the line verbatim)
  --no-clipboard            do not intercept OSC 52 clipboard sequences
  --no-asciinema            do not pause an asciinema recording
  --print-policy            show the grants of the project (.blaude/.xclaude) and user policy
  --trust-policy            apply a new or changed project policy for this run without asking
  --no-sandbox              run WITHOUT the sandbox (diagnosis only; says so)
  --help, --version         this text; blaude's version (claude's: blaude -v)

Commands (as the first argument):
  doctor                    check that blaude can run here (claude's own: blaude --exec claude doctor)
  fix-apparmor              install the AppArmor profile bwrap needs (Ubuntu 24.04+, as root)
  update, install, install-github-app
                            run claude on the host, unsandboxed (they change system files)
  remote-control            claude's Remote Control server mode, in the sandbox

Proxy mode also allows, by default, the hosts Claude Code needs for its provider (the list for
this environment follows below); `no-default-domains` in ~/.config/blaude/policy drops them.
After the session, blaude prints one line naming what it refused.

Everything else (-p, -c, -v, --resume, mcp list, ...) goes to claude unchanged and in order.
`--` ends blaude's options: all after it goes to claude, even words spelled like blaude options.
)";
}

}  // namespace blaude::cli
