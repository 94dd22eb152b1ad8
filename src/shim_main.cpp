// blaude-exec: blaude's exec shim as a program of its own (sandbox/request.hpp, kSandboxShim).
// bwrap starts it inside the sandbox as `blaude-exec __exec@N CMD ARGS...`; it does exactly what
// `blaude __exec` does (inside/exec_shim.hpp: isolate, check bwrap's mounts, look CMD up, exec it),
// from a static binary that starts without loading or relocating a libc. A verb from another
// protocol (a blaude-exec left from another build) runs nothing.
#include <cstdio>
#include <cstring>

#include "inside/clip_standin.hpp"
#include "inside/exec_shim.hpp"
#include "inside/selftest_probe.hpp"
#include "sandbox/request.hpp"

int main(int argc, char** argv) {
  using namespace blaude;
  // Called as a clipboard tool (a link in inside::kStandinDir).
  if (const char* standin = inside::clip_standin_name(argc > 0 ? argv[0] : nullptr))
    return inside::clip_standin(standin, argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], sandbox::kShimVerb) == 0) return inside::exec_shim(argc - 2, argv + 2, false);
  if (argc >= 2 && std::strcmp(argv[1], sandbox::kShimVerbOnPty) == 0) return inside::exec_shim(argc - 2, argv + 2, true);
  if (argc >= 2 && std::strcmp(argv[1], inside::kSelftestProbe) == 0) return inside::selftest_probe(argc - 2, argv + 2);
  std::fprintf(stderr,
               "blaude-exec: expected %s or %s, got %s; nothing ran\n"
               "blaude-exec is started by blaude inside its sandbox, and only by the blaude it was built with: "
               "install both from one build (make install), or remove this blaude-exec (blaude then uses itself).\n",
               sandbox::kShimVerb, sandbox::kShimVerbOnPty, argc >= 2 ? argv[1] : "no arguments");
  return 2;
}
