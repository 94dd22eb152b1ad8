// The filter and the helper sink on a real libuv loop, with a real helper process: a small
// shell script standing in for xsel that records its selection argument and its stdin.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "osc52/filter.hpp"

using namespace blaude::osc52;

namespace {

struct Fixture {
  std::string dir, log, tool;
  uv_loop_t loop{};

  Fixture() {
    char tmpl[] = "/tmp/blaude-osc52-sink.XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    dir = tmpl;
    log = dir + "/log";
    tool = dir + "/fake-xsel";
    // "hang" never finishes (the timeout must kill it); anything else is recorded.
    std::ofstream(tool) << "#!/bin/sh\n"
                           "t=$(cat)\n"
                           "[ \"$t\" = hang ] && exec sleep 60\n"
                           "printf '%s:%s\\n' \"$1\" \"$t\" >> '" << log << "'\n";
    chmod(tool.c_str(), 0755);
    uv_loop_init(&loop);
  }
  ~Fixture() {
    unlink(log.c_str());
    unlink(tool.c_str());
    rmdir(dir.c_str());
  }
  Config config(uint64_t timeout_ms = 10000) {
    Config c;
    c.backend = {Tool::Xsel, tool};
    c.helper_timeout_ms = timeout_ms;
    return c;
  }
  std::string feed(blaude::pty::OutputFilter& f, const std::string& in) {
    std::string out;
    f.feed(in, uv_now(&loop), out);
    return out;
  }
  // Runs the loop to completion, as the session does after destroying the filter; every
  // handle the sink opened must be closed by then.
  void drain() {
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&loop) == 0);
  }
  std::string recorded() {
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

}  // namespace

TEST_CASE("osc52 sink: copies reach the helper, in order, one per selection", "[osc52]") {
  Fixture fx;
  {
    auto f = make_filter(&fx.loop, fx.config());
    CHECK(fx.feed(*f, "a\x1b]52;cp;aGk=\ab") == "ab");  // "hi" to CLIPBOARD and PRIMARY
  }
  fx.drain();
  CHECK(fx.recorded() == "--clipboard:hi\n--primary:hi\n");
}

TEST_CASE("osc52 sink: a burst keeps the last copy", "[osc52]") {
  Fixture fx;
  {
    auto f = make_filter(&fx.loop, fx.config());
    // one, two, three, four: "one" starts at once; the others arrive while it runs.
    fx.feed(*f, "\x1b]52;c;b25l\a\x1b]52;c;dHdv\a\x1b]52;c;dGhyZWU=\a\x1b]52;c;Zm91cg==\a");
  }
  fx.drain();
  CHECK(fx.recorded() == "--clipboard:one\n--clipboard:four\n");
}

TEST_CASE("osc52 sink: refused requests never start a helper", "[osc52]") {
  Fixture fx;
  {
    auto f = make_filter(&fx.loop, fx.config());
    CHECK(fx.feed(*f, "\x1b]52;c;?\a\x1b]52;c;@@@\a\x1b]52;0;aGk=\a") == "");
  }
  fx.drain();
  CHECK(fx.recorded() == "");
  // Control: the same fixture does record a valid copy.
  Fixture ok;
  {
    auto f = make_filter(&ok.loop, ok.config());
    ok.feed(*f, "\x1b]52;c;aGk=\a");
  }
  ok.drain();
  CHECK(ok.recorded() == "--clipboard:hi\n");
}

TEST_CASE("osc52 sink: a hung helper is killed after the timeout", "[osc52]") {
  Fixture fx;
  auto t0 = std::chrono::steady_clock::now();
  {
    auto f = make_filter(&fx.loop, fx.config(300));
    fx.feed(*f, "\x1b]52;c;aGFuZw==\a");  // "hang"
    fx.feed(*f, "\x1b]52;c;YWZ0ZXI=\a");  // "after": waits for the hung one, then runs
  }
  fx.drain();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(secs >= 0.3);
  CHECK(secs < 30);  // the helper sleeps 60 s unless it is killed
  CHECK(fx.recorded() == "--clipboard:after\n");
}

TEST_CASE("osc52 sink: a tool that cannot start is logged and skipped", "[osc52]") {
  Fixture fx;
  Config c = fx.config();
  c.backend.path = fx.dir + "/does-not-exist";
  {
    auto f = make_filter(&fx.loop, c);
    CHECK(fx.feed(*f, "x\x1b]52;c;aGk=\ay\x1b]52;p;aGk=\a") == "xy");
  }
  fx.drain();
  CHECK(fx.recorded() == "");
}
