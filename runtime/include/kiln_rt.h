/*===- kiln_rt.h - kiln runtime C API -------------------------------------===*
 *
 * Loads a compiled model library, validates caller tensors against its
 * metadata and runs it. Plain C11, depends only on libc, libdl and pthread.
 *
 * Errors: every fallible call returns a kiln_status; the message for the most
 * recent failure on the calling thread is available from kiln_last_error().
 *
 * Threading: a kiln_model is immutable after loading and may be shared by any
 * number of threads. A kiln_context owns the scratch arena of one run at a
 * time: concurrent kiln_run calls must use separate contexts.
 *===----------------------------------------------------------------------===*/
#ifndef KILN_RT_H
#define KILN_RT_H

#include <stddef.h>
#include <stdint.h>

#include "kiln_model_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; only this API is exported. */
#if defined(__GNUC__) || defined(__clang__)
#define KILN_RT_API __attribute__((visibility("default")))
#else
#define KILN_RT_API
#endif

#define KILN_RT_VERSION "0.1.0"

typedef enum kiln_status {
  KILN_STATUS_OK = 0,
  KILN_STATUS_INVALID_ARGUMENT = 1,
  KILN_STATUS_LOAD_FAILED = 2,
  KILN_STATUS_ABI_MISMATCH = 3,
  KILN_STATUS_SHAPE_MISMATCH = 4,
  KILN_STATUS_DTYPE_MISMATCH = 5,
  KILN_STATUS_OUT_OF_MEMORY = 6,
  KILN_STATUS_RUN_FAILED = 7,
  /* The library uses CPU features this machine does not have. */
  KILN_STATUS_UNSUPPORTED_CPU = 8,
  /* The model runs on a GPU and this machine has no CUDA driver or device. */
  KILN_STATUS_NO_DEVICE = 9,
  /* The GPU driver failed a call; the message has the driver's error. */
  KILN_STATUS_DEVICE_ERROR = 10,
} kiln_status;

/* Message of the last failing call on this thread; "" if none. Valid until
 * the next kiln_ call on this thread. */
KILN_RT_API const char *kiln_last_error(void);
/* Static name of a status code, e.g. "SHAPE_MISMATCH". */
KILN_RT_API const char *kiln_status_string(kiln_status status);
/* Bytes per element of a kiln_dtype; 0 for unknown codes. */
KILN_RT_API size_t kiln_dtype_size(int32_t dtype);
/* Short dtype name ("float32", "int64", ...); "unknown" for unknown codes. */
KILN_RT_API const char *kiln_dtype_name(int32_t dtype);
KILN_RT_API const char *kiln_rt_version(void);

/*===---------------------------- Models ---------------------------------===*/

typedef struct kiln_model kiln_model;

/* dlopens `path` (RTLD_NOW | RTLD_LOCAL), resolves KILN_MODEL_ENTRY_SYMBOL and
 * checks the descriptor; `path` may also be a bundle (see below).
 * LOAD_FAILED, ABI_MISMATCH, UNSUPPORTED_CPU or OUT_OF_MEMORY. */
KILN_RT_API kiln_status kiln_model_load(const char *path, kiln_model **out);
/* Wraps a descriptor linked into the process (no library is opened). The
 * descriptor must outlive the model. */
KILN_RT_API kiln_status kiln_model_from_desc(const kiln_model_desc *desc,
                                             kiln_model **out);
/*===---------------------------- Bundles --------------------------------===*/

/* A bundle (`kiln compile --target a,b,... -o m.kiln`) holds one library per
 * target. kiln_model_load accepts a bundle path and loads the entry that
 * suits this machine: its architecture, all its CPU features present, and of
 * those the one with the most features; UNSUPPORTED_CPU when none does. */
typedef struct kiln_bundle kiln_bundle;
typedef struct kiln_bundle_entry {
  const char *target;       /* "x86_64" */
  const char *arch;         /* "x86_64", "aarch64", "riscv64" */
  const char *cpu;          /* "x86-64-v3" */
  const char *cpu_features; /* the features it needs, "" if none */
  uint64_t offset, size;    /* the library's bytes in the bundle file */
  const char *device;       /* "cuda:sm_90" for a GPU library, else "" */
} kiln_bundle_entry;

