#include "broker/server.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>

#include "common/platform.hpp"
#include "common/shown.hpp"

namespace blaude::broker {

namespace {
constexpr size_t kReadChunk = 64 * 1024;
}

struct Broker::Impl {
  struct Listener;
  struct Client {
    Impl* m;
    Listener* l;
    uv_pipe_t pipe{};
    std::unique_ptr<Conversation> conv;
    std::string in;
    uint64_t started = 0;  // uv_now when the message being read began (0: none pending)
    bool closing = false;
    std::list<std::unique_ptr<Client>>::iterator pos;
  };
  struct Listener {
    Impl* m;
    std::unique_ptr<Service> service;
    uv_pipe_t pipe{};
    std::string path;
    bool open = false;
  };

  uv_loop_t loop{};
  uv_async_t stop_async{};
  uv_timer_t tick{};
  Limits limits;
  std::vector<std::unique_ptr<Listener>> listeners;
  std::list<std::unique_ptr<Client>> clients;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool running = false, done = false;
  char scratch[kReadChunk];

  static void on_connection(uv_stream_t* server, int status) {
    auto* l = static_cast<Listener*>(server->data);
    Impl* m = l->m;
    if (status != 0) return;
    if (m->clients.size() >= m->limits.max_clients) {
      auto* extra = new uv_pipe_t{};
      uv_pipe_init(&m->loop, extra, 0);
      uv_accept(server, reinterpret_cast<uv_stream_t*>(extra));
      uv_close(reinterpret_cast<uv_handle_t*>(extra), [](uv_handle_t* h) { delete reinterpret_cast<uv_pipe_t*>(h); });
      spdlog::warn("broker: {}: {} clients already; one more closed", l->service->name(), m->limits.max_clients);
      return;
    }
    m->clients.push_back(std::make_unique<Client>());
    Client* c = m->clients.back().get();
    c->m = m;
    c->l = l;
    c->pos = std::prev(m->clients.end());
    uv_pipe_init(&m->loop, &c->pipe, 0);
    c->pipe.data = c;
    if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&c->pipe)) != 0) return m->drop(c);
    c->conv = l->service->open();
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&c->pipe),
        [](uv_handle_t* h, size_t, uv_buf_t* buf) {
          auto* c = static_cast<Client*>(h->data);
          *buf = uv_buf_init(c->m->scratch, sizeof c->m->scratch);
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
          auto* c = static_cast<Client*>(s->data);
          if (n < 0) return c->m->drop(c);
          if (n > 0) c->m->received(c, std::string_view(buf->base, size_t(n)));
        });
  }

  void received(Client* c, std::string_view bytes) {
    if (c->closing) return;
    if (c->in.empty()) c->started = uv_now(&loop);
    c->in.append(bytes);
    const std::string name = c->l->service->name();
    for (;;) {
      auto f = next_frame(c->in, c->l->service->max_message());
      if (std::holds_alternative<NeedMore>(f)) break;
      if (auto* e = std::get_if<Malformed>(&f)) {
        spdlog::warn("broker: {}: closed a client: {}", name, shown(e->why));
        return drop(c);
      }
      const Frame fr = std::get<Frame>(f);
      std::optional<std::string> reply = c->conv->answer(fr.body);
      if (!reply) return drop(c);  // the service logged why
      c->in.erase(0, fr.consumed);
      c->started = c->in.empty() ? 0 : uv_now(&loop);
      if (!send(c, frame(*reply))) return;
    }
    // Unanswered bytes are at most one message in progress (next_frame bounds it).
  }

  bool send(Client* c, std::string bytes) {
    if (uv_stream_get_write_queue_size(reinterpret_cast<uv_stream_t*>(&c->pipe)) > limits.max_backlog) {
      spdlog::warn("broker: {}: a client leaves its answers unread; dropped", c->l->service->name());
      drop(c);
      return false;
    }
    struct Req {
      uv_write_t w{};
      std::string bytes;
    };
    auto* r = new Req{{}, std::move(bytes)};
    r->w.data = r;
    uv_buf_t b = uv_buf_init(r->bytes.data(), unsigned(r->bytes.size()));
    int rc = uv_write(&r->w, reinterpret_cast<uv_stream_t*>(&c->pipe), &b, 1,
                      [](uv_write_t* w, int) { delete static_cast<Req*>(w->data); });
    if (rc != 0) {
      delete r;
      drop(c);
      return false;
    }
    return true;
  }

  void drop(Client* c) {
    if (c->closing) return;
    c->closing = true;
    uv_close(reinterpret_cast<uv_handle_t*>(&c->pipe), [](uv_handle_t* h) {
      auto* c = static_cast<Client*>(h->data);
      c->m->clients.erase(c->pos);
    });
  }

  static void on_tick(uv_timer_t* t) {
    auto* m = static_cast<Impl*>(t->data);
    const uint64_t now = uv_now(&m->loop);
    for (auto& c : m->clients)
      if (!c->closing && c->started != 0 && now - c->started >= m->limits.message_ms) {
        spdlog::info("broker: {}: a client left a message unfinished for {} ms; closed", c->l->service->name(),
                     m->limits.message_ms);
        m->drop(c.get());
      }
  }

  // On the loop's thread.
  void shut_down() {
    for (auto& l : listeners)
      if (l->open) {
        ::unlink(l->path.c_str());
        uv_close(reinterpret_cast<uv_handle_t*>(&l->pipe), nullptr);
        l->open = false;
      }
    for (auto& c : clients) drop(c.get());
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&tick))) uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&stop_async)))
      uv_close(reinterpret_cast<uv_handle_t*>(&stop_async), nullptr);
  }
};

