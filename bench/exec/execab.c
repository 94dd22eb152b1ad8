// execab: two commands' process starts, A/B, alternating run by run (A,B then B,A), each spawned
// with posix_spawn and reaped with waitpid; prints each command's median wall time and the median
// (quartiles) of the per-pair ratios B / A. For the cost of starting a binary (library
// constructors that probe the CPU, say), where hyperfine would run all of A before all of B on a noisy machine.
// Usage: build/execab N CMD_A ARGS... -- CMD_B ARGS...   (absolute paths; output discarded)
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double run(char** argv, posix_spawn_file_actions_t* fa) {
  struct timespec a, b;
  pid_t p;
  int st;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (posix_spawn(&p, argv[0], fa, NULL, argv, environ) != 0) {
    fprintf(stderr, "execab: cannot run %s\n", argv[0]);
    exit(1);
  }
  waitpid(p, &st, 0);
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (!WIFEXITED(st)) {
    fprintf(stderr, "execab: %s did not exit normally\n", argv[0]);
    exit(1);
  }
  return (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
}

static int cmp(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

int main(int argc, char** argv) {
  int sep = 2;
  while (sep < argc && strcmp(argv[sep], "--") != 0) ++sep;
  int n = argc > 1 ? atoi(argv[1]) : 0;
  if (n < 1 || sep <= 2 || sep >= argc - 1) {
    fprintf(stderr, "usage: execab N CMD_A ARGS... -- CMD_B ARGS...\n");
    return 2;
  }
  argv[sep] = NULL;
  char** A = argv + 2;
  char** B = argv + sep + 1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  double* a = malloc(sizeof(double) * (size_t)n);
  double* b = malloc(sizeof(double) * (size_t)n);
  double* r = malloc(sizeof(double) * (size_t)n);
  for (int k = 0; k < n; ++k) {
    if (k & 1) {
      b[k] = run(B, &fa);
      a[k] = run(A, &fa);
    } else {
      a[k] = run(A, &fa);
      b[k] = run(B, &fa);
    }
    r[k] = b[k] / a[k];
  }
  qsort(a, (size_t)n, sizeof(double), cmp);
  qsort(b, (size_t)n, sizeof(double), cmp);
  qsort(r, (size_t)n, sizeof(double), cmp);
  printf("A median %.1f us, B median %.1f us, B/A median of pairs %.3f (quartiles %.3f-%.3f), %d pairs\n", a[n / 2],
         b[n / 2], r[n / 2], r[n / 4], r[3 * n / 4], n);
  return 0;
}
