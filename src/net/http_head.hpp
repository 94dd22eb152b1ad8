// The HTTP/1.x request head a proxy client sends: `CONNECT host:port` (TLS passes through,
// never decrypted) or an absolute-URI request (`GET http://host/path`). Pure and bounded: fed
// the bytes buffered so far, it answers "need more", an error with its status, or the request.
// One request per proxy connection: the forwarded head says `Connection: close`, so a second,
// pipelined request can never reach a host other than the one decided on.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

#include "net/host.hpp"

namespace blaude::net {

struct HttpLimits {
  size_t max_head = 64 * 1024;  // request line + headers; past it: 431
  size_t max_headers = 100;
};

struct HttpRequest {
  enum class Kind : uint8_t { Connect, Forward };
  Kind kind = Kind::Connect;
  std::string method;
  Authority dest;        // port always set (80 for http:// without one)
  std::string forward;   // Forward: the head to send upstream, origin-form, hop-by-hop removed
  size_t head_len = 0;   // bytes of input the head took; what follows is body or tunnel data
};

struct HttpError {
  int status = 400;
  std::string reason;  // one line, no newline
};

struct NeedMore {};

using HttpParse = std::variant<NeedMore, HttpError, HttpRequest>;

HttpParse parse_http_head(std::string_view in, const HttpLimits& lim = {});

// A complete response that closes the connection, with a one-line text body. `proxy_error`
// (if not empty) becomes an `X-Proxy-Error:` header, the way other sandbox proxies mark refusals.
std::string http_response(int status, std::string_view body_line, std::string_view proxy_error = {});
const char* status_text(int status);

}  // namespace blaude::net
