// early_spawn: what starting bwrap before the probe would save (a start-up lever, measured
// before anyone restructures the launch for it). bwrap reads its options from `--args FD` until
// EOF; with FD a pipe, bwrap can be exec'd first, load its libraries and set up its CPU features
// (0.8-1.0 ms from its exec to its argument parsing on the test VM) while the launcher is still
// working, and only then receive its options. Two modes, alternating run by run:
//   serial: the launcher's work, then the options into a memfd, then bwrap (blaude today);
//   early:  bwrap first on a pipe, then the launcher's work, then the options into the pipe.
// The launcher's work is simulated: NSTAT failing stat() calls and CPU_US of computation on the
// main thread (blaude's probe and plan); with SCAN_US > 0 a second thread does SCAN_NSTAT stats and
// SCAN_US of computation meanwhile (blaude's workspace scan), which competes for the second CPU.
// Each run is timed from before the launcher's work to bwrap's exit (its command: /usr/bin/true).
// Usage: early_spawn RUNS ARGSFILE NSTAT CPU_US SCAN_NSTAT SCAN_US
//   ARGSFILE: bwrap's options, NUL-separated, no descriptors (bench/early_spawn.py makes it from
//   blaude's --dry-run). Prints the medians and the median of the per-pair ratios early / serial.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char opts[1 << 20];
static ssize_t opts_len;
static int nstat, cpu_us, scan_nstat, scan_us;
static volatile unsigned long sink;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void work(int n, int us) {
  struct stat st;
  char p[64];
  for (int i = 0; i < n; i++) {
    snprintf(p, sizeof p, "/nonexistent-early-spawn/%d", i);
    (void)stat(p, &st);
  }
  double end = now_ms() + us / 1000.0;
  while (now_ms() < end) sink++;
}

static void* scan(void* arg) {
  (void)arg;
  work(scan_nstat, scan_us);
  return NULL;
}

// bwrap --args FD -- /usr/bin/true, FD kept across the exec (everything else close-on-exec).
static pid_t spawn(int fd) {
  char n[16];
  snprintf(n, sizeof n, "%d", fd);
  char* argv[] = {"bwrap", "--args", n, "--", "/usr/bin/true", NULL};
  char* envp[] = {NULL};
  pid_t p = vfork();
  if (p == 0) {
    fcntl(fd, F_SETFD, 0);
    execve("/usr/bin/bwrap", argv, envp);
    _exit(127);
  }
  return p;
}

static int write_all(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static double one(int early) {
  double t0 = now_ms();
  pthread_t th = 0;
  if (scan_us > 0 || scan_nstat > 0) pthread_create(&th, NULL, scan, NULL);
  pid_t pid;
  if (early) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    (void)fcntl(p[1], F_SETPIPE_SZ, (int)(opts_len > 65536 ? opts_len : 65536));
    pid = spawn(p[0]);
    close(p[0]);
    work(nstat, cpu_us);
    if (write_all(p[1], opts, (size_t)opts_len) != 0) return -1;
    close(p[1]);
  } else {
    work(nstat, cpu_us);
    int m = memfd_create("early-spawn-args", MFD_CLOEXEC);
    if (m < 0 || write_all(m, opts, (size_t)opts_len) != 0 || lseek(m, 0, SEEK_SET) != 0) return -1;
    pid = spawn(m);
    close(m);
  }
  if (scan_us > 0 || scan_nstat > 0) pthread_join(th, NULL);
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "early_spawn: bwrap failed (status %d): check the options file\n", st);
    exit(1);
  }
  return now_ms() - t0;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: early_spawn RUNS ARGSFILE NSTAT CPU_US SCAN_NSTAT SCAN_US\n");
    return 2;
  }
  int runs = atoi(argv[1]);
  int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
  if (runs < 1 || runs > 100000 || fd < 0) {
    fprintf(stderr, "early_spawn: bad RUNS or unreadable %s\n", argv[2]);
    return 2;
  }
  opts_len = read(fd, opts, sizeof opts);
  close(fd);
  if (opts_len <= 0 || opts_len == (ssize_t)sizeof opts) {
    fprintf(stderr, "early_spawn: %s is empty or over 1 MiB\n", argv[2]);
    return 2;
  }
  nstat = atoi(argv[3]);
  cpu_us = atoi(argv[4]);
  scan_nstat = atoi(argv[5]);
  scan_us = atoi(argv[6]);
  double* s = calloc((size_t)runs, sizeof *s);
  double* e = calloc((size_t)runs, sizeof *e);
  double* r = calloc((size_t)runs, sizeof *r);
  one(0);
  one(1);  // warm-up
  for (int i = 0; i < runs; i++) {
    if (i % 2 == 0) {
      s[i] = one(0);
      e[i] = one(1);
    } else {
      e[i] = one(1);
      s[i] = one(0);
    }
    r[i] = e[i] / s[i];
  }
  qsort(s, (size_t)runs, sizeof *s, cmp);
  qsort(e, (size_t)runs, sizeof *e, cmp);
  qsort(r, (size_t)runs, sizeof *r, cmp);
  printf("serial %.3f ms, early %.3f ms, early/serial median of pairs %.3f (quartiles %.3f-%.3f), %d pairs\n",
         s[runs / 2], e[runs / 2], r[runs / 2], r[runs / 4], r[3 * runs / 4], runs);
  return 0;
}
