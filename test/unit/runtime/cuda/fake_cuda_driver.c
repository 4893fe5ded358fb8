/*===- fake_cuda_driver.c - A CUDA driver stand-in over host memory -------===*
 *
 * Loaded by kiln_rt through KILN_CUDA_DRIVER in place of libcuda.so.1, so
 * that the launcher's use of the driver is tested on machines without a
 * GPU: device memory is host memory, copies are memcpy, and a launch runs
 * nothing but is recorded (kernel, grid, block). fake_cuda_stats() reports
 * what happened. FAKE_CUDA_DEVICES sets the device count (default 1),
 * FAKE_CUDA_CC the compute capability (default 90), FAKE_CUDA_FAIL names a
 * call that fails with CUDA_ERROR_ILLEGAL_ADDRESS (700).
 *===----------------------------------------------------------------------===*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda_stats.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static fake_cuda_stats stats;
__attribute__((visibility("default"))) fake_cuda_stats *
fake_cuda_stats_get(void) {
  return &stats;
}

static int fails(const char *call) {
  const char *f = getenv("FAKE_CUDA_FAIL");
  return f && strcmp(f, call) == 0;
}
#define API __attribute__((visibility("default")))
#define FAIL_IF(call)                                                          \
  if (fails(call))                                                             \
  return 700

API CUresult cuInit(unsigned flags) {
  (void)flags;
  return 0;
}
API CUresult cuDeviceGetCount(int *n) {
  const char *d = getenv("FAKE_CUDA_DEVICES");
  *n = d ? atoi(d) : 1;
  return 0;
}
API CUresult cuDeviceGet(int *dev, int ordinal) {
  *dev = ordinal;
  return 0;
}
API CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
  (void)dev;
  const char *cc = getenv("FAKE_CUDA_CC");
  int c = cc ? atoi(cc) : 90;
  *v = attr == 75 ? c / 10 : attr == 76 ? c % 10 : 0;
  return 0;
}
static int context_token;
API CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  (void)dev;
  FAIL_IF("cuDevicePrimaryCtxRetain");
  *ctx = &context_token;
  ++stats.contexts_retained;
  return 0;
}
API CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
  (void)dev;
  ++stats.contexts_released;
  return 0;
}
API CUresult cuCtxPushCurrent_v2(void *ctx) {
  (void)ctx;
  return 0;
}
API CUresult cuCtxPopCurrent_v2(void **ctx) {
  if (ctx)
    *ctx = &context_token;
  return 0;
}
static int stream_token;
API CUresult cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  *s = &stream_token;
  ++stats.streams_created;
  return 0;
}
API CUresult cuStreamDestroy_v2(void *s) {
  (void)s;
  return 0;
}
API CUresult cuStreamSynchronize(void *s) {
  (void)s;
  FAIL_IF("cuStreamSynchronize");
  ++stats.syncs;
  return 0;
}
API CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n,
                                int *options, void **values) {
  (void)n, (void)options, (void)values;
  FAIL_IF("cuModuleLoadDataEx");
  if (!stats.modules_loaded)
    snprintf(stats.first_image, sizeof stats.first_image, "%s",
             (const char *)image);
  *m = malloc(1);
  ++stats.modules_loaded;
  return 0;
}
API CUresult cuModuleUnload(void *m) {
  free(m);
  ++stats.modules_unloaded;
  return 0;
}
API CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  (void)m;
  FAIL_IF("cuModuleGetFunction");
  *f = strdup(name); /* the handle is the name: launches report it */
  ++stats.functions;
  return 0;
}
API CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                            unsigned bx, unsigned by, unsigned bz,
                            unsigned smem, void *stream, void **params,
                            void **extra) {
  (void)smem, (void)stream, (void)params, (void)extra;
  FAIL_IF("cuLaunchKernel");
  if (!gx || !gy || !gz || !bx || !by || !bz)
    ++stats.empty_launches;
  snprintf(stats.last_kernel, sizeof stats.last_kernel, "%s", (const char *)f);
  stats.last_grid[0] = gx, stats.last_grid[1] = gy, stats.last_grid[2] = gz;
  stats.last_block[0] = bx, stats.last_block[1] = by, stats.last_block[2] = bz;
  ++stats.launches;
  return 0;
}
API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  FAIL_IF("cuMemAlloc");
  *p = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  ++stats.mem_allocs;
  return *p ? 0 : 2;
}
API CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  ++stats.mem_frees;
  return 0;
}
API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                           void *stream) {
  (void)stream;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  ++stats.async_copies;
  return 0;
}
API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  ++stats.htod_copies;
  return 0;
}
API CUresult cuMemsetD32Async(CUdeviceptr p, unsigned v, size_t n, void *s) {
  (void)s;
  for (size_t i = 0; i < n; ++i)
    ((unsigned *)(uintptr_t)p)[i] = v;
  return 0;
}
API CUresult cuMemsetD16Async(CUdeviceptr p, unsigned short v, size_t n,
                              void *s) {
  (void)s;
  for (size_t i = 0; i < n; ++i)
    ((unsigned short *)(uintptr_t)p)[i] = v;
  return 0;
}
API CUresult cuGetErrorName(CUresult rc, const char **s) {
  *s = rc == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
API CUresult cuGetErrorString(CUresult rc, const char **s) {
  *s = rc == 700 ? "an illegal memory access was encountered" : "unknown error";
  return 0;
}