std::variant<std::unique_ptr<Broker>, std::string> Broker::start(const std::string& dir,
                                                                std::vector<std::unique_ptr<Service>> services,
                                                                Limits limits) {
  std::unique_ptr<Broker> b(new Broker);
  b->impl_ = std::make_unique<Impl>();
  Impl& m = *b->impl_;
  m.limits = limits;
  uv_loop_init(&m.loop);
  uv_async_init(&m.loop, &m.stop_async, [](uv_async_t* a) { static_cast<Impl*>(a->data)->shut_down(); });
  m.stop_async.data = &m;
  uv_timer_init(&m.loop, &m.tick);
  m.tick.data = &m;
  const uint64_t every = std::max<uint64_t>(limits.message_ms / 4, 10);
  uv_timer_start(&m.tick, Impl::on_tick, every, every);
  auto abandon = [&m](std::string err) -> std::variant<std::unique_ptr<Broker>, std::string> {
    m.shut_down();
    uv_run(&m.loop, UV_RUN_DEFAULT);
    uv_loop_close(&m.loop);
    return err;
  };
  for (auto& s : services) {
    auto l = std::make_unique<Impl::Listener>();
    l->m = &m;
    l->path = dir + "/" + s->name();
    l->service = std::move(s);
    l->service->attach(&m.loop);
    uv_pipe_init(&m.loop, &l->pipe, 0);
    l->pipe.data = l.get();
    l->open = true;
    Impl::Listener* lp = l.get();
    m.listeners.push_back(std::move(l));
    int rc = uv_pipe_bind(&lp->pipe, lp->path.c_str());
    // The directory is 0700 already; the socket too, so that a wider directory later changes nothing.
    if (rc == 0 && ::chmod(lp->path.c_str(), 0600) != 0) rc = uv_translate_sys_error(errno);
    if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&lp->pipe), 16, Impl::on_connection);
    if (rc != 0) return abandon("cannot listen at " + lp->path + ": " + uv_strerror(rc));
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  m.thread = std::thread([&m] {
#if BLAUDE_LINUX_CALLS
    pthread_setname_np(pthread_self(), "blaude-broker");
#endif
    uv_run(&m.loop, UV_RUN_DEFAULT);
    uv_loop_close(&m.loop);
  });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  m.running = true;
  return b;
}

void Broker::stop() {
  if (!impl_ || !impl_->running) return;
  impl_->running = false;
  uv_async_send(&impl_->stop_async);
  impl_->thread.join();
}

Broker::~Broker() { stop(); }

std::vector<std::string> Broker::summary() const {
  std::vector<std::string> out;
  if (!impl_) return out;
  for (const auto& l : impl_->listeners)
    for (auto& line : l->service->summary())
      if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace blaude::broker
