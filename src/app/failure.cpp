#include "app/failure.hpp"

#include <spdlog/spdlog.h>

namespace blaude::app {

void print(const Failure& f, std::FILE* to) {
  std::fprintf(to, "blaude: %s\n", f.what.c_str());
  if (!f.hint.empty()) std::fprintf(to, "%s\n", f.hint.c_str());
  std::fflush(to);
  spdlog::info("failure (exit {}): {}", f.exit_code, f.what);
}

int exit_code(const Outcome& o) {
  if (const auto* f = std::get_if<Failure>(&o)) {
    print(*f);
    return f->exit_code;
  }
  return std::get<int>(o);
}

Failure usage(std::string what, std::string hint) {
  if (hint.empty()) hint = "Try 'blaude --help' for the options.";
  return {std::move(what), std::move(hint), 2};
}

}  // namespace blaude::app
