// The pure parts of the asciinema guard: /proc parsers, recorder identification, the decision.
#include <csignal>
#include <string>

#include "asciinema/decide.hpp"
#include "asciinema/detect.hpp"
#include "asciinema/procinfo.hpp"
#include "catch.hpp"

using namespace blaude::asciinema;
using namespace std::string_literals;

namespace {

ProcInfo proc(pid_t pid, std::string comm, pid_t ppid, pid_t pgrp, pid_t sid, pid_t tpgid,
              std::vector<std::string> argv = {}, char state = 'S') {
  ProcInfo p;
  p.stat.pid = pid;
  p.stat.comm = std::move(comm);
  p.stat.ppid = ppid;
  p.stat.pgrp = pgrp;
  p.stat.session = sid;
  p.stat.tpgid = tpgid;
  p.stat.state = state;
  p.argv = std::move(argv);
  p.status = ProcStatus{1000, 0, 0, 0};
  return p;
}

}  // namespace

TEST_CASE("parse_stat reads the fields around an awkward comm", "[asciinema]") {
  auto st = parse_stat("4242 (a) b (c)) T 17 4242 99 34817 4242 4194560 0 0\n");
  REQUIRE(st);
  CHECK(st->pid == 4242);
  CHECK(st->comm == "a) b (c)");
  CHECK(st->state == 'T');
  CHECK(st->ppid == 17);
  CHECK(st->pgrp == 4242);
  CHECK(st->session == 99);
  CHECK(st->tty_nr == 34817);
  CHECK(st->tpgid == 4242);

  auto bg = parse_stat("7 (bash) S 1 7 7 0 -1 4194304");
  REQUIRE(bg);
  CHECK(bg->tpgid == -1);

  for (const char* bad : {"", "12 bash S 1 2 3 4 5", "x (a) S 1 2 3 4 5", "12 (a) S 1 2 3",
                          "12 (a) SS 1 2 3 4 5", "12 (a) S one 2 3 4 5"}) {
    INFO(bad);
    CHECK_FALSE(parse_stat(bad));
  }
}

TEST_CASE("parse_status reads the uid and signal masks", "[asciinema]") {
  auto s = parse_status("Name:\tasciinema\nUid:\t1000\t1000\t1000\t1000\nSigBlk:\t0000000000000000\n"
                        "SigIgn:\t0000000001001000\nSigCgt:\t0000000180014a03\n");
  REQUIRE(s);
  CHECK(s->uid == 1000);
  CHECK(s->sig_ign == 0x1001000);
  CHECK(s->sig_cgt == 0x180014a03);
  CHECK_FALSE(parse_status("Name:\tx\n"));             // no Uid
  CHECK_FALSE(parse_status("Uid:\tabc\t0\t0\t0\n"));  // garbage
}

TEST_CASE("split_nul and env_value", "[asciinema]") {
  CHECK(split_nul("python3\0/usr/bin/asciinema\0rec\0"s) ==
        std::vector<std::string>{"python3", "/usr/bin/asciinema", "rec"});
  CHECK(split_nul("").empty());
  auto env = split_nul("A=1\0ASCIINEMA_REC=1\0ASCIINEMA_RECX=2\0"s);
  CHECK(env_value(env, "ASCIINEMA_REC") == "1");
  CHECK(env_value(env, "ASCIINEMA_RECX") == "2");
  CHECK_FALSE(env_value(env, "ASCIINEMA"));
}

TEST_CASE("the asciinema 3 session id is FNV-1a-128 of the decimal pid", "[asciinema]") {
  CHECK(fnv1a128_hex("") == "6c62272e07bb014262b821756295c58d");  // the offset basis
  CHECK(fnv1a128_hex("a") == "d228cb696f1a8caf78912b704e4a8964");
  CHECK(fnv1a128_hex("12345") == "f8e34f8da83d94f7080be242e232050");  // 31 digits
  CHECK(session_id_matches("f8e34f8da83d94f7080be242e232050", 12345));
  CHECK(session_id_matches("0F8E34F8DA83D94F7080BE242E232050", 12345));
  CHECK_FALSE(session_id_matches("f8e34f8da83d94f7080be242e232050", 12346));
  CHECK_FALSE(session_id_matches("", 12345));
}

TEST_CASE("looks_like_asciinema: v2 script, python -m, v3 binary; not lookalikes", "[asciinema]") {
  CHECK(looks_like_asciinema(proc(1, "asciinema", 0, 1, 1, 1, {"/usr/bin/python3", "/usr/bin/asciinema", "rec"})));
  CHECK(looks_like_asciinema(proc(1, "python3", 0, 1, 1, 1, {"python3", "-m", "asciinema", "rec"})));
  CHECK(looks_like_asciinema(proc(1, "python3.11", 0, 1, 1, 1, {"/usr/bin/python3.11", "-I", "/home/u/.local/bin/asciinema", "rec"})));
  CHECK(looks_like_asciinema(proc(1, "asciinema", 0, 1, 1, 1, {"asciinema", "rec"})));
  CHECK_FALSE(looks_like_asciinema(proc(1, "python3", 0, 1, 1, 1, {"python3", "script.py", "asciinema"})));
  CHECK_FALSE(looks_like_asciinema(proc(1, "python3", 0, 1, 1, 1, {"python3", "-m", "http.server"})));
  CHECK_FALSE(looks_like_asciinema(proc(1, "bash", 0, 1, 1, 1, {"bash", "-c", "asciinema rec"})));
}

