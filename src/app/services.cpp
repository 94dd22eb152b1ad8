#include "app/services.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "broker/agent_service.hpp"
#include "broker/clip_service.hpp"
#include "inside/clip_standin.hpp"
#include "broker/server.hpp"
#include "common/file_io.hpp"
#include "common/git_config.hpp"
#include "common/shown.hpp"
#include "common/unique_fd.hpp"
#include "net/live.hpp"

namespace blaude::app {

namespace {

// The key git's user.signingkey names in the user's global config (the last one, as git reads
// it): a literal key ("key::ssh-ed25519 AAAA...", "ssh-ed25519 AAAA...") or a key file (its
// public half, whose path is set in `pub_file`). Nothing is run. nullopt (with `why`) when it
// names no ssh key.
std::optional<broker::agent::KeyRule> signingkey_rule(const HostEnv& host, std::string& why, std::string& pub_file) {
  std::optional<std::string> value;
  for (const std::string& file : {host.home + "/.gitconfig", (host.get("XDG_CONFIG_HOME").empty()
                                                                   ? host.home + "/.config"
                                                                   : host.get("XDG_CONFIG_HOME")) +
                                                                      "/git/config"}) {
    auto text = read_small_file(file, 1 << 20);
    if (!text) continue;
    for (const auto& e : parse_git_config(*text).entries)
      if (e.key == "user.signingkey" && e.value) value = *e.value;
  }
  if (!value) {
    why = "git's user.signingkey is not set";
    return std::nullopt;
  }
  const std::string origin = "git's user.signingkey";
  if (value->starts_with("key::") || value->starts_with("ssh-") || value->starts_with("ecdsa-") ||
      value->starts_with("sk-")) {
    auto r = broker::agent::key_rule_from_public_key(*value, origin);
    if (auto* k = std::get_if<broker::agent::KeyRule>(&r)) return *k;
    why = "git's user.signingkey: " + std::get<std::string>(r);
    return std::nullopt;
  }
  std::string path = *value;
  if (path.starts_with("~/")) path = host.home + path.substr(1);
  if (path.empty() || path[0] != '/') {
    why = "git's user.signingkey (" + shown(*value) + ") is not an ssh key or a key file's absolute path";
    return std::nullopt;
  }
  for (const std::string& p : {path, path + ".pub"}) {
    auto text = read_small_file(p, 64 * 1024);
    if (!text) continue;
    auto r = broker::agent::key_rule_from_public_key(text->substr(0, text->find('\n')), origin + " (" + p + ")");
    if (auto* k = std::get_if<broker::agent::KeyRule>(&r)) {
      pub_file = p;
      return *k;
    }
  }
  why = "git's user.signingkey names " + shown(path) + ", which holds no public key (nor does " + shown(path) + ".pub)";
  return std::nullopt;
}

}  // namespace

ServicesDecision decide_services(const HostEnv& host, const cli::Options& o, const SshPolicy& policy,
                                 const std::string& runtime_dir, bool clipboard) {
  ServicesDecision d;
  const bool agent = o.ssh_agent || !policy.agent_origin.empty();
  if (!agent && !clipboard) return d;
  auto fail = [&d](std::string what, std::string hint, int code = 1) {
    d.failure = Failure{std::move(what), std::move(hint), code};
    return d;
  };
  ServicesLaunch l;
  if (clipboard) {
    l.clipboard = true;
    const osc52::HostFacts hf = osc52::probe_host(host, o.no_clipboard);
    const std::string path = host.get("PATH");
    l.clip_tools = choose_clip_tools(hf, hf.wayland_display.empty() ? "" : osc52::find_program("wl-paste", path),
                                     hf.macos ? osc52::find_program("pbpaste", path) : "");
    if (hf.disabled) l.copy_off = o.no_clipboard ? "blaude runs with --no-clipboard" : "OSC52_NO_CLIPBOARD=1";
    else if (l.clip_tools.copy.tool == osc52::Tool::None)
      l.copy_off = "no clipboard tool on the host (xclip, xsel or wl-copy with a display)";
    if (policy.clipboard_paste == "off") l.paste = broker::clipboard::PastePolicy::Off;
    if (policy.clipboard_paste == "text") l.paste = broker::clipboard::PastePolicy::TextAlways;
    l.paste_origin = policy.clipboard_paste_origin;
  }
  if (!agent) {
    std::string why;
    const std::string base = net::live_dir(runtime_dir, why);
    if (base.empty()) {
      spdlog::info("broker: no clipboard stand-ins: no private directory for their socket: {}", why);
      return d;
    }
    l.dir = base + "/services-" + std::to_string(long(::getpid()));
    d.bwrap_args = {"--ro-bind", l.dir, broker::kSandboxServicesDir};
    d.standins = true;
    d.launch = std::move(l);
    return d;
  }
  l.agent_on = true;
  if (o.ssh)
    return fail("--ssh and --ssh-agent: choose one",
                "--ssh hands over ~/.ssh and your whole agent; --ssh-agent only signing with the keys you name.", 2);
  l.upstream = host.get("SSH_AUTH_SOCK");
  struct stat st{};
  if (l.upstream.empty() || l.upstream[0] != '/' || ::stat(l.upstream.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
    return fail("--ssh-agent: SSH_AUTH_SOCK does not name your ssh-agent's socket (" + shown(l.upstream) + ")",
                "Start an agent (eval $(ssh-agent); ssh-add KEY) in the shell that runs blaude.");
  for (const auto& k : o.ssh_keys) {
    auto r = broker::agent::parse_key_rule(k, "--ssh-key");
    if (auto* e = std::get_if<std::string>(&r)) return fail("--ssh-key: " + *e, "ssh-add -l lists your keys' fingerprints and comments.", 2);
    l.agent.keys.push_back(std::get<broker::agent::KeyRule>(r));
  }
  for (const auto& [k, origin] : policy.keys) {
    auto r = broker::agent::parse_key_rule(k, origin);
    if (auto* e = std::get_if<std::string>(&r)) return fail(origin + ": ssh-key: " + *e, "Fix the line; ssh-add -l lists your keys.");
    l.agent.keys.push_back(std::get<broker::agent::KeyRule>(r));
  }
  std::string pub_file;
  if (l.agent.keys.empty()) {
    std::string why;
    auto k = signingkey_rule(host, why, pub_file);
    if (!k)
      return fail("--ssh-agent: no key is allowed: none is named and " + why,
                  "Name one: --ssh-key SHA256:... (or its comment; ssh-add -l lists them), or an ssh-key line in "
                  "~/.config/blaude/policy.", 2);
    l.agent.keys.push_back(*k);
  }
  std::string why;
  const std::string base = net::live_dir(runtime_dir, why);
  if (base.empty())
    return fail("--ssh-agent: no private directory for the agent's socket: " + why,
                "blaude puts it under $XDG_RUNTIME_DIR (such as /run/user/" + std::to_string(host.uid) +
                    "), which no sandbox sees; run blaude with it set.");
  l.dir = base + "/services-" + std::to_string(long(::getpid()));
  const std::string sock = l.dir + "/" + broker::agent::kSocketName;
  if (sock.size() >= sizeof(sockaddr_un{}.sun_path))
    return fail("--ssh-agent: " + sock + " is too long for a socket's path", "Set XDG_RUNTIME_DIR to a shorter directory.");
  for (const auto& k : l.agent.keys)
    spdlog::info("broker: ssh-agent allows {} ({})", k.fingerprint.empty() ? "the comment " + shown(k.comment) : k.fingerprint,
                 shown(k.origin));
  d.bwrap_args = {"--ro-bind", l.dir, broker::kSandboxServicesDir};
  // git signs with `ssh-keygen -Y sign -f KEYFILE`, which finds the public half at KEYFILE or
  // KEYFILE.pub and the private half in the agent: the public key file alone, at its path.
  if (!pub_file.empty() && o.git) d.bwrap_args.insert(d.bwrap_args.end(), {"--ro-bind", pub_file, pub_file});
  d.ssh_auth_sock = std::string(broker::kSandboxServicesDir) + "/" + broker::agent::kSocketName;
  d.standins = l.clipboard;
  d.launch = std::move(l);
  return d;
}

std::vector<std::string> standin_args(const std::string& binary) {
  std::vector<std::string> a;
  for (const char* n : inside::kStandinNames)
    a.insert(a.end(), {"--symlink", binary, std::string(inside::kStandinDir) + "/" + n});
  return a;
}

std::variant<std::unique_ptr<ServicesSession>, Failure> ServicesSession::start(const ServicesLaunch& l, bool terminal) {
  std::unique_ptr<ServicesSession> s(new ServicesSession);
  const std::string parent = l.dir.substr(0, l.dir.rfind('/'));
  const std::string name = l.dir.substr(l.dir.rfind('/') + 1);
  if (::mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST)
    return Failure{"cannot make " + parent + ": " + errno_text(), ""};
  // Beneath a held descriptor of a directory reached without a link, the user's own, 0700: the
  // session's directory is made there and checked the same way.
  struct stat st{};
  UniqueFd held = open_dir_no_symlinks(parent);
  if (!held || ::fstat(held.get(), &st) != 0 || st.st_uid != ::getuid() || (st.st_mode & 077) != 0)
    return Failure{parent + " is not a directory of yours with mode 0700, reached without a link",
                   "Remove it; blaude makes it again."};
  // A session that is gone left it (its pid is ours now): its socket and the directory go.
  ::unlinkat(held.get(), (name + "/" + broker::agent::kSocketName).c_str(), 0);
  ::unlinkat(held.get(), (name + "/" + clip::kSocketName).c_str(), 0);
  ::unlinkat(held.get(), name.c_str(), AT_REMOVEDIR);
  if (::mkdirat(held.get(), name.c_str(), 0700) != 0) return Failure{"cannot make " + l.dir + ": " + errno_text(), ""};
  s->dir_ = l.dir;
  UniqueFd dir(::openat(held.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir || ::fstat(dir.get(), &st) != 0 || st.st_uid != ::getuid() || (st.st_mode & 077) != 0)
    return Failure{"cannot open " + l.dir + " as the directory blaude just made", ""};
  std::vector<std::unique_ptr<broker::Service>> services;
  if (l.agent_on) services.push_back(broker::agent::make_agent_service({l.agent, l.upstream}));
  if (l.clipboard) {
    broker::clipboard::ClipConfig cc;
    cc.copy_off = l.copy_off;
    cc.paste = l.paste;
    cc.paste_origin = l.paste_origin;
    if (terminal) s->gate_ = cc.gate = std::make_shared<broker::clipboard::PasteGate>();
    cc.host = make_clip_host(l.clip_tools);
    services.push_back(broker::clipboard::make_clip_service(std::move(cc)));
  }
  auto b = broker::Broker::start(l.dir, std::move(services));
  if (auto* e = std::get_if<std::string>(&b)) return Failure{"the host services (ssh-agent, clipboard): " + *e, ""};
  s->broker_ = std::get<std::unique_ptr<broker::Broker>>(std::move(b));
  spdlog::info("broker: listening in {}", l.dir);
  return s;
}

std::vector<std::string> ServicesSession::finish() {
  std::vector<std::string> out;
  if (!broker_) return out;
  broker_->stop();
  out = broker_->summary();
  broker_.reset();
  return out;
}

ServicesSession::~ServicesSession() {
  finish();
  if (!dir_.empty()) {
    ::unlink((dir_ + "/" + broker::agent::kSocketName).c_str());
    ::unlink((dir_ + "/" + clip::kSocketName).c_str());
    ::rmdir(dir_.c_str());
  }
}

}  // namespace blaude::app
