/*===- cuda.c - CUDA driver launcher for GPU model libraries --------------===*
 *
 * A library compiled for an sm_* target holds PTX and host code that calls
 * the launcher through a table (kiln_model_desc.device_calls) this file
 * fills at load: upstream MLIR's launcher ABI (mgpuLaunchKernel, ...) and
 * kiln_gpu_constant. The CUDA driver is opened with dlopen on first use, so
 * kiln_rt has no link-time dependency on it and loads anywhere; without a
 * driver, creating a context for a GPU model fails with "no CUDA driver
 * found".
 *
 * Each kiln_context owns a CUDA context reference (the device's primary
 * context), one stream, the modules and functions it has loaded, the
 * weights it has uploaded (once per context) and a pool of device blocks
 * that the run's buffers reuse from run to run. The launcher calls find the
 * context through a thread-local set for the duration of kiln_run; the first
 * CUDA error of a run is kept, later calls of that run do nothing, and
 * kiln_run returns it with the driver's message.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

static struct {
  pthread_once_t once;
  void *lib;
  char error[256];
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext *);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  int compute_capability; /* of the device contexts use, e.g. 90 */
} cu = {PTHREAD_ONCE_INIT};

/* The device ordinal contexts use (KILN_CUDA_DEVICE, default 0). */
static int device_ordinal(void) {
  const char *ordinal = getenv("KILN_CUDA_DEVICE");
  return ordinal && *ordinal ? atoi(ordinal) : 0;
}

/* Opens the driver named by KILN_CUDA_DRIVER (tests point it elsewhere) or
 * libcuda.so.1 and resolves every entry point. */