TEST_CASE("find_recorder walks the ancestors and checks the session leader", "[asciinema]") {
  // blaude (parent: sh 30) <- asciinema 20 <- bash 10
  Snapshot snap;
  snap.ancestors = {proc(30, "sh", 20, 30, 30, 30), proc(20, "asciinema", 10, 20, 5, 20),
                    proc(10, "bash", 1, 10, 5, 20)};
  snap.leader_ppid = 20;
  RecorderEnv v2{"1"s, std::nullopt};

  SECTION("v2 by name") {
    Detection d = find_recorder(snap, v2);
    REQUIRE(d.recorder);
    CHECK(d.recorder->stat.pid == 20);
    REQUIRE(d.parent);
    CHECK(d.parent->stat.pid == 10);
  }
  SECTION("not recording") {
    CHECK_FALSE(find_recorder(snap, {}).recorder);
    CHECK_FALSE(find_recorder(snap, {"0"s, std::nullopt}).recorder);
  }
  SECTION("v3 by session id, whatever the name") {
    snap.ancestors[1].stat.comm = "rec-wrapper";
    RecorderEnv v3{"1"s, fnv1a128_hex("20")};
    CHECK(find_recorder(snap, v3).recorder->stat.pid == 20);
    RecorderEnv wrong{"1"s, fnv1a128_hex("21")};
    CHECK_FALSE(find_recorder(snap, wrong).recorder);
  }
  SECTION("an asciinema that does not own blaude's terminal is not used") {
    snap.leader_ppid = 999;  // e.g. blaude runs in a tmux pane started inside a recording
    Detection d = find_recorder(snap, v2);
    CHECK_FALSE(d.recorder);
    CHECK(d.reason.find("does not own") != std::string::npos);
  }
  SECTION("no asciinema among the ancestors") {
    snap.ancestors.erase(snap.ancestors.begin() + 1);
    CHECK_FALSE(find_recorder(snap, v2).recorder);
  }
}

TEST_CASE("decide: pause only where a stop cannot be noticed or undone", "[asciinema]") {
  Facts f;
  f.uid = 1000;
  f.terminal_ok = true;
  // asciinema 20 in pgrp 20, session 5, foreground of its terminal.
  f.recorder = proc(20, "asciinema", 10, 20, 5, 20);

  SECTION("job-control shell in the same session: mute") {
    f.parent = proc(10, "bash", 1, 10, 5, 20);
    Decision d = decide(f);
    CHECK(d.mode == Mode::Mute);
    CHECK(d.reason.find("as a job") != std::string::npos);
  }
  SECTION("shell without job control (same process group): pause") {
    f.recorder->stat.pgrp = 10;
    f.recorder->stat.tpgid = 10;
    f.parent = proc(10, "bash", 1, 10, 5, 10);
    CHECK(decide(f).mode == Mode::Pause);
  }
  SECTION("started by a terminal emulator in another session: pause") {
    f.recorder->stat.session = 20;
    f.parent = proc(10, "xterm", 1, 10, 10, -1);
    CHECK(decide(f).mode == Mode::Pause);
  }
  SECTION("started by tmux, which continues stopped panes: mute") {
    f.recorder->stat.session = 20;
    f.parent = proc(10, "tmux: server", 1, 10, 10, -1);
    Decision d = decide(f);
    CHECK(d.mode == Mode::Mute);
    CHECK(d.reason.find("resumes stopped children") != std::string::npos);
  }
  SECTION("unknown parent: mute") {
    f.parent.reset();
    CHECK(decide(f).mode == Mode::Mute);
  }
  SECTION("nothing at all") {
    f.parent = proc(10, "xterm", 1, 10, 10, -1);
    Facts g = f;
    g.disabled = true;
    CHECK(decide(g).mode == Mode::None);
    CHECK(decide(g).reason.find("--no-asciinema") != std::string::npos);
    g = f;
    g.recorder.reset();
    g.detect_reason = "not recording";
    CHECK(decide(g).mode == Mode::None);
    CHECK(decide(g).reason == "not recording");
    g = f;
    g.terminal_ok = false;
    g.terminal_problem = "cannot open";
    CHECK(decide(g).mode == Mode::None);
    g = f;
    g.recorder->status->uid = 0;
    CHECK(decide(g).mode == Mode::None);
    g = f;
    g.recorder->stat.state = 'T';
    CHECK(decide(g).mode == Mode::None);
    g = f;
    g.recorder->stat.tpgid = 77;  // a background job
    CHECK(decide(g).mode == Mode::None);
  }
}
