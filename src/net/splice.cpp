#include "net/splice.hpp"

namespace blaude::net {

Splice::Splice(uv_stream_t* a, uv_stream_t* b, ReadScratch* scratch, std::function<void(bool)> done)
    : scratch_(scratch), done_(std::move(done)) {
  ab_.self = ba_.self = this;
  ab_.src = ba_.dst = a;
  ab_.dst = ba_.src = b;
}

void Splice::start(std::string to_b, std::string to_a) {
  // Each stream is the source of exactly one direction: its data names that direction.
  ab_.src->data = &ab_;
  ba_.src->data = &ba_;
  begin(ab_, std::move(to_b));
  if (!finished_) begin(ba_, std::move(to_a));
}

void Splice::begin(Dir& d, std::string first) {
  if (first.empty()) return read(d);
  d.pending = std::move(first);
  queue(d);
}

void Splice::read(Dir& d) {
  if (finished_ || d.eof) return;
  int rc = uv_read_start(d.src, on_alloc, on_read);
  if (rc != 0 && rc != UV_EALREADY) finish(false);
}

void Splice::on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
  auto* d = static_cast<Dir*>(h->data);
  ReadScratch* s = d->self->scratch_;
  *buf = uv_buf_init(s->buf.data(), unsigned(s->buf.size()));
}

void Splice::on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
  auto* d = static_cast<Dir*>(s->data);
  Splice* self = d->self;
  if (self->finished_) return;
  if (n > 0) return self->write_through(*d, buf->base, size_t(n));
  if (n == UV_EOF) {
    d->eof = true;
    uv_read_stop(s);
    if (!d->writing) self->end_of(*d);
    return;
  }
  if (n < 0) self->finish(false);
}

void Splice::write_through(Dir& d, const char* data, size_t n) {
  uv_buf_t b = uv_buf_init(const_cast<char*>(data), unsigned(n));
  int w = uv_try_write(d.dst, &b, 1);
  if (w == int(n)) return;
  if (w < 0 && w != UV_EAGAIN) return finish(false);
  size_t sent = w > 0 ? size_t(w) : 0;
  d.pending.assign(data + sent, n - sent);
  uv_read_stop(d.src);  // backpressure: nothing more from this source until the rest is out
  queue(d);
}

void Splice::queue(Dir& d) {
  d.writing = true;
  uv_buf_t b = uv_buf_init(d.pending.data(), unsigned(d.pending.size()));
  d.wreq.data = &d;
  if (uv_write(&d.wreq, d.dst, &b, 1, on_write) != 0) {
    d.writing = false;
    finish(false);
  }
}

void Splice::on_write(uv_write_t* req, int status) {
  auto* d = static_cast<Dir*>(req->data);
  Splice* self = d->self;
  d->writing = false;
  std::string().swap(d->pending);  // an idle tunnel keeps no buffer
  if (self->finished_) return;
  if (status < 0) return self->finish(false);
  if (d->eof) return self->end_of(*d);
  self->read(*d);
}

// The source said EOF and everything before it was written: pass the half-close on.
void Splice::end_of(Dir& d) {
  d.sreq.data = &d;
  if (uv_shutdown(&d.sreq, d.dst, on_shutdown) != 0) {
    d.shut = true;
    if (ab_.shut && ba_.shut) finish(true);
  }
}

void Splice::on_shutdown(uv_shutdown_t* req, int status) {
  auto* d = static_cast<Dir*>(req->data);
  Splice* self = d->self;
  d->shut = true;
  if (self->finished_) return;
  // ENOTCONN/EPIPE: the peer is gone; that direction is over either way.
  (void)status;
  if (self->ab_.shut && self->ba_.shut) self->finish(true);
}

void Splice::finish(bool ok) {
  if (finished_) return;
  finished_ = true;
  uv_read_stop(ab_.src);
  uv_read_stop(ba_.src);
  auto done = std::move(done_);
  if (done) done(ok);
}

}  // namespace blaude::net
