/*===- cuda_launcher_checks.c - kiln_rt's CUDA launcher on a fake driver --===*
 *
 *   KILN_CUDA_DRIVER=libkiln_fake_cuda.so cuda_launcher_checks MODEL.so
 *
 * Runs a GPU model library (one float32 input, one float32 output) twice on
 * one context, then once on a second context, and prints what the driver
 * saw, one `key: value` per line, for FileCheck. With the fake driver no
 * kernel runs, so outputs are not checked here; the GPU runs of
 * bench/gpu/run_on_gpu.sh check them against the CPU.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "kiln_rt.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_cuda_stats.h"

static int check(kiln_status st, const char *what) {
  if (st == KILN_STATUS_OK)
    return 1;
  printf("%s: %s: %s\n", what, kiln_status_string(st), kiln_last_error());
  return 0;
}

static kiln_status run_once(kiln_context *ctx, const kiln_model *m) {
  const kiln_tensor_info *in = kiln_model_input(m, 0);
  const kiln_tensor_info *out = kiln_model_output(m, 0);
  int64_t n_in = 1, n_out = 1;
  for (int32_t k = 0; k < in->rank; ++k)
    n_in *= in->dims[k];
  for (int32_t k = 0; k < out->rank; ++k)
    n_out *= out->dims[k];
  float *x = calloc((size_t)n_in, sizeof(float));
  float *y = calloc((size_t)n_out, sizeof(float));
  for (int64_t i = 0; i < n_in; ++i)
    x[i] = (float)i;
  kiln_tensor ti = {KILN_DTYPE_FLOAT32, in->rank, in->dims, x, 0};
  kiln_tensor to = {KILN_DTYPE_FLOAT32, out->rank, out->dims, y, 0};
  kiln_status st = kiln_run(ctx, &ti, 1, &to, 1);
  free(x);
  free(y);
  return st;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.so\n", argv[0]);
    return 2;
  }
  kiln_model *m = NULL;
  kiln_context *ctx = NULL, *ctx2 = NULL;
  if (!check(kiln_model_load(argv[1], &m), "load"))
    return 1;
  printf("device: %s\n", kiln_model_device(m));
  if (!check(kiln_context_create(m, &ctx), "context"))
    return 1;
  void *driver = dlopen(getenv("KILN_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
  fake_cuda_stats *(*get)(void) = driver
                                      ? (fake_cuda_stats * (*)(void))
                                            dlsym(driver, "fake_cuda_stats_get")
                                      : NULL;
  if (!get) {
    printf("not the fake driver\n");
    return 1;
  }
  fake_cuda_stats *s = get();
  if (!check(run_once(ctx, m), "run 1"))
    return 1;
  int launches1 = s->launches, allocs1 = s->mem_allocs;
  int uploads1 = s->htod_copies;
  printf("run 1: launches %d, module loads %d, weight uploads %d\n", launches1,
         s->modules_loaded, uploads1);
  printf("image: %.40s\n", s->first_image);
  if (!check(run_once(ctx, m), "run 2"))
    return 1;
  printf("run 2: launches %d, new allocations %d, new weight uploads %d, "
         "module loads %d\n",
         s->launches - launches1, s->mem_allocs - allocs1,
         s->htod_copies - uploads1, s->modules_loaded);
  printf("last kernel: %s grid %u %u %u block %u %u %u\n", s->last_kernel,
         s->last_grid[0], s->last_grid[1], s->last_grid[2], s->last_block[0],
         s->last_block[1], s->last_block[2]);
  printf("empty launches: %d\n", s->empty_launches);
  /* A second context loads its own module and weights. */
  if (!check(kiln_context_create(m, &ctx2), "context 2") ||
      !check(run_once(ctx2, m), "context 2 run"))
    return 1;
  printf("two contexts: module loads %d, weight uploads %d\n",
         s->modules_loaded, s->htod_copies);
  kiln_context_destroy(ctx2);
  kiln_context_destroy(ctx);
  printf("released: contexts %d of %d, modules %d, frees %d of %d\n",
         s->contexts_released, s->contexts_retained, s->modules_unloaded,
         s->mem_frees, s->mem_allocs);
  kiln_model_unload(m);
  return 0;
}
