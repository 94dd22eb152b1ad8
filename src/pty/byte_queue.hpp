// A fixed-capacity FIFO of bytes: read(2) straight into its tail, write(2) straight from its
// head. Capacity is set once, so memory never grows with the amount of data that passes.
#pragma once
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace blaude::pty {

class ByteQueue {
public:
  explicit ByteQueue(size_t capacity) : buf_(new char[capacity]), cap_(capacity) {}

  size_t size() const { return tail_ - head_; }
  bool empty() const { return head_ == tail_; }
  size_t capacity() const { return cap_; }
  size_t free_space() const { return cap_ - size(); }

  const char* data() const { return buf_.get() + head_; }
  void consume(size_t n) {
    head_ += n;
    if (head_ == tail_) head_ = tail_ = 0;
  }

  // Contiguous writable space at the tail (compacts first if that frees more room).
  char* tail_space(size_t& len) {
    if (head_ > 0 && cap_ - tail_ < cap_ / 2) {
      std::memmove(buf_.get(), buf_.get() + head_, size());
      tail_ -= head_;
      head_ = 0;
    }
    len = cap_ - tail_;
    return buf_.get() + tail_;
  }
  void commit(size_t n) { tail_ += n; }

  // Appends as much of s as fits; returns how many bytes were taken.
  size_t append(std::string_view s) {
    size_t len;
    char* p = tail_space(len);
    size_t n = s.size() < len ? s.size() : len;
    std::memcpy(p, s.data(), n);
    commit(n);
    return n;
  }

private:
  std::unique_ptr<char[]> buf_;
  size_t cap_;
  size_t head_ = 0, tail_ = 0;
};

}  // namespace blaude::pty
