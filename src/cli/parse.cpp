// The drop-in command line, parsed by hand: blaude must pass every argument it does not know to
// claude unchanged and in place, without knowing claude's own options or their arities.
// Why not CLI11 (the project's listed option library, removed from the build for this reason;
// tests/unit/cli/parse_test.cpp "cases a declarative parser cannot express" pins each one):
//  - --exec CMD ARGS... takes the rest of the line verbatim, blaude's own option names included
//    (`--exec sh -c x --git`); CLI11's options end at the next option it knows.
//  - --help/--version are blaude's only before the first claude argument (`blaude mcp --help`
//    is claude's help for mcp); CLI11's help flag fires wherever it appears.
//  - unknown options keep their place among known ones, and a claude argument that is spelled
//    like a blaude option stays claude's after `--` only; CLI11's extras are collected without
//    their positions relative to the options it consumed.
// So one left-to-right pass decides each argument here, over the one table of blaude's options
// (option_table.cpp), which also renders --help, the man page and the completions.
#include "cli/parse.hpp"

#include <algorithm>
#include <string_view>

#include "cli/option_table.hpp"
#include "cli/suggest.hpp"
#include "net/pattern.hpp"

namespace blaude::cli {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

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
  // ~ and ~/... are $HOME (expanded by the app layer, which knows it: also when the shell did
  // not, as in a quoted '~/x' or --mount=~/x). ~user would need the user database, and the
  // bash blaude turned it into "$HOMEuser": refused, with the way out.
  if (path.front() == '~' && path.size() > 1 && path[1] != '/')
    return UsageError{"--mount " + std::string(path) + ": only ~ and ~/ are expanded (your home directory)",
                      "Write the full path for another user's home, or ./" + std::string(path) +
                          " for a directory named so."};
  m.path = std::string(path);
  return m;
}

std::string expand_home(std::string_view path, std::string_view home) {
  if (home.empty() || path.empty() || path.front() != '~' || (path.size() > 1 && path[1] != '/'))
    return std::string(path);
  std::string h(home);
  while (h.size() > 1 && h.back() == '/') h.pop_back();
  return h + std::string(path.substr(1));
}

// Combinations that cannot mean anything: said before anything runs.
static std::optional<UsageError> check_network_options(const Options& o) {
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

namespace {

// `blaude net sessions`, `blaude net log [--session PID]` and `blaude net allow PATTERN
// [--session PID]`: the whole line is the command's (only as the first word; `blaude -- net` is
// claude's prompt).
std::variant<Options, UsageError> parse_net(const std::vector<std::string>& args) {
  const std::string hint =
      "Usage: blaude net sessions  |  blaude net log [--session PID]  |  blaude net allow PATTERN [--session PID]";
  Options o;
  o.action = Action::Net;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--session" || a.starts_with("--session=")) {
      std::string v;
      if (a == "--session") {
        if (i + 1 >= args.size()) return UsageError{"--session requires a pid", hint};
        v = args[++i];
      } else {
        v = a.substr(10);
      }
      if (v.empty() || v.size() > 9 || v[0] == '0' || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return UsageError{"--session: not a pid: '" + v + "'", hint};
      o.net_session = std::stol(v);
    } else if (a.starts_with("-")) {
      return UsageError{"net: unknown option " + a, hint};
    } else if (o.net_command.empty()) {
      if (a != "log" && a != "allow" && a != "sessions")
        return UsageError{"net: unknown command '" + a + "' (sessions, log or allow)", hint};
      o.net_command = a;
    } else if (o.net_command == "allow" && o.net_pattern.empty()) {
      auto p = net::parse_pattern(a);
      if (auto* e = std::get_if<net::PatternError>(&p))
        return UsageError{"net allow " + net::pattern_error_text(a, *e), hint};
      o.net_pattern = std::get<net::Pattern>(p).text();
    } else {
      return UsageError{"net " + o.net_command + ": unexpected argument '" + a + "'", hint};
    }
  }
  if (o.net_command.empty()) return UsageError{"net: say sessions, log or allow", hint};
  if (o.net_command == "sessions" && o.net_session != 0)
    return UsageError{"net sessions lists them all: --session is for log and allow", hint};
  if (o.net_command == "allow" && o.net_pattern.empty()) return UsageError{"net allow needs a PATTERN", hint};
  return o;
}

}  // namespace

