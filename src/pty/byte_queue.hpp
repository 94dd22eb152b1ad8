// A fixed-capacity FIFO of bytes in a ring: read(2) straight into its tail, write(2) straight
// from its head. Capacity is set once, so memory never grows with the amount of data that passes,
// and no byte is ever moved inside it: the free tail and the queued head are each handed out as
// (at most) two contiguous pieces, one up to the buffer's end and one from its start.
#pragma once
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace blaude::pty {

class ByteQueue {
public:
  explicit ByteQueue(size_t capacity) : buf_(new char[capacity]), cap_(capacity) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  size_t free_space() const { return cap_ - size_; }

  // The oldest queued bytes: front_size() of them, contiguous at data(). That is all of size()
  // unless the queue wraps round the buffer's end; the rest is at data() after consume().
  const char* data() const { return buf_.get() + head_; }
  size_t front_size() const { return size_ < cap_ - head_ ? size_ : cap_ - head_; }
  void consume(size_t n) {
    head_ += n;
    if (head_ >= cap_) head_ -= cap_;
    size_ -= n;
    if (size_ == 0) head_ = 0;  // empty: the next bytes start at the buffer's start, unwrapped
  }

  // Contiguous writable space at the tail: up to the buffer's end, or, once the tail has wrapped
  // to the start, up to the head. 0 when full.
  char* tail_space(size_t& len) {
    size_t tail = head_ + size_;
    if (tail >= cap_) {
      tail -= cap_;
      len = head_ - tail;
    } else {
      len = cap_ - tail;
    }
    return buf_.get() + tail;
  }
  void commit(size_t n) { size_ += n; }

  // Appends as much of s as fits; returns how many bytes were taken.
  size_t append(std::string_view s) {
    size_t taken = 0;
    for (int piece = 0; piece < 2 && taken < s.size(); ++piece) {
      size_t len;
      char* p = tail_space(len);
      size_t n = s.size() - taken < len ? s.size() - taken : len;
      if (n == 0) break;
      std::memcpy(p, s.data() + taken, n);
      commit(n);
      taken += n;
    }
    return taken;
  }

private:
  std::unique_ptr<char[]> buf_;
  size_t cap_;
  size_t head_ = 0, size_ = 0;
};

}  // namespace blaude::pty
