// Stand-in for a header macOS lacks (scripts/portability-check.sh).
#error "Linux-only header <sys/vfs.h>: include it under #if BLAUDE_LINUX_CALLS (common/platform.hpp)"
