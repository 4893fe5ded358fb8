/*===- sgemm_openblas.c - time OpenBLAS cblas_sgemm on N x N ------------===*
 *
 * sgemm_openblas N [--iters N] [--warmup N]
 *
 * C = A * B, row-major, no transposes, alpha 1, beta 0 (the same product as
 * kiln's MatMul benchmark model). The thread count is OpenBLAS's own:
 * OPENBLAS_NUM_THREADS (or --threads, which calls openblas_set_num_threads).
 * Prints OpenBLAS's build configuration, then the core type it selected and
 * the median/min/max of `iters` timed calls after `warmup` untimed ones:
 *   config OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64
 *   openblas core=Haswell threads=1 n=512 median=... ms min=... ms max=... ms
 *gflops=...
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 199309L
#include <cblas.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static float *random_matrix(int n, unsigned seed) {
  float *m = aligned_alloc(64, ((size_t)n * n * sizeof(float) + 63) / 64 * 64);
  if (!m)
    return NULL;
  for (size_t i = 0; i < (size_t)n * n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    m[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  return m;
}

int main(int argc, char **argv) {
  int n = 0, iters = 20, warmup = 3, threads = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
      warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (argv[i][0] != '-' && n == 0)
      n = atoi(argv[i]);
    else {
      fprintf(stderr, "usage: sgemm_openblas N [--iters N] [--warmup N] "
                      "[--threads N]\n");
      return 2;
    }
  }
  if (n < 1 || iters < 1 || warmup < 0) {
    fprintf(stderr, "sgemm_openblas: bad arguments\n");
    return 2;
  }
  if (threads > 0)
    openblas_set_num_threads(threads);
  float *a = random_matrix(n, 1), *b = random_matrix(n, 2),
        *c = random_matrix(n, 3);
  double *times = calloc((size_t)iters, sizeof *times);
  if (!a || !b || !c || !times) {
    fprintf(stderr, "sgemm_openblas: out of memory\n");
    return 1;
  }
  for (int i = 0; i < warmup + iters; ++i) {
    double t0 = now_s();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n,
                b, n, 0.0f, c, n);
    if (i >= warmup)
      times[i - warmup] = now_s() - t0;
  }
  qsort(times, (size_t)iters, sizeof *times, cmp_double);
  double median = iters % 2 ? times[iters / 2]
                            : 0.5 * (times[iters / 2 - 1] + times[iters / 2]);
  double flops = 2.0 * n * (double)n * n;
  printf("config %s\n", openblas_get_config());
  printf("openblas core=%s threads=%d n=%d median=%.3f ms min=%.3f ms "
         "max=%.3f ms gflops=%.2f check=%g\n",
         openblas_get_corename(), openblas_get_num_threads(), n, median * 1e3,
         times[0] * 1e3, times[iters - 1] * 1e3, flops / median * 1e-9,
         (double)c[(size_t)n * n / 2]);
  free(a), free(b), free(c), free(times);
  return 0;
}
