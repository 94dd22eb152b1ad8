// What the host says of itself, for the egress decision (decision.hpp Policy): the addresses of
// its interfaces, and the names its hosts file answers. Reads the host (getifaddrs, /etc/hosts);
// the parsing is pure.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "net/address.hpp"

namespace blaude::net {

// Every address of this host's interfaces that is not loopback already (127/8 and ::1 have their
// own class): a service listening on all interfaces answers on each of them.
std::vector<Address> host_interface_addresses();

// The names a hosts file's text gives addresses to, lower case, sorted, each once: `addr name...` per
// line, `#` to the end of a line a comment. At most `max_names`; a line that does not start with
// an IP literal gives none.
std::vector<std::string> parse_hosts_file(std::string_view text, size_t max_names = 10000);

// parse_hosts_file of /etc/hosts (at most 1 MiB of it); none when it cannot be read.
std::vector<std::string> hosts_file_names(const std::string& path = "/etc/hosts");

}  // namespace blaude::net
