/*===- internal.h - kiln_rt private declarations --------------------------===*/
#ifndef KILN_RT_INTERNAL_H
#define KILN_RT_INTERNAL_H

#include "kiln_rt.h"

#if defined(__GNUC__) || defined(__clang__)
#define KILN_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define KILN_PRINTF(fmt, args)
#endif

struct kiln_model {
  void *handle; /* dlopen handle; NULL for kiln_model_from_desc */
  const kiln_model_desc *desc;
  int64_t total_rank;          /* sum of all input and output ranks */
  int64_t num_runtime_outputs; /* outputs with a KILN_DIM_AT_RUN_TIME dim */
  uint64_t arena_alignment;    /* effective: power of two, at least 64 */
  int maps_weights;            /* holds a reference on its weights mapping */
};

/* Nesting levels of profiled kernels that keep their own begin time. */
#define KILN_PROFILE_MAX_DEPTH 16

typedef struct kiln_gpu kiln_gpu;

struct kiln_context {
  const kiln_model *model;
  kiln_gpu *gpu; /* CUDA state of a GPU model's context (cuda.c) */
  void *arena;
  /* Bytes the arena holds: the static plan's, grown (by kiln_run, never
   * shrunk) when a run's symbolic dims need more. */
  uint64_t arena_capacity;
  /* Per-run scratch sized once so that kiln_run never allocates. */
  /* num_inputs + num_outputs, then one block per run-time output that the
   * last run allocated (freed by the next run and by destroy). */
  void **buffers;
  int has_run;       /* the last kiln_run succeeded: outputs are readable */
  int64_t *dims;     /* total_rank */
  int64_t *bindings; /* num_symbols */
  int64_t *bound_by; /* num_symbols: input index that bound each symbol */
  /* Profiling (profile.c): NULL events means not recording. */
  kiln_profile_event *events;
  int64_t max_events, num_events, dropped_events;
  /* Begin times of the kernels now running on the run's thread: a serial
   * kernel (a loop over K blocks) calls parallel ones inside it. */
  uint64_t kernel_begin_ns[KILN_PROFILE_MAX_DEPTH];
  int kernel_depth;
};

/* Makes the context's arena hold at least `bytes` (context.c). */
kiln_status kiln_rt_reserve_arena(kiln_context *ctx, uint64_t bytes);

/* Frees the blocks of the last run's run-time outputs (run.c). */
void kiln_rt_release_outputs(kiln_context *ctx);

/* Records a formatted message for kiln_last_error() and returns `status`. */
kiln_status kiln_rt_fail(kiln_status status, const char *fmt, ...)
    KILN_PRINTF(2, 3);

/* Checks a descriptor's internal consistency after the ABI version matched;
 * fills model->total_rank and model->arena_alignment. */
kiln_status kiln_rt_check_desc(kiln_model *model, const char *origin);
/* KILN_STATUS_UNSUPPORTED_CPU unless this machine has every CPU feature the
 * descriptor lists (cpu_features.c). */
kiln_status kiln_rt_check_cpu_features(const kiln_model_desc *d,
                                       const char *origin);

/* Validates inputs and binds symbols. `bindings` and `bound_by` have room for
 * num_symbols entries. */
kiln_status kiln_rt_bind_inputs(const kiln_model *model,
                                const kiln_tensor *inputs, int64_t num_inputs,
                                int64_t *bindings, int64_t *bound_by);

/* dlopens `dl_path` and checks the model it holds; messages name `origin`
 * (model.c). */
kiln_status kiln_rt_load_library(const char *dl_path, const char *origin,
                                 kiln_model **out);
/* Loads the entry of the bundle at `path` that suits this machine
 * (bundle.c). */
kiln_status kiln_rt_load_bundle(const char *path, kiln_model **out);

/* Maps the external weights of a model loaded from `lib_path` (NULL for
 * kiln_model_from_desc) and points the library at them; a no-op for a
 * library that holds its weights (weights.c). */
kiln_status kiln_rt_map_weights(kiln_model *model, const char *lib_path);
/* Drops the model's reference on its weights mapping. */
void kiln_rt_unmap_weights(kiln_model *model);

/* Calls the model's run function, recording the run and its kernels when
 * the context profiles (profile.c). */
int32_t kiln_rt_run_recorded(kiln_context *ctx);

/* GPU models (cuda.c). Fills the descriptor's device call table; fails for
 * a device or launcher call this kiln_rt does not know. */
kiln_status kiln_rt_bind_device_calls(const kiln_model_desc *d,
                                      const char *origin);
/* The compute capability of the CUDA device contexts use (90 for sm_90),
 * 0 without a driver or device. */
int kiln_rt_cuda_compute_capability(void);
/* A context's CUDA state; KILN_STATUS_NO_DEVICE without a driver. */
kiln_status kiln_rt_gpu_create(const kiln_model *model, kiln_gpu **out);
void kiln_rt_gpu_destroy(kiln_gpu *gpu);
/* Runs a GPU model's run function in its CUDA context; the first CUDA
 * error of the run becomes the returned status. */
kiln_status kiln_rt_gpu_run(kiln_context *ctx, int32_t *rc);

#endif /* KILN_RT_INTERNAL_H */
