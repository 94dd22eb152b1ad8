#include "broker/agent_service.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include "common/platform.hpp"
#include "common/shown.hpp"
#include "common/unique_fd.hpp"

namespace blaude::broker::agent {

namespace {

using Clock = std::chrono::steady_clock;

struct Ledger {
  std::map<std::string, uint64_t> signatures;  // "FP for WHAT" -> count
  std::map<std::string, uint64_t> refused;     // what -> count
  uint64_t signed_total = 0, refused_total = 0, lists = 0;
};

// One blocking exchange with the real agent, bounded by a deadline.
class Upstream {
public:
  Upstream(std::string path, uint64_t ms) : path_(std::move(path)), ms_(ms) {}

  // The real agent's answer body, or nullopt (logged) when it could not be had.
  std::optional<std::string> call(std::string_view body) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(ms_);
    if (!fd_ && !connect()) return std::nullopt;
    const std::string out = frame(body);
    size_t sent = 0;
    while (sent < out.size()) {
      if (!wait(POLLOUT, deadline)) return fail("timed out writing");
#if BLAUDE_LINUX_CALLS
      ssize_t n = ::send(fd_.get(), out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
#else
      // The broker's thread blocks every signal: a SIGPIPE stays pending there, harmless.
      ssize_t n = ::send(fd_.get(), out.data() + sent, out.size() - sent, 0);
#endif
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return fail(std::string("write: ") + std::strerror(errno));
      sent += size_t(n);
    }
    std::string in;
    for (;;) {
      auto f = next_frame(in);
      if (auto* fr = std::get_if<Frame>(&f)) {
        if (fr->consumed != in.size()) return fail("answered more than it was asked");
        return std::string(fr->body);
      }
      if (auto* e = std::get_if<Malformed>(&f)) return fail(e->why);
      if (!wait(POLLIN, deadline)) return fail("timed out waiting for its answer");
      char buf[16384];
      ssize_t n = ::read(fd_.get(), buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return fail(n == 0 ? "closed the connection" : std::string("read: ") + std::strerror(errno));
      in.append(buf, size_t(n));
    }
  }

private:
  bool connect() {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (path_.size() >= sizeof sa.sun_path) return fail("its path is too long").has_value();
    std::memcpy(sa.sun_path, path_.c_str(), path_.size());
    fd_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM, 0));
    if (!fd_) return fail(std::string("socket: ") + std::strerror(errno)).has_value();
    ::fcntl(fd_.get(), F_SETFD, FD_CLOEXEC);
    ::fcntl(fd_.get(), F_SETFL, ::fcntl(fd_.get(), F_GETFL) | O_NONBLOCK);
    if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
      return fail(std::string("connect: ") + std::strerror(errno)).has_value();
    return true;
  }
  bool wait(short events, Clock::time_point deadline) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_.get(), events, 0};
      int rc = ::poll(&p, 1, int(left));
      if (rc < 0 && errno == EINTR) continue;
      return rc > 0;
    }
  }
  std::optional<std::string> fail(const std::string& why) {
    spdlog::warn("broker: ssh-agent: the real agent at {}: {}", shown(path_), why);
    fd_ = UniqueFd();
    return std::nullopt;
  }

  std::string path_;
  uint64_t ms_;
  UniqueFd fd_;
};

const std::string kFailureReply(1, char(Type::kFailure));

class AgentConversation : public Conversation {
public:
  AgentConversation(const AgentConfig& cfg, Ledger& ledger) : cfg_(cfg), ledger_(ledger), up_(cfg.upstream, cfg.upstream_ms) {}

