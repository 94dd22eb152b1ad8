#include "net/host_view.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace blaude::net {

std::vector<Address> host_interface_addresses() {
  std::vector<Address> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    Address a;
    if (i->ifa_addr->sa_family == AF_INET) {
      a.family = Address::Family::V4;
      std::memcpy(a.bytes.data(), &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, 4);
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      a.family = Address::Family::V6;
      std::memcpy(a.bytes.data(), &reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr, 16);
    } else {
      continue;
    }
    if (classify(a) == AddressClass::Loopback) continue;
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  ::freeifaddrs(list);
  return out;
}

std::vector<std::string> parse_hosts_file(std::string_view text, size_t max_names) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size() && out.size() < max_names) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // As the C library reads it: a line is a C string (a NUL ends it), a field ends at any
    // blank of the C locale.
    if (size_t nul = line.find('\0'); nul != std::string_view::npos) line = line.substr(0, nul);
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && blank(line[i])) ++i;
      size_t j = i;
      while (j < line.size() && !blank(line[j])) ++j;
      if (j > i) words.push_back(line.substr(i, j - i));
      i = j;
    }
    if (words.size() < 2 || !parse_address(words[0])) continue;
    for (size_t w = 1; w < words.size() && out.size() < max_names; ++w) {
      std::string n(words[w]);
      for (char& c : n)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
      out.push_back(std::move(n));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> hosts_file_names(const std::string& path) {
  constexpr size_t kMax = 1 << 20;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return {};
  std::string text;
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, size_t(n));
    if (text.size() >= kMax) break;
  }
  ::close(fd);
  return parse_hosts_file(text);
}

}  // namespace blaude::net
