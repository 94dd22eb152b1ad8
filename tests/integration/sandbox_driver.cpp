// Test driver: blaude's sandbox options → sandbox::run_sandboxed, with a minimal sandbox
// environment (HOME USER TERM LANG PATH, plus --env pairs). Used by test_sandbox_*.sh.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "sandbox/bwrap/launch.hpp"
#include "sandbox/bwrap/plan.hpp"

using namespace blaude;

int main(int argc, char** argv) {
  cli::Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "sandbox_driver: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return args[++i];
    };
    if (a == "--exec") {
      o.exec.assign(args.begin() + long(i) + 1, args.end());
      break;
    } else if (a == "-m" || a == "--mount") {
      std::string p = next();
      bool rw = p.size() > 3 && p.compare(p.size() - 3, 3, ":rw") == 0;
      o.mounts.push_back({rw ? p.substr(0, p.size() - 3) : p, rw});
    } else if (a == "--env") {
      std::string kv = next();
      auto eq = kv.find('=');
      o.env.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
    } else if (a == "--dry-run") { o.dry_run = true;
    } else if (a == "--debug") { o.debug = true;
    } else if (a == "--git") { o.git = true;
    } else if (a == "--ssh") { o.ssh = true;
    } else if (a == "--aws") { o.aws = true;
    } else if (a == "--keyring") { o.keyring = true;
    } else if (a == "--no-network") { o.no_network = true;
    } else if (a == "--keep-env") { o.keep_env = true;
    } else if (a == "--tmp") { o.tmp = true;
    } else if (a == "--clear-tmp") { o.clear_tmp = true;
    } else if (a == "--allow-protected-writes") { o.allow_protected_writes = true;
    } else {
      std::fprintf(stderr, "sandbox_driver: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!o.dry_run) log::init(o.debug);  // --dry-run leaves no trace on the host, not even a log
  return sandbox::run_sandboxed(o, [&](const sandbox::HostFacts& f) {
    sandbox::PlanInputs in;
    if (!o.keep_env) {
      in.env = {{"HOME", f.home}, {"USER", f.user}, {"TERM", f.env_or("TERM", "xterm-256color")},
                {"LANG", f.env_or("LANG", "C.UTF-8")}};
    }
    in.env.emplace_back("PATH", sandbox::sandbox_path(f));
    for (const auto& kv : o.env) in.env.push_back(kv);
    in.command = o.exec.empty() ? std::vector<std::string>{"claude"} : o.exec;
    return in;
  });
}
