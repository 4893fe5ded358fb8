/*===- profile.c - Per-kernel timestamps of --profile libraries -----------===*
 *
 * A profiled library calls kiln_rt_profile_event around each kernel on the
 * thread that runs kiln_run. kiln_run points a thread-local at the context
 * for the duration of the run, so concurrent runs on separate contexts record
 * into their own buffers and the hook needs no lock.
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdlib.h>
#include <time.h>

static _Thread_local kiln_context *recording;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void record(kiln_context *ctx, int64_t kernel, uint64_t begin,
                   uint64_t end) {
  if (ctx->num_events >= ctx->max_events) {
    ++ctx->dropped_events;
    return;
  }
  kiln_profile_event *e = &ctx->events[ctx->num_events++];
  e->kernel = kernel;
  e->begin_ns = begin;
  e->end_ns = end;
}

void kiln_rt_profile_event(int64_t kernel, int64_t phase) {
  kiln_context *ctx = recording;
  if (!ctx)
    return;
  /* Kernels nest (a serial loop over K blocks calls a parallel kernel per
   * block): each end closes the innermost open begin. Levels past the stack's
   * depth are not timed, their enclosing kernel still is. */
  int depth = ctx->kernel_depth;
  if (phase == 0) {
    if (depth < KILN_PROFILE_MAX_DEPTH)
      ctx->kernel_begin_ns[depth] = now_ns();
    ctx->kernel_depth = depth + 1;
    return;
  }
  if (depth == 0)
    return;
  ctx->kernel_depth = --depth;
  if (depth < KILN_PROFILE_MAX_DEPTH && kernel >= 0 &&
      kernel < ctx->model->desc->num_kernels)
    record(ctx, kernel, ctx->kernel_begin_ns[depth], now_ns());
}

int32_t kiln_rt_run_recorded(kiln_context *ctx) {
  const kiln_model_desc *d = ctx->model->desc;
  if (!ctx->events)
    return d->run(ctx->buffers, ctx->dims, ctx->arena);
  kiln_context *outer = recording;
  recording = ctx;
  ctx->kernel_depth = 0;
  uint64_t begin = now_ns();
  int32_t rc = d->run(ctx->buffers, ctx->dims, ctx->arena);
  uint64_t end = now_ns();
  recording = outer;
  record(ctx, KILN_PROFILE_RUN, begin, end);
  return rc;
}

int64_t kiln_model_num_kernels(const kiln_model *m) {
  return m && m->desc->kernels ? m->desc->num_kernels : 0;
}

const kiln_kernel_info *kiln_model_kernel(const kiln_model *m, int64_t index) {
  if (index < 0 || index >= kiln_model_num_kernels(m))
    return NULL;
  return &m->desc->kernels[index];
}

kiln_status kiln_context_set_profiling(kiln_context *ctx, int64_t max_events) {
  if (!ctx)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_context_set_profiling: ctx is NULL");
  if (max_events < 0)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_context_set_profiling: negative max_events");
  if (max_events > 0 && kiln_model_num_kernels(ctx->model) == 0)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "model '%s' has no profiled kernels: compile it with "
                        "`kiln compile --profile`",
                        kiln_model_name(ctx->model));
  kiln_profile_event *events = NULL;
  if (max_events > 0) {
    events = calloc((size_t)max_events, sizeof(*events));
    if (!events)
      return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY,
                          "kiln_context_set_profiling: %lld events",
                          (long long)max_events);
  }
  free(ctx->events);
  ctx->events = events;
  ctx->max_events = max_events;
  ctx->num_events = 0;
  ctx->dropped_events = 0;
  return KILN_STATUS_OK;
}

kiln_status kiln_context_profile_events(const kiln_context *ctx,
                                        const kiln_profile_event **events,
                                        int64_t *count, int64_t *dropped) {
  if (!ctx || !events || !count)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_context_profile_events: NULL argument");
  *events = ctx->events;
  *count = ctx->num_events;
  if (dropped)
    *dropped = ctx->dropped_events;
  return KILN_STATUS_OK;
}
