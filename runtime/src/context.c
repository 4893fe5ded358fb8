/*===- context.c - Run contexts and their scratch arenas ------------------===*/
#include "internal.h"

#include <stdlib.h>

kiln_status kiln_context_create(const kiln_model *model, kiln_context **out) {
  if (!out)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_context_create: out is NULL");
  *out = NULL;
  if (!model)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_context_create: model is NULL");
  const kiln_model_desc *d = model->desc;
  kiln_context *ctx = calloc(1, sizeof(*ctx));
  if (!ctx)
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY,
                        "kiln_context_create: context");
  ctx->model = model;
  /* +1 keeps every calloc non-zero-sized, so NULL always means failure. */
  ctx->buffers = calloc(
      (size_t)(d->num_inputs + d->num_outputs + model->num_runtime_outputs) + 1,
      sizeof(void *));
  ctx->dims = calloc((size_t)model->total_rank + 1, sizeof(int64_t));
  ctx->bindings = calloc((size_t)d->num_symbols + 1, sizeof(int64_t));
  ctx->bound_by = calloc((size_t)d->num_symbols + 1, sizeof(int64_t));
  if (!ctx->buffers || !ctx->dims || !ctx->bindings || !ctx->bound_by) {
    kiln_context_destroy(ctx);
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY,
                        "kiln_context_create: run tables");
  }
  if (d->device) {
    kiln_status st = kiln_rt_gpu_create(model, &ctx->gpu);
    if (st != KILN_STATUS_OK) {
      kiln_context_destroy(ctx);
      return st;
    }
  }
  /* A GPU model's arena is device memory (cuda.c). */
  if (d->arena_bytes > 0 && !d->device) {
    kiln_status st = kiln_rt_reserve_arena(ctx, d->arena_bytes);
    if (st != KILN_STATUS_OK) {
      kiln_context_destroy(ctx);
      return st;
    }
  }
  *out = ctx;
  return KILN_STATUS_OK;
}

kiln_status kiln_rt_reserve_arena(kiln_context *ctx, uint64_t bytes) {
  if (bytes <= ctx->arena_capacity)
    return KILN_STATUS_OK;
  uint64_t align = ctx->model->arena_alignment;
  /* aligned_alloc wants a multiple of the alignment. */
  uint64_t size = (bytes + align - 1) / align * align;
  void *arena = NULL;
  if (size >= bytes && size <= SIZE_MAX)
    arena = aligned_alloc((size_t)align, (size_t)size);
  if (!arena)
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY,
                        "arena of %llu bytes for model '%s'",
                        (unsigned long long)bytes,
                        ctx->model->desc->name ? ctx->model->desc->name : "");
  free(ctx->arena);
  ctx->arena = arena;
  ctx->arena_capacity = size;
  return KILN_STATUS_OK;
}

uint64_t kiln_context_arena_bytes(const kiln_context *ctx) {
  return ctx ? ctx->arena_capacity : 0;
}

void *kiln_context_arena(const kiln_context *ctx) {
  return ctx ? ctx->arena : NULL;
}

void kiln_context_destroy(kiln_context *ctx) {
  if (!ctx)
    return;
  kiln_rt_gpu_destroy(ctx->gpu);
  if (ctx->buffers)
    kiln_rt_release_outputs(ctx);
  free(ctx->arena);
  free(ctx->buffers);
  free(ctx->dims);
  free(ctx->bindings);
  free(ctx->bound_by);
  free(ctx->events);
  free(ctx);
}

const kiln_model *kiln_context_model(const kiln_context *ctx) {
  return ctx ? ctx->model : NULL;
}