  std::optional<std::string> answer(std::string_view body) override {
    auto parsed = parse_request(body);
    if (auto* e = std::get_if<Malformed>(&parsed)) {
      spdlog::warn("broker: ssh-agent: closed a client: {}", shown(e->why));
      return std::nullopt;
    }
    const Request& r = std::get<Request>(parsed);
    std::vector<Identity> listed;
    Decision d = decide(cfg_.policy, r);
    if (d.verdict == Verdict::NeedIdentities) {
      if (auto ids = list_upstream()) listed = std::move(*ids);
      d = decide(cfg_.policy, r, &listed);
    }
    switch (d.verdict) {
      case Verdict::Refuse:
        return refuse(d.what);
      case Verdict::ListFiltered: {
        auto ids = list_upstream();
        if (!ids) return kFailureReply;
        std::vector<Identity> allowed;
        for (auto& id : *ids)
          if (cfg_.policy.allows(id.blob, id.comment)) allowed.push_back(std::move(id));
        ++ledger_.lists;
        spdlog::info("broker: ssh-agent: listed {} of the agent's {} keys", allowed.size(), ids->size());
        return identities_answer(allowed);
      }
      case Verdict::Forward:
      case Verdict::NeedIdentities:
        break;
    }
    auto reply = up_.call(body);
    if (!reply) return kFailureReply;
    if (r.type == kExtension) {
      if (!reply->empty() && uint8_t((*reply)[0]) == kSuccess) bound_host_ = fingerprint(r.host_key);
      spdlog::info("broker: ssh-agent: session-bind to host key {}", bound_host_.empty() ? "(refused by the agent)" : bound_host_);
      return reply;
    }
    // A sign request: counted when the agent signed.
    if (reply->empty() || uint8_t((*reply)[0]) != kSignResponse) {
      spdlog::info("broker: ssh-agent: {}: the agent refused", d.what);
      return reply;
    }
    const std::string what = d.what + purpose(r.data);
    ++ledger_.signatures[what.substr(std::strlen("sign with "))];
    ++ledger_.signed_total;
    spdlog::info("broker: ssh-agent: {}", what);
    return reply;
  }

private:
  std::optional<std::vector<Identity>> list_upstream() {
    auto reply = up_.call(std::string(1, char(kRequestIdentities)));
    if (!reply) return std::nullopt;
    auto ids = parse_identities(*reply);
    if (auto* e = std::get_if<Malformed>(&ids)) {
      spdlog::warn("broker: ssh-agent: the real agent's identities: {}", shown(e->why));
      return std::nullopt;
    }
    return std::get<std::vector<Identity>>(std::move(ids));
  }

  std::string refuse(const std::string& what) {
    ++ledger_.refused[what];
    ++ledger_.refused_total;
    spdlog::info("broker: ssh-agent: {}", what);
    return kFailureReply;
  }

  // " (ssh login as git to host key SHA256:...)", " (file signature, namespace git)", or "".
  std::string purpose(std::string_view data) const {
    auto f = signed_for(data);
    if (!f) return bound_host_.empty() ? "" : " (host key " + bound_host_ + ")";
    if (!f->sig_namespace.empty() || f->user.empty()) return " (file signature, namespace " + shown(f->sig_namespace) + ")";
    std::string host = !f->host_key.empty() ? fingerprint(f->host_key) : bound_host_;
    return " (ssh login as " + shown(f->user) + (host.empty() ? "" : " to host key " + host) + ")";
  }

  const AgentConfig& cfg_;
  Ledger& ledger_;
  Upstream up_;
  std::string bound_host_;
};

class AgentService : public Service {
public:
  explicit AgentService(AgentConfig cfg) : cfg_(std::move(cfg)) {}
  std::string name() const override { return kSocketName; }
  uint32_t max_message() const override { return kMaxMessage; }
  std::unique_ptr<Conversation> open() override { return std::make_unique<AgentConversation>(cfg_, ledger_); }
  std::vector<std::string> summary() const override {
    std::vector<std::string> out;
    if (ledger_.signed_total > 0) {
      std::string line = "blaude: ssh-agent signed " + std::to_string(ledger_.signed_total) +
                         (ledger_.signed_total == 1 ? " time:" : " times:");
      for (const auto& [what, n] : ledger_.signatures) line += "\n  " + std::to_string(n) + " x " + what;
      out.push_back(line);
    }
    if (ledger_.refused_total > 0) {
      std::string line = "blaude: ssh-agent refused " + std::to_string(ledger_.refused_total) +
                         (ledger_.refused_total == 1 ? " request:" : " requests:");
      for (const auto& [what, n] : ledger_.refused) line += "\n  " + std::to_string(n) + " x " + what;
      out.push_back(line);
    }
    return out;
  }

private:
  AgentConfig cfg_;
  Ledger ledger_;
};

}  // namespace

std::unique_ptr<Service> make_agent_service(AgentConfig cfg) { return std::make_unique<AgentService>(std::move(cfg)); }

}  // namespace blaude::broker::agent
