// The table is git-config(1)'s, read for "command", "program", "path to", "shell", "include",
// "insteadOf" and "protocol"; tests/unit/audit/git_keys_test.cpp checks it against every key
// `git help --config` lists, so a newer git's new keys cannot go unreviewed.
#include "audit/git_keys.hpp"

#include <array>

namespace blaude::audit {

namespace {

enum class Sub { None, Any, Either };  // no subsection / any subsection / with or without
enum class When { Always, UnlessFalse, UnlessBool, BangPrefix, TransportHelper };

struct Rule {
  std::string_view section;
  Sub sub;
  std::string_view name;  // "*": any name
  Risk risk;
  When when;
  std::string_view why;
};

constexpr Risk R = Risk::RunsCommand;
constexpr Risk D = Risk::Redirects;

constexpr std::array kRules = {
    Rule{"core", Sub::None, "fsmonitor", R, When::UnlessFalse, "runs a program at every git status"},
    Rule{"core", Sub::None, "hookspath", R, When::Always, "runs hooks from another directory"},
    Rule{"core", Sub::None, "sshcommand", R, When::Always, "runs a program for every ssh fetch/push"},
    Rule{"core", Sub::None, "pager", R, When::Always, "runs a program as git's pager"},
    Rule{"core", Sub::None, "editor", R, When::Always, "runs a program as git's editor"},
    Rule{"core", Sub::None, "askpass", R, When::Always, "runs a program to ask for passwords"},
    Rule{"core", Sub::None, "gitproxy", R, When::Always, "runs a program for git:// connections"},
    Rule{"core", Sub::None, "alternaterefscommand", R, When::Always, "runs a program on fetch/push"},
    Rule{"core", Sub::None, "worktree", D, When::Always, "makes git write the work tree elsewhere"},
    Rule{"credential", Sub::Either, "helper", R, When::Always, "runs a credential helper"},
    Rule{"filter", Sub::Any, "clean", R, When::Always, "runs a filter on add/status"},
    Rule{"filter", Sub::Any, "smudge", R, When::Always, "runs a filter on checkout"},
    Rule{"filter", Sub::Any, "process", R, When::Always, "runs a long-running filter"},
    Rule{"diff", Sub::Any, "textconv", R, When::Always, "runs a program on diff"},
    Rule{"diff", Sub::Any, "command", R, When::Always, "runs an external diff driver"},
    Rule{"diff", Sub::None, "external", R, When::Always, "runs an external diff program"},
    Rule{"merge", Sub::Any, "driver", R, When::Always, "runs a merge driver"},
    Rule{"difftool", Sub::Any, "cmd", R, When::Always, "runs a diff tool"},
    Rule{"difftool", Sub::Any, "path", R, When::Always, "runs a diff tool"},
    Rule{"mergetool", Sub::Any, "cmd", R, When::Always, "runs a merge tool"},
    Rule{"mergetool", Sub::Any, "path", R, When::Always, "runs a merge tool"},
    // "!" aliases run a shell; the others can carry -c KEY=VALUE, i.e. any key above.
    Rule{"alias", Sub::Either, "*", R, When::Always, "an alias (a shell command, or git -c options)"},
    Rule{"sequence", Sub::None, "editor", R, When::Always, "runs a program as the rebase editor"},
    Rule{"pager", Sub::None, "*", R, When::UnlessBool, "runs a program as a command's pager"},
    Rule{"gpg", Sub::Either, "program", R, When::Always, "runs a program to sign/verify"},
    Rule{"gpg", Sub::Any, "defaultkeycommand", R, When::Always, "runs a program to pick a signing key"},
    Rule{"interactive", Sub::None, "difffilter", R, When::Always, "runs a filter in add -p"},
    Rule{"sendemail", Sub::Either, "smtpserver", R, When::Always, "may name a sendmail program"},
    Rule{"sendemail", Sub::Either, "sendmailcmd", R, When::Always, "runs a sendmail program"},
    Rule{"sendemail", Sub::Either, "tocmd", R, When::Always, "runs a program for To: addresses"},
    Rule{"sendemail", Sub::Either, "cccmd", R, When::Always, "runs a program for Cc: addresses"},
    Rule{"sendemail", Sub::Either, "headercmd", R, When::Always, "runs a program for headers"},
    Rule{"imap", Sub::None, "tunnel", R, When::Always, "runs a tunnel program"},
    Rule{"remote", Sub::Any, "uploadpack", R, When::Always, "names the program fetch runs"},
    Rule{"remote", Sub::Any, "receivepack", R, When::Always, "names the program push runs"},
    Rule{"remote", Sub::Any, "vcs", R, When::Always, "runs a remote helper"},
    Rule{"remote", Sub::Any, "url", D, When::TransportHelper, "a URL through a transport helper"},
    Rule{"remote", Sub::Any, "pushurl", D, When::TransportHelper, "a URL through a transport helper"},
    Rule{"submodule", Sub::Any, "update", R, When::BangPrefix, "runs a command on submodule update"},
    Rule{"submodule", Sub::Any, "url", D, When::TransportHelper, "a URL through a transport helper"},
    Rule{"uploadpack", Sub::None, "packobjectshook", R, When::Always, "runs a program on fetch"},
    Rule{"tar", Sub::Any, "command", R, When::Always, "runs a program on git archive"},
    Rule{"trailer", Sub::Any, "command", R, When::Always, "runs a command for a trailer"},
    Rule{"trailer", Sub::Any, "cmd", R, When::Always, "runs a command for a trailer"},
    Rule{"browser", Sub::Any, "cmd", R, When::Always, "runs a browser command"},
    Rule{"browser", Sub::Any, "path", R, When::Always, "runs a browser program"},
    Rule{"man", Sub::Any, "cmd", R, When::Always, "runs a man viewer command"},
    Rule{"man", Sub::Any, "path", R, When::Always, "runs a man viewer program"},
    Rule{"guitool", Sub::Any, "cmd", R, When::Always, "runs a git gui tool"},
    Rule{"instaweb", Sub::None, "httpd", R, When::Always, "runs a web server"},
    Rule{"instaweb", Sub::None, "browser", R, When::Always, "runs a browser"},
    Rule{"hook", Sub::Any, "*", R, When::Always, "a configured hook (git 2.54+)"},
    Rule{"include", Sub::None, "path", D, When::Always, "reads more configuration"},
    Rule{"includeif", Sub::Any, "path", D, When::Always, "reads more configuration"},
    Rule{"url", Sub::Any, "insteadof", D, When::Always, "rewrites URLs (e.g. to ext::)"},
    Rule{"url", Sub::Any, "pushinsteadof", D, When::Always, "rewrites push URLs"},
    Rule{"protocol", Sub::None, "allow", D, When::Always, "changes which transports may run"},
    Rule{"protocol", Sub::Any, "allow", D, When::Always, "changes which transports may run"},
    Rule{"init", Sub::None, "templatedir", D, When::Always, "copies hooks on git init"},
};

bool falsy(const std::optional<std::string>& v) {
  if (!v) return false;  // a bare key is true
  std::string s;
  for (char c : *v) s.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  return s.empty() || s == "false" || s == "no" || s == "off" || s == "0";
}

bool boolish(const std::optional<std::string>& v) {
  if (!v || falsy(v)) return true;
  std::string s;
  for (char c : *v) s.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  return s == "true" || s == "yes" || s == "on" || s == "1";
}

bool applies(When w, const std::optional<std::string>& v) {
  switch (w) {
    case When::Always: return true;
    case When::UnlessFalse: return !falsy(v);
    case When::UnlessBool: return !boolish(v);
    case When::BangPrefix: return v && !v->empty() && v->front() == '!';
    // <transport>::<address> runs git-remote-<transport> (ext:: runs any command).
    case When::TransportHelper: return v && v->find("::") != std::string::npos;
  }
  return true;
}

bool sub_matches(Sub s, const KeyParts& k) {
  switch (s) {
    case Sub::None: return !k.has_subsection;
    case Sub::Any: return k.has_subsection;
    case Sub::Either: return true;
  }
  return false;
}

}  // namespace

KeyRisk classify(const ConfigEntry& e) {
  const KeyParts k = split_key(e.key);
  for (const Rule& r : kRules) {
    if (k.section != r.section || !sub_matches(r.sub, k)) continue;
    if (r.name != "*" && k.name != r.name) continue;
    if (!applies(r.when, e.value)) continue;
    return {r.risk, r.why};
  }
  return {};
}

}  // namespace blaude::audit
