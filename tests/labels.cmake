# Which integration tests run in which of `make test`'s runs beyond the full suite (every test
# runs in the release build's suite). tests/CMakeLists.txt turns these lists into CTest labels.

# `make check`: a maintainer's loop, at most ~5 minutes from a built tree with `ctest -j 2`. Tests
# that finish in seconds, one or more per area; the slow ones (the real Claude Code, the races,
# the install tests, the network namespace tests) are left to `make test`.
set(BLAUDE_TESTS_check
  test_cli_passthrough test_cli_doctor test_cli_wsl
  test_osc52_xclip
  test_pty_child test_pty_pipes test_pty_terminal test_pty_job_control
  test_sandbox_bad_input test_sandbox_dryrun test_sandbox_keep_env test_sandbox_tiocsti test_sandbox_hostpath
  test_sandbox_worktree
  test_self_exe test_seatbelt_plan
  test_term_bytes test_term_guard test_term_firewall test_term_xterm test_term_fence
  test_net_cli
  test_escapes_own_state test_audit_claude_key_table test_escapes_audit_journal
  test_escapes_claude_project_names test_escapes_runner_state test_sandbox_config_unmapped
  test_net_host_local test_net_fd_budget test_net_rendezvous test_escapes_syscalls test_net_live_allow
  test_net_capture test_net_capture_ssh test_ssh_agent test_osc52_standins
  test_sandbox_limits test_sandbox_selftest
)

# The sanitizer build: the host-side code that reads what the child or the agent wrote, and the
# supervisor around it. ASan/UBSan find what a release build survives by luck there; a sandbox
# test's mounts are bwrap's and the kernel's, which the sanitizer does not see.
set(BLAUDE_TESTS_asan
  test_pty_child test_pty_output test_pty_pipes test_pty_terminal test_pty_job_control
  test_term_attacks test_term_bytes test_term_guard test_term_asciinema test_term_firewall test_term_fence
  test_osc52_xclip test_asciinema_pause
  test_escapes_audit test_escapes_audit_closed test_escapes_claude test_escapes_own_state
  test_escapes_claude_allowlist test_escapes_audit_journal test_escapes_claude_project_names
  test_escapes_runner_state test_escapes_fsmonitor_window
  test_net_proxy test_net_bounds test_net_cli test_net_host_local test_net_fd_budget test_net_own_namespace
  test_net_live_allow test_ssh_agent test_osc52_standins
  test_cli_passthrough test_sandbox_bad_input test_policy_trust_gate
  test_protect_deferred test_session_sweep
)

# The POSIX-fallback build: where a fallback replaces a Linux call (pipe2, close_range, memfd,
# getdents, clone, /proc, SOCK_CLOEXEC sockets, openat2 in the audit), the tests that go through it.
set(BLAUDE_TESTS_posix
  test_pty_child test_pty_output test_pty_pipes test_pty_terminal
  test_session_sweep test_escapes_audit test_escapes_audit_closed test_escapes_claude test_escapes_audit_journal
  test_escapes_runner_state
  test_self_exe test_bwrap_fd_binds test_protect_leaf test_protect_git test_protect_worktree
  test_sandbox_dryrun test_sandbox_attacks test_net_proxy test_net_publish test_net_own_namespace test_osc52_xclip
  test_term_guard test_asciinema_pause
)

# The tests that take a minute or more, longest first, started first (CTest's cost; a fresh clone has no
# CTestCostData.txt, and one of these started last would be the run's whole tail).
set(BLAUDE_TESTS_long
  test_install_deb test_install_make test_term_claude_real test_pty_claude_real test_protect_mount_race
  test_protect_socket_race test_cli_claude_options test_protect_race test_protect_git
  test_escapes_claude test_escapes_audit test_cli_claude_real test_term_bytes test_pty_output
  test_net_claude_real test_net_proxy test_net_bounds test_net_isolation
)
