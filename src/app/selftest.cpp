// `blaude selftest`: the sandbox's protections tried from inside, on this machine, by the same
// blaude (a real sandbox start, not a simulation), each with its expected result. The host side
// makes a throwaway workspace with a repository, listens on an abstract socket, a socket in /tmp
// and a loopback port, then runs the probe (inside/selftest_probe.hpp) in the default mode and
// under --no-network, and judges what it printed; then runs the host's git in a repository the
// session made with a planted core.fsmonitor, as the user's next `git status` would (the exit audit).
#include <arpa/inet.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "app/run.hpp"
#include "common/file_io.hpp"
#include "common/self_exe.hpp"
#include "common/shown.hpp"
#include "common/subprocess.hpp"
#include "common/unique_fd.hpp"
#include "inside/selftest_probe.hpp"
#include "sandbox/bwrap/probe/confine.hpp"

namespace blaude::app {

namespace {

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path) == 0 ? 0 : 0; }

struct Listeners {
  UniqueFd abstract, tmp, tcp;
  std::string abstract_name, tmp_path;
  int port = 0;
};

bool listen_unix(UniqueFd& fd, const std::string& name, bool abstract) {
  fd = UniqueFd(::socket(AF_UNIX, SOCK_STREAM, 0));
  if (fd) ::fcntl(fd.get(), F_SETFD, FD_CLOEXEC);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (!fd || name.size() + 2 > sizeof a.sun_path) return false;
  std::memcpy(a.sun_path + (abstract ? 1 : 0), name.data(), name.size());
  socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + name.size() + (abstract ? 1 : 0));
  return ::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), len) == 0 && ::listen(fd.get(), 8) == 0;
}

