#include "common/pipe.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace blaude {

bool make_pipe(UniqueFd& read_end, UniqueFd& write_end, bool nonblock) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0)) != 0) return false;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
}

}  // namespace blaude
