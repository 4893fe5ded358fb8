/*===- kiln_bench.c - time a compiled model through kiln_rt ---------------===*
 *
 * kiln_bench MODEL.so [--threads N] [--iters N] [--warmup N] [--warmup-ms T]
 *            [--flops F] [--cold]
 *
 * Fills every input with deterministic pseudo-random values (static dims
 * only; symbolic dims are taken as 1), runs `warmup` untimed iterations and
 * more until `warmup-ms` (default 100) have passed (the second core of a
 * small VM ran a 0.13 ms convolution at 0.19 ms for its first few
 * milliseconds after starting, so that 20 runs after 3 measured the ramp
 * rather than the kernel; ort_run.js warms up the same way), then
 * prints the median, min and max wall time of `iters` kiln_run calls and,
 * given the model's FLOP count, GFLOP/s at the median. With --cold, every
 * run starts with the caches holding its inputs but not its weights (64 MB
 * written and the inputs read back before it, untimed), as a layer inside a
 * model whose weights outgrow the caches finds them.
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 199309L
#include "kiln_rt.h"

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

typedef struct {
  kiln_tensor t;
  int64_t *dims;
} owned_tensor;

/* Allocates a tensor shaped like `info`; symbolic dims become 1. */
static int make_tensor(const kiln_tensor_info *info, owned_tensor *out,
                       const int64_t *given_dims) {
  out->dims =
      calloc((size_t)(info->rank > 0 ? info->rank : 1), sizeof(int64_t));
  int64_t count = 1;
  for (int32_t i = 0; i < info->rank; ++i) {
    int64_t d = given_dims ? given_dims[i] : info->dims[i];
    out->dims[i] = d < 0 ? 1 : d;
    count *= out->dims[i];
  }
  size_t elem = kiln_dtype_size(info->dtype);
  if (!out->dims || elem == 0)
    return 0;
  out->t.dtype = info->dtype;
  out->t.rank = info->rank;
  out->t.dims = out->dims;
  out->t.byte_size = (uint64_t)count * elem;
  out->t.data = aligned_alloc(64, ((size_t)count * elem + 63) / 64 * 64 + 64);
  if (!out->t.data)
    return 0;
  /* Small values in [-1, 1) whatever the dtype's width (floats only need be
   * finite; integers stay in range). */
  uint32_t state = 12345u;
  unsigned char *bytes = out->t.data;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    float v = (float)((state >> 8) & 0xffff) / 32768.0f - 1.0f;
    if (info->dtype == KILN_DTYPE_FLOAT32)
      memcpy(bytes + i * elem, &v, sizeof v);
    else {
      /* 0 or 1 as a little-endian integer: a valid index or bool. */
      memset(bytes + i * elem, 0, elem);
      bytes[i * elem] = (unsigned char)((state >> 28) & 1);
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int threads = 0, iters = 20, warmup = 3;
  double warmup_ms = 100;
  double flops = 0;
  int cold = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
      warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup-ms") && i + 1 < argc)
      warmup_ms = atof(argv[++i]);
    else if (!strcmp(argv[i], "--flops") && i + 1 < argc)
      flops = atof(argv[++i]);
    else if (!strcmp(argv[i], "--cold"))
      cold = 1;
    else if (argv[i][0] != '-' && !path)
      path = argv[i];
    else {
      fprintf(stderr, "usage: kiln_bench MODEL.so [--threads N] [--iters N] "
                      "[--warmup N] [--warmup-ms T] [--flops F] [--cold]\n");
      return 2;
    }
  }
  if (!path || iters < 1) {
    fprintf(stderr, "kiln_bench: missing model\n");
    return 2;
  }
  if (threads > 0)
    kiln_rt_set_num_threads(threads);

  /* dlopen searches the library path for names without a slash. */
  char local[4096];
  if (!strchr(path, '/') && strlen(path) + 3 < sizeof local) {
    snprintf(local, sizeof local, "./%s", path);
    path = local;
  }
  kiln_model *model;
  if (kiln_model_load(path, &model) != KILN_STATUS_OK) {
    fprintf(stderr, "kiln_bench: %s\n", kiln_last_error());
    return 1;
  }
  int64_t ni = kiln_model_num_inputs(model), no = kiln_model_num_outputs(model);
  owned_tensor *ins = calloc((size_t)ni + 1, sizeof *ins);
  owned_tensor *outs = calloc((size_t)no + 1, sizeof *outs);
  kiln_tensor *in_t = calloc((size_t)ni + 1, sizeof *in_t);
  kiln_tensor *out_t = calloc((size_t)no + 1, sizeof *out_t);
  for (int64_t i = 0; i < ni; ++i) {
    if (!make_tensor(kiln_model_input(model, i), &ins[i], NULL))
      return 1;
    in_t[i] = ins[i].t;
  }
  for (int64_t i = 0; i < no; ++i) {
    const kiln_tensor_info *info = kiln_model_output(model, i);
    int64_t dims[16];
    if (info->rank > 16 ||
        kiln_infer_output_dims(model, in_t, ni, i, dims) != KILN_STATUS_OK) {
      fprintf(stderr, "kiln_bench: %s\n", kiln_last_error());
      return 1;
    }
    for (int32_t k = 0; k < info->rank; ++k)
      if (dims[k] < 0) /* sized at run time: the run allocates it */
        dims[k] = 0;
    if (!make_tensor(info, &outs[i], dims))
      return 1;
    out_t[i] = outs[i].t;
  }
  kiln_context *ctx;
  if (kiln_context_create(model, &ctx) != KILN_STATUS_OK) {
    fprintf(stderr, "kiln_bench: %s\n", kiln_last_error());
    return 1;
  }
  double *times = calloc((size_t)iters, sizeof *times);
  size_t evict_bytes = (size_t)64 << 20;
  unsigned char *evict = cold ? malloc(evict_bytes) : NULL;
  volatile unsigned sink = 0;
  /* Untimed: `warmup` runs, then more until warmup_ms have passed; with
   * --cold the `warmup` runs below, each after its eviction, instead. */
  double warm_start = now_s();
  for (int i = 0;
       !cold &&
       (i < warmup || (i < 100000 && now_s() - warm_start < warmup_ms * 1e-3));
       ++i)
    if (kiln_run(ctx, in_t, ni, out_t, no) != KILN_STATUS_OK) {
      fprintf(stderr, "kiln_bench: %s\n", kiln_last_error());
      return 1;
    }
  for (int i = cold ? 0 : warmup; i < warmup + iters; ++i) {
    if (evict) {
      memset(evict, i & 0xff, evict_bytes);
      for (int64_t k = 0; k < ni; ++k)
        for (uint64_t b = 0; b < in_t[k].byte_size; b += 64)
          sink += ((const unsigned char *)in_t[k].data)[b];
    }
    double t0 = now_s();
    if (kiln_run(ctx, in_t, ni, out_t, no) != KILN_STATUS_OK) {
      fprintf(stderr, "kiln_bench: %s\n", kiln_last_error());
      return 1;
    }
    if (i >= warmup)
      times[i - warmup] = now_s() - t0;
  }
  qsort(times, (size_t)iters, sizeof *times, cmp_double);
  double median = iters % 2 ? times[iters / 2]
                            : 0.5 * (times[iters / 2 - 1] + times[iters / 2]);
  printf("%s threads=%d iters=%d median=%.3f ms min=%.3f ms max=%.3f ms", path,
         kiln_rt_get_num_threads(), iters, median * 1e3, times[0] * 1e3,
         times[iters - 1] * 1e3);
  if (flops > 0)
    printf(" gflops=%.2f", flops / median * 1e-9);
  printf("\n");

  kiln_context_destroy(ctx);
  kiln_model_unload(model);
  for (int64_t i = 0; i < ni; ++i)
    free(ins[i].t.data), free(ins[i].dims);
  for (int64_t i = 0; i < no; ++i)
    free(outs[i].t.data), free(outs[i].dims);
  free(ins), free(outs), free(in_t), free(out_t), free(times), free(evict);
  return 0;
}