bool listen_tcp(Listeners& l) {
  l.tcp = UniqueFd(::socket(AF_INET, SOCK_STREAM, 0));
  if (l.tcp) ::fcntl(l.tcp.get(), F_SETFD, FD_CLOEXEC);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (!l.tcp || ::bind(l.tcp.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(l.tcp.get(), 8) != 0 ||
      ::getsockname(l.tcp.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return false;
  l.port = ntohs(a.sin_port);
  return true;
}

// The probe's `name=N` lines; the rest (blaude's own stderr) kept apart.
std::map<std::string, int> probe_lines(const std::string& out, std::vector<std::string>& other) {
  std::map<std::string, int> r;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    std::string line = out.substr(pos, nl - pos);
    pos = nl + 1;
    auto eq = line.rfind('=');
    bool num = eq != std::string::npos && eq + 1 < line.size() && eq + 6 > line.size();
    for (size_t i = eq + 1; num && i < line.size(); ++i) num = line[i] >= '0' && line[i] <= '9';
    if (num && line.find(' ') == std::string::npos) r[line.substr(0, eq)] = std::atoi(line.c_str() + eq + 1);
    else if (!line.empty()) other.push_back(line);
  }
  return r;
}

std::string errno_name(int e) { return e == 0 ? "it worked" : std::string("refused: ") + std::strerror(e); }

}  // namespace

Outcome run_selftest(const cli::Options& o) {
  char dir[] = "/tmp/blaude-selftest-XXXXXX";
  if (!::mkdtemp(dir)) return Failure{std::string("cannot make a temp dir in /tmp: ") + std::strerror(errno), ""};
  const std::string t = dir, ws = t + "/ws";
  struct Cleanup {
    std::string t;
    ~Cleanup() { ::nftw(t.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
  } cleanup{t};
  // A repository as `git init` lays it out, enough for blaude to protect it.
  for (const char* d : {"/ws", "/ws/.git", "/ws/.git/hooks", "/ws/.git/objects", "/ws/.git/refs"})
    if (::mkdir((t + d).c_str(), 0755) != 0) return Failure{"cannot make " + t + d + ": " + std::strerror(errno), ""};
  if (!atomic_replace(ws + "/.git/HEAD", "ref: refs/heads/main\n", 0644).empty() ||
      !atomic_replace(ws + "/.git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n", 0644).empty())
    return Failure{"cannot write the test repository in " + ws, ""};
  Listeners l;
  l.abstract_name = "blaude-selftest-" + std::to_string(::getpid());
  l.tmp_path = t + "/host.sock";
  if (!listen_unix(l.abstract, l.abstract_name, true) || !listen_unix(l.tmp, l.tmp_path, false) || !listen_tcp(l))
    return Failure{std::string("cannot listen on the host side's sockets: ") + std::strerror(errno), ""};

  std::vector<std::string> base = {self_exe()};
  if (o.nested_sandbox) base.push_back("--nested-sandbox");
  if (o.no_limits) base.push_back("--no-limits");
  if (o.allow_protected_writes) base.push_back("--allow-protected-writes");
  if (o.pids_max) base.insert(base.end(), {"--pids-max", std::to_string(*o.pids_max)});
  if (o.memory_max) base.insert(base.end(), {"--memory-max", std::to_string(*o.memory_max)});
  // A repository the session makes, whose config would run a command in the host's next `git
  // status` (core.fsmonitor): the exit audit must leave it inert. The mark is in the host's /tmp,
  // which the sandbox cannot write: only the host's git could make it.
  const std::string mark = t + "/audit-ran";
  const std::string plant =
      "mkdir -p selftest-new/.git/objects selftest-new/.git/refs && "
      "printf 'ref: refs/heads/main\\n' >selftest-new/.git/HEAD && "
      "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch " + mark + "; false\\n' "
      ">selftest-new/.git/config && : >selftest-new/made; ";
  const std::vector<std::string> probe = {
      "--exec", "sh", "-c",
      plant + "[ -x /run/blaude/exec ] && exec /run/blaude/exec __probe \"$@\"; exec /run/blaude/blaude __probe \"$@\"", "sh",
      l.abstract_name, l.tmp_path, std::to_string(l.port), ".git/hooks/pre-commit", ".git/config"};
  std::string cwd(4096, '\0');
  if (!::getcwd(cwd.data(), cwd.size())) cwd = "/";
  cwd.resize(std::strlen(cwd.c_str()));
  if (::chdir(ws.c_str()) != 0) return Failure{"cannot enter " + ws, ""};
  RunOptions ro;
  ro.timeout_ms = 60000;
  auto argv = base;
  argv.insert(argv.end(), probe.begin(), probe.end());
  auto run1 = run_capture(argv, ro);
  // The host's git, as the user would run it next, in the repository the session made.
  RunOptions git_ro;
  git_ro.timeout_ms = 20000;
  git_ro.env = std::vector<std::string>{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + t, "GIT_CONFIG_NOSYSTEM=1",
                                        "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"};
  const bool planted = path_exists(ws + "/selftest-new/made");
  const auto host_git = run_capture({"git", "-C", ws + "/selftest-new", "status", "--porcelain"}, git_ro);
  const bool audit_ran_it = path_exists(mark);
  argv = base;
  argv.push_back("--no-network");
  argv.insert(argv.end(), probe.begin(), probe.end());
  auto run2 = run_capture(argv, ro);
  (void)!::chdir(cwd.c_str());

  std::vector<std::string> other1, other2;
  auto r = probe_lines(run1.output, other1);
  auto n = probe_lines(run2.output, other2);
  for (const auto& line : other1)
    if (line.starts_with("blaude: layers:") || line.starts_with("blaude: warning")) std::printf("%s\n", shown(line).c_str());
  if (r.empty()) {
    for (const auto& line : other1) std::fprintf(stderr, "%s\n", shown(line).c_str());
    return Failure{"the sandbox did not run the probe (exit " + std::to_string(run1.status) + ")",
                   "`blaude doctor` says what this machine lacks"};
  }
  const int abi = sandbox::bwrap::landlock_abi();
  const auto legacy = read_first_line("/proc/sys/dev/tty/legacy_tiocsti");
  const auto bpf_sysctl = read_first_line("/proc/sys/kernel/unprivileged_bpf_disabled");
  const char* no_filter = "no syscall filter here (a blaude built without libseccomp, or BLAUDE_SECCOMP=off)";
  struct Row {
    std::string probe, expected;
    int state;  // 0 held, 1 NOT HELD, 2 not applicable
    std::string why;
  };
  std::vector<Row> rows;
  auto judge = [&](const std::string& probe, const std::map<std::string, int>& from, const std::string& key,
                   const std::string& expected, const std::string& why_not, bool applicable = true,
                   const std::string& why_na = "") {
    auto it = from.find(key);
    if (!applicable) return rows.push_back({probe, expected, 2, why_na});
    if (it == from.end()) return rows.push_back({probe, expected, 1, "the probe did not report it"});
    const std::string result = key == "tasks_bounded" ? (it->second ? "bounded" : "unbounded") : errno_name(it->second);
    rows.push_back({probe, expected, it->second == 0 ? 1 : 0, it->second == 0 ? result + "; " + why_not : result});
  };
  judge("write .git/hooks/pre-commit", r, "write:.git/hooks/pre-commit", "refused", "blaude's protection of git's hooks");
  judge("write .git/config", r, "write:.git/config", "refused", "blaude's protection of git's config");
  judge("connect to a host abstract socket", r, "abstract_socket", "refused",
        abi < 6 ? "the kernel has Landlock ABI " + std::to_string(abi) + " (scoping needs 6: Linux 6.12) and the "
                  "default mode has no network namespace of its own here"
                : "Landlock scoping did not hold");
  judge("connect to a host socket in /tmp", r, "tmp_socket", "refused", "the host's /tmp sockets were reachable");
  judge("TIOCSTI (command's high bits set)", r, "tiocsti_high_bits", "refused",
        std::string(no_filter) + (legacy && *legacy != "0" ? ", and dev.tty.legacy_tiocsti=" + *legacy : ""));
  judge("io_uring_setup", r, "io_uring_setup", "refused", no_filter);
  judge("bpf", r, "bpf", "refused",
        std::string(no_filter) + (bpf_sysctl ? "; kernel.unprivileged_bpf_disabled=" + *bpf_sysctl : ""));
  judge("a user namespace of its own", r, "unshare_user", "refused", no_filter, !o.nested_sandbox,
        "--nested-sandbox allows them");
  judge("tasks bounded (pids.max or RLIMIT_NPROC)", r, "tasks_bounded", "bounded",
        "no limit reached the sandbox", !o.no_limits, "--no-limits");
  judge("--no-network: a host loopback port", n, "loopback_port", "refused", "the sandbox reached the host's loopback");
  {
    const std::string what = "a new repository's fsmonitor, after exit";
    if (host_git.status == -1 && !host_git.timed_out)
      rows.push_back({what, "inert", 2, "git is not installed on the host"});
    else if (audit_ran_it)
      rows.push_back({what, "inert", 1, "the host's git ran it: the exit audit did not neutralise the new repository"});
    else if (!planted)
      rows.push_back({what, "inert", 1, "the probe could not make the repository"});
    else
      rows.push_back({what, "inert", 0, "the host's git ran nothing"});
  }

  bool failed = false;
  std::printf("%-42s %-9s %-16s %s\n", "PROBE", "EXPECTED", "RESULT", "DETAIL");
  for (const auto& row : rows) {
    const char* state = row.state == 0 ? "held" : row.state == 1 ? "NOT HELD" : "n/a";
    failed = failed || row.state == 1;
    std::printf("%-42s %-9s %-16s %s\n", row.probe.c_str(), row.expected.c_str(), state, row.why.c_str());
  }
  std::fflush(stdout);
  return failed ? 1 : 0;
}

}  // namespace blaude::app