/* 1 if the file at `path` is a kiln bundle. */
KILN_RT_API int kiln_is_bundle(const char *path);
KILN_RT_API kiln_status kiln_bundle_open(const char *path, kiln_bundle **out);
KILN_RT_API void kiln_bundle_close(kiln_bundle *bundle);
KILN_RT_API int64_t kiln_bundle_num_entries(const kiln_bundle *bundle);
KILN_RT_API const kiln_bundle_entry *
kiln_bundle_entry_at(const kiln_bundle *bundle, int64_t index);
/* The entry kiln_model_load picks on this machine, or -1 (kiln_last_error
 * says what the bundle holds): a GPU library when a CUDA driver and device
 * are present, else the CPU library of this architecture whose features are
 * all present and that lists the most of them. */
KILN_RT_API int64_t kiln_bundle_select(const kiln_bundle *bundle);

/* Closes the library. All contexts of the model must be destroyed first. */
KILN_RT_API void kiln_model_unload(kiln_model *model);

KILN_RT_API const kiln_model_desc *kiln_model_descriptor(const kiln_model *m);
KILN_RT_API const char *kiln_model_name(const kiln_model *m);
KILN_RT_API const char *kiln_model_target(const kiln_model *m);
/* Where the model's kernels run: "cuda:sm_90" for a GPU library, "" for one
 * that runs on the CPU. A GPU model needs a CUDA driver and device when a
 * context is created (KILN_STATUS_NO_DEVICE otherwise). */
KILN_RT_API const char *kiln_model_device(const kiln_model *m);
KILN_RT_API const char *kiln_model_kiln_version(const kiln_model *m);
KILN_RT_API uint64_t kiln_model_weights_checksum(const kiln_model *m);
/* Scratch bytes of the static memory plan: what a context allocates when it
 * is created. */
KILN_RT_API uint64_t kiln_model_arena_bytes(const kiln_model *m);
KILN_RT_API uint64_t kiln_model_arena_alignment(const kiln_model *m);
KILN_RT_API int64_t kiln_model_num_inputs(const kiln_model *m);
KILN_RT_API int64_t kiln_model_num_outputs(const kiln_model *m);
/* NULL when the index is out of range. */
KILN_RT_API const kiln_tensor_info *kiln_model_input(const kiln_model *m,
                                                     int64_t index);
KILN_RT_API const kiln_tensor_info *kiln_model_output(const kiln_model *m,
                                                      int64_t index);
KILN_RT_API int64_t kiln_model_num_symbols(const kiln_model *m);
/* Name of symbolic dimension `index` (dims value -(index + 1)); NULL if out of
 * range. */
KILN_RT_API const char *kiln_model_symbol(const kiln_model *m, int64_t index);
/* Index of the tensor called `name`, or -1. */
KILN_RT_API int64_t kiln_model_find_input(const kiln_model *m,
                                          const char *name);
KILN_RT_API int64_t kiln_model_find_output(const kiln_model *m,
                                           const char *name);

/*===---------------------------- Tensors --------------------------------===*/

/* A caller-owned dense row-major tensor. `byte_size` is the capacity of
 * `data`; 0 means "not given" and skips the capacity check. `data` may be
 * NULL only for tensors with zero elements. */
typedef struct kiln_tensor {
  int32_t dtype; /* kiln_dtype */
  int32_t rank;
  const int64_t *dims;
  void *data;
  uint64_t byte_size;
} kiln_tensor;

/* Validates `inputs` against the model (count, dtype, rank, static dims,
 * consistent symbol bindings) and writes the extents of output
 * `output_index` to `dims_out` (room for its rank); -1 for a dim that only
 * the run knows (KILN_DIM_AT_RUN_TIME in the output's info). */
KILN_RT_API kiln_status kiln_infer_output_dims(const kiln_model *model,
                                               const kiln_tensor *inputs,
                                               int64_t num_inputs,
                                               int64_t output_index,
                                               int64_t *dims_out);

/* Since ABI 7. The scratch bytes a run with these inputs needs. A model with
 * symbolic dims also places buffers whose sizes follow from those dims in the
 * arena (their sizes and offsets are computed when the run starts), so its
 * arena is a function of the dims: at least kiln_model_arena_bytes, more for
 * larger inputs. kiln_run grows a context's arena to this size the first time
 * a run needs more (the only allocation it makes, besides the buffers of
 * run-time outputs and of extents that depend on data) and keeps it for later
 * runs. Validates `inputs` as kiln_infer_output_dims does. */
KILN_RT_API kiln_status kiln_model_arena_bytes_for(const kiln_model *model,
                                                   const kiln_tensor *inputs,
                                                   int64_t num_inputs,
                                                   uint64_t *bytes);

/*===---------------------------- Running --------------------------------===*/

typedef struct kiln_context kiln_context;

/* Allocates the model's static scratch arena (aligned to at least 64 bytes);
 * kiln_run may grow it for a model with symbolic dims. */
