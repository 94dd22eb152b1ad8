// The one shape of every error blaude reports before (or instead of) a session: what is wrong,
// how to fix it, and the exit code. One printer writes them all, so every message reads
//   blaude: <what>
//   <hint>
#pragma once
#include <cstdio>
#include <string>
#include <variant>

namespace blaude::app {

struct Failure {
  std::string what;     // without the "blaude: " prefix
  std::string hint;     // one or more lines; "" for none
  int exit_code = 1;    // 1 blaude error, 2 usage error, 126/127 cannot run / not found
};

// What an action ends with: an exit code (the child's, or 0), or a Failure to report.
using Outcome = std::variant<int, Failure>;

void print(const Failure& f, std::FILE* to = stderr);
// Prints the failure, if any, and returns the exit code.
int exit_code(const Outcome& o);

// A usage error (exit 2), with `hint` or else the standard one.
Failure usage(std::string what, std::string hint = "");

}  // namespace blaude::app