static void open_driver(void) {
  const char *path = getenv("KILN_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  cu.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!cu.lib) {
    const char *msg = dlerror();
    snprintf(cu.error, sizeof cu.error, "no CUDA driver found (%s)",
             msg ? msg : path);
    return;
  }
#define KILN_CU(field, symbol)                                                 \
  do {                                                                         \
    *(void **)&cu.field = dlsym(cu.lib, symbol);                               \
    if (!cu.field) {                                                           \
      snprintf(cu.error, sizeof cu.error,                                      \
               "the CUDA driver %s lacks %s (too old?)", path, symbol);        \
      dlclose(cu.lib);                                                         \
      cu.lib = NULL;                                                           \
      return;                                                                  \
    }                                                                          \
  } while (0)
  KILN_CU(cuInit, "cuInit");
  KILN_CU(cuDeviceGetCount, "cuDeviceGetCount");
  KILN_CU(cuDeviceGet, "cuDeviceGet");
  KILN_CU(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  KILN_CU(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  KILN_CU(cuCtxPushCurrent, "cuCtxPushCurrent_v2");
  KILN_CU(cuCtxPopCurrent, "cuCtxPopCurrent_v2");
  KILN_CU(cuStreamCreate, "cuStreamCreate");
  KILN_CU(cuStreamDestroy, "cuStreamDestroy_v2");
  KILN_CU(cuStreamSynchronize, "cuStreamSynchronize");
  KILN_CU(cuModuleLoadDataEx, "cuModuleLoadDataEx");
  KILN_CU(cuModuleUnload, "cuModuleUnload");
  KILN_CU(cuModuleGetFunction, "cuModuleGetFunction");
  KILN_CU(cuLaunchKernel, "cuLaunchKernel");
  KILN_CU(cuMemAlloc, "cuMemAlloc_v2");
  KILN_CU(cuMemFree, "cuMemFree_v2");
  KILN_CU(cuMemcpyAsync, "cuMemcpyAsync");
  KILN_CU(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  KILN_CU(cuMemsetD32Async, "cuMemsetD32Async");
  KILN_CU(cuMemsetD16Async, "cuMemsetD16Async");
  KILN_CU(cuGetErrorString, "cuGetErrorString");
  KILN_CU(cuGetErrorName, "cuGetErrorName");
  KILN_CU(cuDeviceGetAttribute, "cuDeviceGetAttribute");
#undef KILN_CU
  CUresult rc = cu.cuInit(0);
  int count = 0;
  if (rc == 0)
    rc = cu.cuDeviceGetCount(&count);
  if (rc != 0 || count == 0) {
    const char *name = NULL;
    cu.cuGetErrorName(rc, &name);
    snprintf(cu.error, sizeof cu.error, "no CUDA device found (%s)",
             rc ? (name ? name : "cuInit failed") : "0 devices");
    dlclose(cu.lib);
    cu.lib = NULL;
    return;
  }
  CUdevice dev;
  int major = 0, minor = 0;
  if (cu.cuDeviceGet(&dev, device_ordinal()) == 0 &&
      cu.cuDeviceGetAttribute(&major, 75 /* COMPUTE_CAPABILITY_MAJOR */, dev) ==
          0 &&
      cu.cuDeviceGetAttribute(&minor, 76 /* COMPUTE_CAPABILITY_MINOR */, dev) ==
          0)
    cu.compute_capability = major * 10 + minor;
}

/* NULL when the driver and a device are present, else why not. */
static const char *driver_error(void) {
  pthread_once(&cu.once, open_driver);
  return cu.lib ? NULL : cu.error;
}

int kiln_rt_cuda_compute_capability(void) {
  return driver_error() ? 0 : cu.compute_capability;
}

typedef struct {
  const void *image;
  CUmodule module;
} loaded_module;
typedef struct {
  const void *image;
  const char *name;
  CUfunction fn;
} loaded_function;
typedef struct {
  const void *host;
  CUdeviceptr device;
} uploaded_constant;
typedef struct {
  CUdeviceptr ptr;
  uint64_t bytes;
  int in_use;
} device_block;

struct kiln_gpu {
  CUdevice device;
  CUcontext context;
  CUstream stream;
  loaded_module *modules;
  loaded_function *functions;
  uploaded_constant *constants;
  device_block *blocks;
  int64_t num_modules, num_functions, num_constants, num_blocks;
  int64_t cap_modules, cap_functions, cap_constants, cap_blocks;
  kiln_status error;
  char message[384];
};

static _Thread_local kiln_gpu *current;

/* Grows *array (of `size`-byte elements) to hold one more; 0 on failure. */
static int reserve(void **array, int64_t count, int64_t *cap, size_t size) {
  if (count < *cap)
    return 1;
  int64_t n = *cap ? *cap * 2 : 16;
  void *grown = realloc(*array, (size_t)n * size);
  if (!grown)
    return 0;
  *array = grown;
  *cap = n;
  return 1;
}

/* Keeps the first error of a run; returns 1 when `rc` is one. */
static int failed(kiln_gpu *g, CUresult rc, const char *what) {
  if (rc == 0)
    return 0;
  if (g && g->error == KILN_STATUS_OK) {
    const char *name = NULL, *text = NULL;
    cu.cuGetErrorName(rc, &name);
    cu.cuGetErrorString(rc, &text);
    g->error = rc == 2 /* CUDA_ERROR_OUT_OF_MEMORY */
                   ? KILN_STATUS_OUT_OF_MEMORY
                   : KILN_STATUS_DEVICE_ERROR;
    snprintf(g->message, sizeof g->message, "%s: %s (%s)", what,
             name ? name : "CUDA error", text ? text : "no description");
  }
  return 1;
}

static int oom(kiln_gpu *g, const char *what) {
  if (g->error == KILN_STATUS_OK) {
    g->error = KILN_STATUS_OUT_OF_MEMORY;
    snprintf(g->message, sizeof g->message, "%s: out of host memory", what);
  }
  return 1;
}

kiln_status kiln_rt_gpu_create(const kiln_model *model, kiln_gpu **out) {
  *out = NULL;
  const char *why = driver_error();
  if (why)
    return kiln_rt_fail(KILN_STATUS_NO_DEVICE, "model '%s' runs on %s: %s",
                        model->desc->name ? model->desc->name : "",
                        model->desc->device, why);
  kiln_gpu *g = calloc(1, sizeof(*g));
  if (!g)
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY, "CUDA context state");
  CUcontext popped;
  if (failed(g, cu.cuDeviceGet(&g->device, device_ordinal()), "cuDeviceGet") ||
      failed(g, cu.cuDevicePrimaryCtxRetain(&g->context, g->device),
             "cuDevicePrimaryCtxRetain")) {
    kiln_status st = kiln_rt_fail(g->error, "%s", g->message);
    free(g);
    return st;
  }
  if (failed(g, cu.cuCtxPushCurrent(g->context), "cuCtxPushCurrent") ||
      failed(g, cu.cuStreamCreate(&g->stream, 1 /* non-blocking */),
             "cuStreamCreate")) {
    kiln_status st = kiln_rt_fail(g->error, "%s", g->message);
    cu.cuCtxPopCurrent(&popped);
    cu.cuDevicePrimaryCtxRelease(g->device);
    free(g);
    return st;
  }
  cu.cuCtxPopCurrent(&popped);
  *out = g;
  return KILN_STATUS_OK;
}

void kiln_rt_gpu_destroy(kiln_gpu *g) {
  if (!g)
    return;
  CUcontext popped;
  cu.cuCtxPushCurrent(g->context);
  cu.cuStreamSynchronize(g->stream);
  for (int64_t i = 0; i < g->num_blocks; ++i)
    cu.cuMemFree(g->blocks[i].ptr);
  for (int64_t i = 0; i < g->num_constants; ++i)
    cu.cuMemFree(g->constants[i].device);
  for (int64_t i = 0; i < g->num_modules; ++i)
    cu.cuModuleUnload(g->modules[i].module);
  cu.cuStreamDestroy(g->stream);
  cu.cuCtxPopCurrent(&popped);
  cu.cuDevicePrimaryCtxRelease(g->device);
  free(g->modules);
  free(g->functions);
  free(g->constants);
  free(g->blocks);
  free(g);
}

kiln_status kiln_rt_gpu_run(kiln_context *ctx, int32_t *rc) {
  kiln_gpu *g = ctx->gpu;
  g->error = KILN_STATUS_OK;
  g->message[0] = '\0';
  CUcontext popped;
  if (failed(g, cu.cuCtxPushCurrent(g->context), "cuCtxPushCurrent"))
    return kiln_rt_fail(g->error, "%s", g->message);
  kiln_gpu *outer = current;
  current = g;
  *rc = kiln_rt_run_recorded(ctx);
  /* The run ends with a synchronization; one more costs nothing and makes
   * sure no copy into the caller's outputs is still in flight. */
  failed(g, cu.cuStreamSynchronize(g->stream), "cuStreamSynchronize");
  current = outer;
  cu.cuCtxPopCurrent(&popped);
  for (int64_t i = 0; i < g->num_blocks; ++i)
    g->blocks[i].in_use = 0;
  if (g->error != KILN_STATUS_OK)
    return kiln_rt_fail(g->error, "model '%s' on %s: %s",
                        ctx->model->desc->name ? ctx->model->desc->name : "",
                        ctx->model->desc->device, g->message);
  return KILN_STATUS_OK;
}

/*===- The launcher ABI the host code calls -------------------------------===*/

/* A module handle is its image: the same in every context, so the handle
 * the library keeps in a global never depends on which context loaded it. */
static void *module_load(void *image, uint64_t size) {
  (void)size;
  return image;
}
static void *module_load_jit(void *image, int32_t opt) {
  (void)opt;
  return image;
}
static void module_unload(void *module) { (void)module; }

static CUmodule find_module(kiln_gpu *g, const void *image) {
  for (int64_t i = 0; i < g->num_modules; ++i)
    if (g->modules[i].image == image)
      return g->modules[i].module;
  if (!reserve((void **)&g->modules, g->num_modules, &g->cap_modules,
               sizeof(loaded_module))) {
    oom(g, "cuModuleLoadData");
    return NULL;
  }
  /* The JIT's log says what the driver rejects. */
  enum { kLog = 4096 };
  static _Thread_local char log[kLog];
  int options[] = {5 /* CU_JIT_ERROR_LOG_BUFFER */,
                   6 /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */};
  void *values[] = {log, (void *)(uintptr_t)kLog};
  log[0] = '\0';
  CUmodule m = NULL;
  CUresult rc = cu.cuModuleLoadDataEx(&m, image, 2, options, values);
  if (failed(g, rc, "cuModuleLoadData")) {
    if (log[0])
      snprintf(g->message + strlen(g->message),
               sizeof g->message - strlen(g->message), ": %s", log);
    return NULL;
  }
  g->modules[g->num_modules].image = image;
  g->modules[g->num_modules++].module = m;
  return m;
}

static void *module_get_function(void *module, const char *name) {
  kiln_gpu *g = current;
  if (!g || g->error)
    return NULL;
  for (int64_t i = 0; i < g->num_functions; ++i)
    if (g->functions[i].image == module && g->functions[i].name == name)
      return g->functions[i].fn;
  CUmodule m = find_module(g, module);
  if (!m)
    return NULL;
  CUfunction fn = NULL;
  if (failed(g, cu.cuModuleGetFunction(&fn, m, name), "cuModuleGetFunction"))
    return NULL;
  if (!reserve((void **)&g->functions, g->num_functions, &g->cap_functions,
               sizeof(loaded_function))) {
    oom(g, "cuModuleGetFunction");
    return fn;
  }
  loaded_function *f = &g->functions[g->num_functions++];
  f->image = module;
  f->name = name;
  f->fn = fn;
  return fn;
}

static void launch_kernel(void *fn, intptr_t gx, intptr_t gy, intptr_t gz,
                          intptr_t bx, intptr_t by, intptr_t bz, int32_t smem,
                          void *stream, void **params, void **extra,
                          uint64_t num_params) {
  (void)stream, (void)num_params;
  kiln_gpu *g = current;
  if (!g || g->error || !fn)
    return;
  /* An empty iteration space launches nothing (CUDA rejects a 0 grid). */
  if (gx <= 0 || gy <= 0 || gz <= 0 || bx <= 0 || by <= 0 || bz <= 0)
    return;
  failed(g,
         cu.cuLaunchKernel((CUfunction)fn, (unsigned)gx, (unsigned)gy,
                           (unsigned)gz, (unsigned)bx, (unsigned)by,
                           (unsigned)bz, (unsigned)smem, g->stream, params,
                           extra),
         "cuLaunchKernel");
}

static void *stream_create(void) { return current ? current->stream : NULL; }
static void stream_destroy(void *stream) { (void)stream; }
static void stream_synchronize(void *stream) {
  (void)stream;
  kiln_gpu *g = current;
  if (g && !g->error)
    failed(g, cu.cuStreamSynchronize(g->stream), "cuStreamSynchronize");
}
/* One stream per context orders everything; events have nothing to add. */
static void stream_wait_event(void *stream, void *event) {
  (void)stream, (void)event;
}
static void *event_create(void) { return (void *)&current; }
static void event_destroy(void *event) { (void)event; }
static void event_synchronize(void *event) {
  (void)event;
  stream_synchronize(NULL);
}
static void event_record(void *event, void *stream) {
  (void)event, (void)stream;
}

/* Device buffers of a run come from the context's pool: the same sizes
 * recur every run, so after the first run nothing is allocated. */
static void *mem_alloc(uint64_t bytes, void *stream, bool host_shared) {
  (void)stream, (void)host_shared;
  kiln_gpu *g = current;
  if (!g || g->error)
    return NULL;
  if (bytes == 0)
    bytes = 1;
  device_block *best = NULL;
  for (int64_t i = 0; i < g->num_blocks; ++i) {
    device_block *b = &g->blocks[i];
    if (!b->in_use && b->bytes >= bytes && b->bytes <= 2 * bytes &&
        (!best || b->bytes < best->bytes))
      best = b;
  }
  if (best) {
    best->in_use = 1;
    return (void *)(uintptr_t)best->ptr;
  }
  if (!reserve((void **)&g->blocks, g->num_blocks, &g->cap_blocks,
               sizeof(device_block))) {
    oom(g, "cuMemAlloc");
    return NULL;
  }
  CUdeviceptr p = 0;
  if (failed(g, cu.cuMemAlloc(&p, (size_t)bytes), "cuMemAlloc"))
    return NULL;
  device_block *b = &g->blocks[g->num_blocks++];
  b->ptr = p;
  b->bytes = bytes;
  b->in_use = 1;
  return (void *)(uintptr_t)p;
}

static void mem_free(void *ptr, void *stream) {
  (void)stream;
  kiln_gpu *g = current;
  if (!g)
    return;
  /* Work queued on the one stream that still reads the block runs before
   * any later use of it, so it can go back to the pool at once. */
  for (int64_t i = 0; i < g->num_blocks; ++i)
    if (g->blocks[i].ptr == (CUdeviceptr)(uintptr_t)ptr)
      g->blocks[i].in_use = 0;
}

static void mem_copy(void *dst, void *src, uint64_t bytes, void *stream) {
  (void)stream;
  kiln_gpu *g = current;
  if (!g || g->error || bytes == 0)
    return;
  failed(g,
         cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                          (CUdeviceptr)(uintptr_t)src, (size_t)bytes,
                          g->stream),
         "cuMemcpyAsync");
}

static void mem_set32(void *dst, unsigned value, uint64_t count, void *stream) {
  (void)stream;
  kiln_gpu *g = current;
  if (g && !g->error && count)
    failed(g,
           cu.cuMemsetD32Async((CUdeviceptr)(uintptr_t)dst, value,
                               (size_t)count, g->stream),
           "cuMemsetD32Async");
}

static void mem_set16(void *dst, unsigned short value, uint64_t count,
                      void *stream) {
  (void)stream;
  kiln_gpu *g = current;
  if (g && !g->error && count)
    failed(g,
           cu.cuMemsetD16Async((CUdeviceptr)(uintptr_t)dst, value,
                               (size_t)count, g->stream),
           "cuMemsetD16Async");
}

/* A rank-1 memref descriptor, as MLIR's C interface passes it. */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, size, stride;
} memref_1d;