KILN_RT_API kiln_status kiln_context_create(const kiln_model *model,
                                            kiln_context **out);
KILN_RT_API void kiln_context_destroy(kiln_context *ctx);
KILN_RT_API const kiln_model *kiln_context_model(const kiln_context *ctx);
/* Since ABI 7. Bytes the context's arena holds now (see
 * kiln_model_arena_bytes_for). */
KILN_RT_API uint64_t kiln_context_arena_bytes(const kiln_context *ctx);
/* The context's arena (kiln_context_arena_bytes of it), NULL when it has
 * none: for tools that control what is in the caches before a run. */
KILN_RT_API void *kiln_context_arena(const kiln_context *ctx);

/* Validates every tensor (outputs must have exactly the inferred dims) and
 * runs the model. RUN_FAILED if the model reports an error.
 *
 * Run-time outputs (an output whose info has a KILN_DIM_AT_RUN_TIME dim:
 * NonZero, Unique, ...): the caller gives only their dtype and rank (dims and
 * data may be NULL; they are not read) and reads them after the run with
 * kiln_context_output; the context owns their memory. */
KILN_RT_API kiln_status kiln_run(kiln_context *ctx, const kiln_tensor *inputs,
                                 int64_t num_inputs, const kiln_tensor *outputs,
                                 int64_t num_outputs);

/* Since ABI 6. Output `index` of the last successful kiln_run on `ctx`: its
 * dtype, rank, dims and data. For a run-time output, dims and data belong to
 * the context and stay valid until its next kiln_run or destruction; for any
 * other output, data is the caller's buffer and dims the inferred extents.
 * INVALID_ARGUMENT when the last kiln_run on `ctx` failed or none ran. */
KILN_RT_API kiln_status kiln_context_output(const kiln_context *ctx,
                                            int64_t index, kiln_tensor *out);

/*===--------------------------- Profiling -------------------------------===*/

/* Kernels of a library compiled with `kiln compile --profile`; 0 / NULL for
 * other libraries or an index out of range. */
KILN_RT_API int64_t kiln_model_num_kernels(const kiln_model *m);
KILN_RT_API const kiln_kernel_info *kiln_model_kernel(const kiln_model *m,
                                                      int64_t index);

/* One timed interval on the run's thread, CLOCK_MONOTONIC nanoseconds.
 * `kernel` indexes kiln_model_kernel; KILN_PROFILE_RUN marks a whole
 * kiln_run. */
typedef struct kiln_profile_event {
  int64_t kernel;
  uint64_t begin_ns;
  uint64_t end_ns;
} kiln_profile_event;
#define KILN_PROFILE_RUN (-1)

/* Records up to `max_events` events of this context's runs (0 turns
 * recording off and frees the buffer); clears what was recorded. Events past
 * the capacity are counted as dropped. INVALID_ARGUMENT if the model has no
 * kernels and max_events > 0. */
KILN_RT_API kiln_status kiln_context_set_profiling(kiln_context *ctx,
                                                   int64_t max_events);
/* The events recorded since profiling was set or cleared, in order; valid
 * until the next kiln_run or kiln_context_set_profiling on this context.
 * `dropped` (may be NULL) receives the number that did not fit. */
KILN_RT_API kiln_status kiln_context_profile_events(
    const kiln_context *ctx, const kiln_profile_event **events, int64_t *count,
    int64_t *dropped);
/* Called by profiled model code around each kernel (phase 0: begin, 1:
 * end) on the thread running kiln_run; a no-op when the context records
 * nothing. Not for applications. */
KILN_RT_API void kiln_rt_profile_event(int64_t kernel, int64_t phase);

/*===-------------------------- Thread pool ------------------------------===*/

/* Calls body(begin, end, data) on disjoint ranges covering [0, n), using the
 * calling thread plus up to kiln_rt_get_num_threads() - 1 pool workers, and
 * returns once all ranges are done. Nested calls (from inside a body), and
 * calls made while another thread's parallel_for is running, run serially on
 * the caller. */
KILN_RT_API void kiln_rt_parallel_for(int64_t n,
                                      void (*body)(int64_t begin, int64_t end,
                                                   void *data),
                                      void *data);
/* 1 if this machine has the CPU feature (LLVM's name: "avx2", "avx512f",
 * "dotprod"), 0 if not, -1 if kiln_rt cannot check that name here. */
KILN_RT_API int kiln_rt_cpu_supports(const char *feature);

/* n <= 0 restores the default: $KILN_NUM_THREADS, else the CPU count. */
KILN_RT_API void kiln_rt_set_num_threads(int n);
KILN_RT_API int kiln_rt_get_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_H */
