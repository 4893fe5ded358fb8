/*===- core_latency.c - round trip of a cache line between two cores -----===*
 *
 * core_latency [CPU_A CPU_B] [--rounds N]
 *
 * Two threads pinned to CPU_A and CPU_B (default 0 and 1) pass a counter
 * back and forth through one cache line; the mean round trip is printed in
 * nanoseconds. Every parallel loop of kiln_rt pays a few of these (the job
 * posted, the chunks reported done), and so does every tensor one core
 * writes and the other reads. On a virtual machine the host may place two
 * vCPUs on cores of one cache complex (under 100 ns on a Zen 5) or of two
 * (about 400 ns), and can move them while a benchmark runs: two-thread
 * timings are comparable only between runs that saw the same placement.
 *
 * Output: round_trip_ns=T cpus=A,B rounds=N
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Alignas(64) volatile long line;
static long rounds = 200000;
static int cpu_b = 1;

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *responder(void *arg) {
  (void)arg;
  void *status = pin(cpu_b) != 0 ? (void *)1 : NULL;
  for (long i = 0; i < rounds; ++i) {
    while (line != 2 * i + 1)
      ;
    line = 2 * i + 2;
  }
  return status;
}

int main(int argc, char **argv) {
  int cpu_a = 0, positional = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atol(argv[++i]);
    } else if (positional < 2) {
      int v = atoi(argv[i]);
      if (positional++ == 0)
        cpu_a = v;
      else
        cpu_b = v;
    } else {
      fprintf(stderr, "usage: core_latency [CPU_A CPU_B] [--rounds N]\n");
      return 2;
    }
  }
  cpu_set_t allowed;
  if (rounds <= 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return 1;
  for (int k = 0; k < 2; ++k) {
    int cpu = k == 0 ? cpu_a : cpu_b;
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
      fprintf(stderr, "core_latency: CPU %d is not available\n", cpu);
      return 1;
    }
  }
  if (cpu_a == cpu_b || pin(cpu_a) != 0) {
    fprintf(stderr, "core_latency: needs two different CPUs\n");
    return 1;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, responder, NULL) != 0)
    return 1;
  struct timespec begin, end;
  clock_gettime(CLOCK_MONOTONIC, &begin);
  for (long i = 0; i < rounds; ++i) {
    line = 2 * i + 1;
    while (line != 2 * i + 2)
      ;
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  void *failed = NULL;
  pthread_join(t, &failed);
  if (failed) {
    fprintf(stderr, "core_latency: cannot run on CPU %d\n", cpu_b);
    return 1;
  }
  double ns = ((double)(end.tv_sec - begin.tv_sec) * 1e9 +
               (double)(end.tv_nsec - begin.tv_nsec)) /
              (double)rounds;
  printf("round_trip_ns=%.1f cpus=%d,%d rounds=%ld\n", ns, cpu_a, cpu_b,
         rounds);
  return 0;
}