/* The device copy of a weight, uploaded on its first use in this context. */
static void upload_constant(memref_1d *result, memref_1d *host,
                            int64_t element_bytes) {
  kiln_gpu *g = current;
  *result = *host;
  result->offset = 0;
  result->stride = 1;
  if (!g || g->error)
    return;
  const char *data = (const char *)host->aligned + host->offset * element_bytes;
  for (int64_t i = 0; i < g->num_constants; ++i)
    if (g->constants[i].host == data) {
      result->allocated = result->aligned =
          (void *)(uintptr_t)g->constants[i].device;
      return;
    }
  size_t bytes = (size_t)(host->size * element_bytes);
  CUdeviceptr p = 0;
  if (!reserve((void **)&g->constants, g->num_constants, &g->cap_constants,
               sizeof(uploaded_constant))) {
    oom(g, "weight upload");
    return;
  }
  if (failed(g, cu.cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc (weight)"))
    return;
  if (bytes && failed(g, cu.cuMemcpyHtoD(p, data, bytes), "cuMemcpyHtoD")) {
    cu.cuMemFree(p);
    return;
  }
  g->constants[g->num_constants].host = data;
  g->constants[g->num_constants++].device = p;
  result->allocated = result->aligned = (void *)(uintptr_t)p;
}

#define KILN_FN(f) ((void *)(uintptr_t)(f))
static const struct {
  const char *name;
  void *fn;
} launcher[] = {
    {"mgpuModuleLoad", KILN_FN(module_load)},
    {"mgpuModuleLoadJIT", KILN_FN(module_load_jit)},
    {"mgpuModuleUnload", KILN_FN(module_unload)},
    {"mgpuModuleGetFunction", KILN_FN(module_get_function)},
    {"mgpuLaunchKernel", KILN_FN(launch_kernel)},
    {"mgpuStreamCreate", KILN_FN(stream_create)},
    {"mgpuStreamDestroy", KILN_FN(stream_destroy)},
    {"mgpuStreamSynchronize", KILN_FN(stream_synchronize)},
    {"mgpuStreamWaitEvent", KILN_FN(stream_wait_event)},
    {"mgpuEventCreate", KILN_FN(event_create)},
    {"mgpuEventDestroy", KILN_FN(event_destroy)},
    {"mgpuEventSynchronize", KILN_FN(event_synchronize)},
    {"mgpuEventRecord", KILN_FN(event_record)},
    {"mgpuMemAlloc", KILN_FN(mem_alloc)},
    {"mgpuMemFree", KILN_FN(mem_free)},
    {"mgpuMemcpy", KILN_FN(mem_copy)},
    {"mgpuMemset32", KILN_FN(mem_set32)},
    {"mgpuMemset16", KILN_FN(mem_set16)},
    {"kiln_gpu_constant", KILN_FN(upload_constant)},
};
#undef KILN_FN

kiln_status kiln_rt_bind_device_calls(const kiln_model_desc *d,
                                      const char *origin) {
  if (!d->device)
    return d->num_device_calls == 0
               ? KILN_STATUS_OK
               : kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                              "%s: malformed descriptor: device calls "
                              "without a device",
                              origin);
  if (strncmp(d->device, "cuda:", 5) != 0)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: device '%s' is not one this kiln_rt runs", origin,
                        d->device);
  if (d->num_device_calls < 0 ||
      (d->num_device_calls > 0 && (!d->device_call_names || !d->device_calls)))
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: malformed descriptor: bad device call table",
                        origin);
  for (int64_t i = 0; i < d->num_device_calls; ++i) {
    const char *name = d->device_call_names[i];
    void *fn = NULL;
    for (size_t k = 0; name && k < sizeof launcher / sizeof launcher[0]; ++k)
      if (strcmp(launcher[k].name, name) == 0)
        fn = launcher[k].fn;
    if (!fn)
      return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                          "%s: needs launcher call '%s', which this kiln_rt "
                          "(" KILN_RT_VERSION ") does not provide",
                          origin, name ? name : "(null)");
    d->device_calls[i] = fn;
  }
  return KILN_STATUS_OK;
}
