#include "app/backend.hpp"

namespace blaude::app {

BackendChoice host_backend(const HostEnv& host) {
#ifdef __APPLE__
  (void)host;
  return {Backend::Seatbelt, false};
#else
  if (host.get("BLAUDE_TEST_BACKEND") == "seatbelt") return {Backend::Seatbelt, true};
  return {Backend::Bwrap, false};
#endif
}

}  // namespace blaude::app
