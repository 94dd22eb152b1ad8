#include "osc52/sink.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "common/data_fd.hpp"
#include "common/unique_fd.hpp"

namespace blaude::osc52 {

namespace {

struct Job {
  std::vector<std::string> argv;
  std::string text;
  Target target;
};

UniqueFd payload_fd(const std::string& text) { return data_fd("blaude-osc52", text); }

class Runner : public std::enable_shared_from_this<Runner> {
public:
  Runner(uv_loop_t* loop, Backend b, uint64_t timeout_ms)
      : loop_(loop), backend_(std::move(b)), timeout_ms_(timeout_ms) {}

  void submit(Copy c) {
    if (cur_) {
      // Busy: keep only the newest; its helper commands are built when it starts, so a flood
      // of copies costs one move each.
      if (next_) spdlog::debug("osc52: a newer copy replaces one still waiting for the helper");
      next_ = std::move(c);
      return;
    }
    queue_ = jobs_for(c);
    start_next();
  }

private:
  struct Helper {
    uv_process_t proc{};
    uv_timer_t timer{};
    int open = 0;  // handles not yet closed
    Runner* owner = nullptr;
    std::string what;
  };

  void start_next() {
    while (!queue_.empty()) {
      Job job = std::move(queue_.front());
      queue_.pop_front();
      if (spawn(job)) return;
    }
    if (next_) {
      queue_ = jobs_for(*next_);
      next_.reset();
      start_next();
      return;
    }
    // Idle: let go of ourselves (the sink may already be gone). Nothing may follow this.
    auto last = std::move(keep_);
  }

  // One job per selection the tool can set; pbcopy has one pasteboard, so duplicates go.
  std::deque<Job> jobs_for(const Copy& c) const {
    std::deque<Job> jobs;
    for (Target t : c.targets) {
      std::vector<std::string> argv = helper_argv(backend_, t, c.type);
      if (argv.empty()) {
        spdlog::info("osc52: {} cannot set {}; skipped", tool_name(backend_.tool), target_name(t));
        continue;
      }
      bool dup = false;
      for (const Job& j : jobs) dup = dup || j.argv == argv;
      if (!dup) jobs.push_back(Job{std::move(argv), c.text, t});
    }
    return jobs;
  }

  // Starts one helper; false when it could not be started (already logged).
  bool spawn(const Job& job) {
    UniqueFd in = payload_fd(job.text);
    if (!in) {
      spdlog::warn("osc52: cannot buffer the copied text: {}", std::strerror(errno));
      return false;
    }
    auto h = std::make_unique<Helper>();
    h->owner = this;
    h->what = std::string(tool_name(backend_.tool)) + " (" + target_name(job.target) + ")";
    std::vector<char*> args;
    for (const std::string& a : job.argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_INHERIT_FD;
    stdio[0].data.fd = in.get();
    stdio[1].flags = UV_IGNORE;  // libuv points ignored stdio at /dev/null
    stdio[2].flags = UV_IGNORE;
    uv_process_options_t o{};
    o.file = args[0];
    o.args = args.data();
    o.stdio = stdio;
    o.stdio_count = 3;
    // Its own session: the selection owner it forks outlives blaude and the user's terminal.
    o.flags = UV_PROCESS_DETACHED;
    o.exit_cb = [](uv_process_t* p, int64_t status, int sig) {
      static_cast<Helper*>(p->data)->owner->exited(*static_cast<Helper*>(p->data), status, sig);
    };
    h->proc.data = h.get();
    h->timer.data = h.get();
    uv_timer_init(loop_, &h->timer);
    h->open = 1;
    int rc = uv_spawn(loop_, &h->proc, &o);
    h->open = 2;  // the process handle is initialised even when uv_spawn fails
    cur_ = std::move(h);
    keep_ = shared_from_this();
    if (rc != 0) {
      spdlog::warn("osc52: cannot start {}: {}", cur_->what, uv_strerror(rc));
      close_helper();
      return true;  // the close callbacks move on to the next job
    }
    spdlog::debug("osc52: started {} (pid {}) for {} bytes", cur_->what, cur_->proc.pid,
                  job.text.size());
    uv_timer_start(&cur_->timer,
                   [](uv_timer_t* t) {
                     auto* hp = static_cast<Helper*>(t->data);
                     spdlog::warn("osc52: {} did not finish in time; killing it", hp->what);
                     uv_process_kill(&hp->proc, SIGKILL);
                   },
                   timeout_ms_, 0);
    return true;
  }

  void exited(Helper& h, int64_t status, int sig) {
    if (sig != 0) spdlog::warn("osc52: {} was killed by signal {}", h.what, sig);
    else if (status != 0) spdlog::warn("osc52: {} exited with status {}", h.what, status);
    else spdlog::info("osc52: copied via {}", h.what);
    close_helper();
  }

  void close_helper() {
    auto done = [](uv_handle_t* hd) {
      auto* hp = static_cast<Helper*>(hd->data);
      if (--hp->open == 0) hp->owner->closed();
    };
    uv_timer_stop(&cur_->timer);
    uv_close(reinterpret_cast<uv_handle_t*>(&cur_->timer), done);
    uv_close(reinterpret_cast<uv_handle_t*>(&cur_->proc), done);
  }

  void closed() {
    cur_.reset();
    start_next();  // may release the last reference to this Runner: nothing after it
  }

  uv_loop_t* loop_;
  Backend backend_;
  uint64_t timeout_ms_;
  std::deque<Job> queue_;                      // the rest of the copy being applied
  std::optional<Copy> next_;                   // the newest copy that arrived meanwhile
  std::unique_ptr<Helper> cur_;
  std::shared_ptr<Runner> keep_;  // set while a helper's handles are open
};

class HelperSink : public Sink {
public:
  HelperSink(uv_loop_t* loop, Backend b, uint64_t timeout_ms)
      : runner_(std::make_shared<Runner>(loop, std::move(b), timeout_ms)) {}
  void copy(Copy c) override { runner_->submit(std::move(c)); }

private:
  std::shared_ptr<Runner> runner_;
};

}  // namespace

std::unique_ptr<Sink> make_helper_sink(uv_loop_t* loop, Backend backend, uint64_t timeout_ms) {
  return std::make_unique<HelperSink>(loop, std::move(backend), timeout_ms);
}

}  // namespace blaude::osc52