std::variant<Options, UsageError> parse(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "net") return parse_net(args);
  Options o;
  size_t before_dd = 0;  // claude arguments that came before a `--`
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
      // Ends blaude's options; the rest goes to claude as it is, without the `--` (claude would
      // read everything after one as its prompt: `blaude -- --debug` is `claude --debug`).
      // `blaude -- -- x` hands claude a `--` of its own.
      o.saw_double_dash = true;
      before_dd = o.claude_args.size();
      o.claude_args.insert(o.claude_args.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    const OptionSpec* spec = find_option(a);
    // --help/--version are blaude's until a claude argument came first: `blaude mcp --help`
    // shows claude's help for `mcp`.
    bool claude_first = !o.claude_args.empty();
    if (spec && (spec->special == Special::Help || spec->special == Special::Version) && claude_first) spec = nullptr;
    if (!spec) {
      if (auto near = suggest_option(a)) {
        const std::string hint = "To give " + a + " to claude as it is, put it after --:  blaude -- " + a;
        if (a.starts_with(std::string(*near) + "="))
          return UsageError{std::string(*near) + " takes no value (got " + a + ")", hint};
        return UsageError{"unknown option " + a + "; did you mean " + std::string(*near) + "?", hint};
      }
      o.claude_args.push_back(a);
      continue;
    }
    switch (spec->special) {
      case Special::Help:
        help = true;
        continue;
      case Special::Version:
        version = true;
        continue;
      case Special::Exec:
        if (i + 1 >= args.size()) return UsageError{"--exec requires a command (--exec CMD [ARGS...])"};
        o.exec.assign(args.begin() + static_cast<long>(i) + 1, args.end());
        i = args.size();
        continue;
      case Special::None:
        break;
    }
    if (spec->arg == Arg::None) {
      o.*(spec->flag) = true;
      continue;
    }
    const std::string_view opt = a.starts_with("--") ? spec->name : spec->short_name;
    auto v = take_value(i, opt, a);
    if (auto* e = std::get_if<UsageError>(&v)) return *e;
    if (auto e = spec->apply(o, std::get<std::string>(v))) return *e;
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
  // A word after `--` is claude's, never one of blaude's commands: `blaude -- update` runs
  // claude's update in the sandbox, `blaude -- doctor` is claude's doctor.
  if (o.saw_double_dash && before_dd == 0) {
    if (!o.chic && first == "remote-control") o.remote_control_subcommand = true;
    return o;
  }
  if (first == "doctor") {
    if (o.claude_args.size() > 1) return UsageError{"doctor takes no arguments, got '" + o.claude_args[1] + "'"};
    o.action = Action::Doctor;
    o.claude_args.clear();
    return o;
  }
  if (first == "selftest") {
    if (o.claude_args.size() > 1) return UsageError{"selftest takes no arguments, got '" + o.claude_args[1] + "'"};
    o.action = Action::Selftest;
    o.claude_args.clear();
    return o;
  }
  if (first == "fix-apparmor") {
    // The bwrap to write the profile for: how blaude hands the user's bwrap to the step it runs
    // through sudo (root's PATH may find another one, or none).
    if (o.claude_args.size() > 2 || (o.claude_args.size() == 2 && !o.claude_args[1].starts_with("/")))
      return UsageError{"fix-apparmor takes at most the absolute path of a bwrap, got '" + o.claude_args[1] + "'"};
    o.action = Action::FixApparmor;
    if (o.claude_args.size() == 2) o.apparmor_bwrap = o.claude_args[1];
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

}  // namespace blaude::cli
