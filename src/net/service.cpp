#include "net/service.hpp"

#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <uv.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "net/live_control.hpp"
#include "net/publish.hpp"
#include "net/relay_channel.hpp"
#include "common/platform.hpp"

namespace blaude::net {

struct Service::Impl {
  uv_loop_t loop{};
  uv_async_t stop_async{};
  std::unique_ptr<Proxy> proxy;
  std::unique_ptr<RelayChannel> channel;
  std::unique_ptr<Publisher> publisher;
  std::unique_ptr<LiveControl> live;
  std::vector<std::string> live_allowed;
  ReadScratch scratch;
  std::thread thread;
  std::string summary;
  ProxyStats stats;
  bool running = false;
  std::mutex mu;
  std::condition_variable cv;
  bool loop_done = false, shut = false;

  // On the loop's thread: close everything; uv_run returns when the last handle is closed.
  void shut_down() {
    summary = proxy->refusals().summary_line();
    stats = proxy->stats();
    live_allowed = proxy->allowed_live();
    proxy->on_decision = nullptr;
    if (live) live->close([] {});
    proxy->close();
    if (publisher) publisher->close([] {});
    channel->close({});
    uv_close(reinterpret_cast<uv_handle_t*>(&stop_async), nullptr);
    std::lock_guard<std::mutex> g(mu);
    shut = true;
    cv.notify_all();
  }
};

std::variant<std::unique_ptr<Service>, std::string> Service::start(ServiceConfig cfg) {
  std::unique_ptr<Service> s(new Service);
  s->impl_ = std::make_unique<Impl>();
  Impl& m = *s->impl_;
  uv_loop_init(&m.loop);
  m.proxy = std::make_unique<Proxy>(&m.loop, std::move(cfg.policy), cfg.limits);
  m.channel = std::make_unique<RelayChannel>(&m.loop, cfg.control_fd, m.proxy.get());
  uv_async_init(&m.loop, &m.stop_async, [](uv_async_t* a) { static_cast<Impl*>(a->data)->shut_down(); });
  m.stop_async.data = &m;
  auto abandon = [&m](std::string err) -> std::variant<std::unique_ptr<Service>, std::string> {
    m.shut_down();
    uv_run(&m.loop, UV_RUN_DEFAULT);
    uv_loop_close(&m.loop);
    return err;
  };
  if (cfg.control_fd < 0) return abandon("no control channel for the relay");
  if (int rc = m.channel->start(); rc != 0)
    return abandon(std::string("cannot watch the relay's control channel: ") + uv_strerror(rc));
  // A port `blaude net allow` names is captured from then on (the relay ignores it without capture).
  RelayChannel* ch = m.channel.get();
  m.proxy->on_port = [ch](uint16_t port) { ch->send(ChannelKind::Capture, port, {}); };
  if (!cfg.publish.empty()) {
    m.publisher = std::make_unique<Publisher>(&m.loop, m.channel.get(), &m.scratch);
    for (uint16_t p : cfg.publish)
      if (int rc = m.publisher->listen(p); rc != 0)
        return abandon("cannot publish port " + std::to_string(p) + ": 127.0.0.1:" + std::to_string(p) + ": " +
                       uv_strerror(rc));
  }
  if (!cfg.live_socket.empty()) {
    m.live = std::make_unique<LiveControl>(&m.loop, m.proxy.get());
    if (int rc = m.live->listen(cfg.live_socket); rc != 0) {
      spdlog::warn("net: no control socket for blaude net log/allow: {}: {}", cfg.live_socket, uv_strerror(rc));
    } else {
      LiveControl* live = m.live.get();
      m.proxy->on_decision = [live](const std::string& line) { live->event(line); };
      spdlog::info("net: blaude net log/allow reach this session at {}", cfg.live_socket);
    }
  }
  // Block every signal before the thread exists: it inherits the mask.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  m.thread = std::thread([&m] {
#if BLAUDE_LINUX_CALLS
    pthread_setname_np(pthread_self(), "blaude-net");  // for ps/top and the idle benchmark
#endif
    uv_run(&m.loop, UV_RUN_DEFAULT);
    uv_loop_close(&m.loop);
    std::lock_guard<std::mutex> g(m.mu);
    m.loop_done = true;
    m.cv.notify_all();
  });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  m.running = true;
  spdlog::info("net: proxy serving the relay's control channel (fd {})", cfg.control_fd);
  return s;
}

void Service::stop() {
  if (!impl_ || !impl_->running) return;
  impl_->running = false;
  uv_async_send(&impl_->stop_async);
  // Every handle closes at once; only a name lookup still running on libuv's thread pool can
  // keep the loop alive (up to the resolver's own timeout). blaude does not wait for that: the
  // thread is left to finish on its own and its state is never freed.
  std::unique_lock<std::mutex> lk(impl_->mu);
  impl_->cv.wait(lk, [this] { return impl_->shut; });
  summary_ = impl_->summary;
  stats_ = impl_->stats;
  live_ = impl_->live_allowed;
  bool done = impl_->cv.wait_for(lk, std::chrono::milliseconds(500), [this] { return impl_->loop_done; });
  lk.unlock();
  if (done) {
    impl_->thread.join();
  } else {
    spdlog::info("net: a name lookup is still running; not waiting for it");
    impl_->thread.detach();
    (void)impl_.release();
  }
  spdlog::info("net: proxy stopped: {} allowed, {} refused, {} failed, {} over the connection limit",
               stats_.allowed, stats_.refused, stats_.failed, stats_.over_limit);
}

Service::~Service() { stop(); }

std::string Service::summary_line() const { return summary_; }
ProxyStats Service::stats() const { return stats_; }

}  // namespace blaude::net
