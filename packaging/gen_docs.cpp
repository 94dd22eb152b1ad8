// gen_docs OUTDIR: writes what is generated from blaude's option table for installing:
// blaude.1 (the man page), blaude.bash, _blaude (zsh) and blaude.fish. Run by the build.
#include <cstdio>
#include <string>

#include "cli/docs.hpp"
#include "common/build_info.hpp"
#include "common/file_io.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gen_docs OUTDIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  using namespace blaude;
  const std::pair<const char*, std::string> files[] = {
      {"blaude.1", cli::man_page(BLAUDE_VERSION, build::kRevisionDate)},
      {"blaude.bash", cli::bash_completion()},
      {"_blaude", cli::zsh_completion()},
      {"blaude.fish", cli::fish_completion()},
  };
  for (const auto& [name, text] : files) {
    if (std::string why = atomic_replace(dir + "/" + name, text, 0644); !why.empty()) {
      std::fprintf(stderr, "gen_docs: %s\n", why.c_str());
      return 1;
    }
  }
  return 0;
}
