// Stand-in for a header macOS lacks (scripts/portability-check.sh).
#error "Linux-only header <linux/openat2.h>: include it under #if BLAUDE_LINUX_CALLS (common/platform.hpp)"
