#include "net/bridge.hpp"

namespace blaude::net {

Bridge::Bridge(uv_loop_t* loop, ReadScratch* scratch, Release release)
    : loop_(loop), scratch_(scratch), release_(std::move(release)) {
  uv_tcp_init(loop, &tcp_);
  uv_pipe_init(loop, &pipe_, 0);
  tcp_.data = this;
  pipe_.data = this;
}

bool Bridge::accept_tcp(uv_stream_t* server) { return uv_accept(server, tcp()) == 0; }

bool Bridge::open_unix(int fd) { return uv_pipe_open(&pipe_, fd) == 0; }


void Bridge::connect_tcp(const sockaddr* addr, std::function<void(bool)> then) {
  then_ = std::move(then);
  creq_.data = this;
  if (uv_tcp_connect(&creq_, &tcp_, addr, on_tcp_connect) != 0) {
    auto t = std::move(then_);
    t(false);
  }
}

void Bridge::on_tcp_connect(uv_connect_t* req, int status) {
  auto* b = static_cast<Bridge*>(req->data);
  if (b->closing_) return;
  auto then = std::move(b->then_);
  then(status == 0);
}

void Bridge::tunnel(std::string to_unix, std::string to_tcp) {
  splice_ = std::make_unique<Splice>(tcp(), unix_stream(), scratch_, [this](bool) { close(); });
  splice_->start(std::move(to_unix), std::move(to_tcp));
}

void Bridge::close() {
  if (closing_) return;
  closing_ = true;
  if (splice_) splice_->stop();  // its polls watch the fds closed below
  tcp_.data = this;  // the splice pointed both at its directions
  pipe_.data = this;
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_closed);
  uv_close(reinterpret_cast<uv_handle_t*>(&pipe_), on_closed);
}

void Bridge::on_closed(uv_handle_t* h) {
  auto* b = static_cast<Bridge*>(h->data);
  if (--b->open_ != 0) return;
  // The owner frees `b`, and with it release_: call a copy that outlives the call.
  Release release = std::move(b->release_);
  release(b);
}

Bridge* BridgeSet::add(uv_loop_t* loop, ReadScratch* scratch) {
  items_.push_back(std::make_unique<Bridge>(loop, scratch, [this](Bridge* b) {
    items_.erase(b->pos);  // frees b (the closure running here is a copy: see on_closed)
    maybe_done();
  }));
  Bridge* b = items_.back().get();
  b->pos = std::prev(items_.end());
  return b;
}

void BridgeSet::close_all(std::function<void()> done) {
  done_ = std::move(done);
  for (auto& b : items_) b->close();
  maybe_done();
}

void BridgeSet::maybe_done() {
  if (!done_ || !items_.empty()) return;
  auto d = std::move(done_);
  done_ = nullptr;
  d();
}

}  // namespace blaude::net
