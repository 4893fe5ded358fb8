/*===- run.c - Tensor validation, symbolic shape binding and kiln_run -----===*/
#include "internal.h"

#include <stdlib.h>

#define UNBOUND (-1)

/* Checks everything that does not depend on the shape: pointers, dtype,
 * rank, non-negative extents. */
static kiln_status check_header(const char *kind, const kiln_tensor_info *info,
                                const kiln_tensor *t) {
  if (t->dtype != info->dtype)
    return kiln_rt_fail(
        KILN_STATUS_DTYPE_MISMATCH, "%s '%s': expected dtype %s, got %s", kind,
        info->name, kiln_dtype_name(info->dtype), kiln_dtype_name(t->dtype));
  if (t->rank != info->rank)
    return kiln_rt_fail(KILN_STATUS_SHAPE_MISMATCH,
                        "%s '%s': expected rank %d, got %d", kind, info->name,
                        (int)info->rank, (int)t->rank);
  if (t->rank > 0 && !t->dims)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT, "%s '%s': dims is NULL",
                        kind, info->name);
  for (int32_t k = 0; k < t->rank; ++k)
    if (t->dims[k] < 0)
      return kiln_rt_fail(KILN_STATUS_SHAPE_MISMATCH,
                          "%s '%s' dim %d: negative extent %lld", kind,
                          info->name, (int)k, (long long)t->dims[k]);
  return KILN_STATUS_OK;
}

/* Checks the data pointer and, if given, the buffer capacity. Runs after the
 * dims are known to be valid. */
static kiln_status check_data(const char *kind, const kiln_tensor_info *info,
                              const kiln_tensor *t) {
  uint64_t count = 1;
  int overflow = 0;
  for (int32_t k = 0; k < t->rank; ++k) {
    uint64_t d = (uint64_t)t->dims[k];
    if (d != 0 && count > UINT64_MAX / d)
      overflow = 1;
    count *= d;
  }
  size_t elem = kiln_dtype_size(info->dtype);
  if (overflow || count > UINT64_MAX / elem)
    return kiln_rt_fail(KILN_STATUS_SHAPE_MISMATCH,
                        "%s '%s': size overflows 64 bits", kind, info->name);
  uint64_t need = count * elem;
  if (need > 0 && !t->data)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT, "%s '%s': data is NULL",
                        kind, info->name);
  if (t->byte_size != 0 && t->byte_size < need)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "%s '%s': buffer holds %llu bytes, need %llu", kind,
                        info->name, (unsigned long long)t->byte_size,
                        (unsigned long long)need);
  return KILN_STATUS_OK;
}

kiln_status kiln_rt_bind_inputs(const kiln_model *model,
                                const kiln_tensor *inputs, int64_t num_inputs,
                                int64_t *bindings, int64_t *bound_by) {
  const kiln_model_desc *d = model->desc;
  if (num_inputs != d->num_inputs)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "expected %lld inputs, got %lld",
                        (long long)d->num_inputs, (long long)num_inputs);
  if (num_inputs > 0 && !inputs)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT, "inputs is NULL");
  for (int64_t s = 0; s < d->num_symbols; ++s)
    bindings[s] = UNBOUND;
  for (int64_t i = 0; i < num_inputs; ++i) {
    const kiln_tensor_info *info = &d->inputs[i];
    const kiln_tensor *t = &inputs[i];
    kiln_status st = check_header("input", info, t);
    if (st != KILN_STATUS_OK)
      return st;
    for (int32_t k = 0; k < t->rank; ++k) {
      int64_t want = info->dims[k], got = t->dims[k];
      if (want >= 0) {
        if (got != want)
          return kiln_rt_fail(KILN_STATUS_SHAPE_MISMATCH,
                              "input '%s' dim %d: expected %lld, got %lld",
                              info->name, (int)k, (long long)want,
                              (long long)got);
        continue;
      }
      int64_t sym = -(want + 1);
      if (bindings[sym] == UNBOUND) {
        bindings[sym] = got;
        bound_by[sym] = i;
      } else if (bindings[sym] != got) {
        return kiln_rt_fail(
            KILN_STATUS_SHAPE_MISMATCH,
            "input '%s' dim %d: expected %lld ('%s' from input '%s'), got "
            "%lld",
            info->name, (int)k, (long long)bindings[sym], d->symbols[sym],
            d->inputs[bound_by[sym]].name, (long long)got);
      }
    }
    st = check_data("input", info, t);
    if (st != KILN_STATUS_OK)
      return st;
  }
  return KILN_STATUS_OK;
}

static int is_runtime_output(const kiln_tensor_info *info) {
  for (int32_t k = 0; k < info->rank; ++k)
    if (info->dims[k] == KILN_DIM_AT_RUN_TIME)
      return 1;
  return 0;
}

/* -1 for a dim only the run knows. */
static void resolve_dims(const kiln_tensor_info *info, const int64_t *bindings,
                         int64_t *dims_out) {
  for (int32_t k = 0; k < info->rank; ++k) {
    int64_t dim = info->dims[k];
    /* Load-time checks guarantee every output symbol is bound by an input. */
    dims_out[k] = dim >= 0                      ? dim
                  : dim == KILN_DIM_AT_RUN_TIME ? -1
                                                : bindings[-(dim + 1)];
  }
}

/* The dims table the model's run takes: each input's dims, then each
 * output's as `bindings` give them (-1 where only the run knows). */
static void write_dims_table(const kiln_model_desc *d,
                             const kiln_tensor *inputs, const int64_t *bindings,
                             int64_t *dims) {
  for (int64_t i = 0; i < d->num_inputs; ++i)
    for (int32_t k = 0; k < inputs[i].rank; ++k)
      *dims++ = inputs[i].dims[k];
  for (int64_t i = 0; i < d->num_outputs; ++i) {
    resolve_dims(&d->outputs[i], bindings, dims);
    dims += d->outputs[i].rank;
  }
}

void kiln_rt_release_outputs(kiln_context *ctx) {
  const kiln_model_desc *d = ctx->model->desc;
  void **blocks = ctx->buffers + d->num_inputs + d->num_outputs;
  for (int64_t j = 0; j < ctx->model->num_runtime_outputs; ++j) {
    free(blocks[j]);
    blocks[j] = NULL;
  }
  ctx->has_run = 0;
}

kiln_status kiln_infer_output_dims(const kiln_model *model,
                                   const kiln_tensor *inputs,
                                   int64_t num_inputs, int64_t output_index,
                                   int64_t *dims_out) {
  if (!model)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_infer_output_dims: model is NULL");
  const kiln_model_desc *d = model->desc;
  if (output_index < 0 || output_index >= d->num_outputs)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "output index %lld out of range (model has %lld)",
                        (long long)output_index, (long long)d->num_outputs);
  const kiln_tensor_info *info = &d->outputs[output_index];
  if (info->rank > 0 && !dims_out)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_infer_output_dims: dims_out is NULL");
  /* Small models fit on the stack; this call may come from any thread. */
  int64_t stack[2 * 16];
  int64_t *scratch = stack;
  if (d->num_symbols > 16) {
    scratch = malloc(2 * (size_t)d->num_symbols * sizeof(int64_t));
    if (!scratch)
      return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY,
                          "kiln_infer_output_dims: symbol table");
  }
  int64_t *bindings = scratch, *bound_by = scratch + d->num_symbols;
  kiln_status st =
      kiln_rt_bind_inputs(model, inputs, num_inputs, bindings, bound_by);
  if (st == KILN_STATUS_OK)
    resolve_dims(info, bindings, dims_out);
  if (scratch != stack)
    free(scratch);
  return st;
}

kiln_status kiln_model_arena_bytes_for(const kiln_model *model,
                                       const kiln_tensor *inputs,
                                       int64_t num_inputs, uint64_t *bytes) {
  if (!model || !bytes)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_model_arena_bytes_for: model or bytes is NULL");
  const kiln_model_desc *d = model->desc;
  /* One block: bindings, bound_by, then the run's dims table. */
  int64_t *scratch =
      malloc((2 * (size_t)d->num_symbols + (size_t)model->total_rank + 1) *
             sizeof(int64_t));
  if (!scratch)
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY,
                        "kiln_model_arena_bytes_for: tables");
  int64_t *bindings = scratch, *bound_by = scratch + d->num_symbols;
  kiln_status st =
      kiln_rt_bind_inputs(model, inputs, num_inputs, bindings, bound_by);
  if (st == KILN_STATUS_OK) {
    int64_t *table = bound_by + d->num_symbols;
    write_dims_table(d, inputs, bindings, table);
    *bytes = d->arena_bytes_for && !d->device ? d->arena_bytes_for(table)
                                              : d->arena_bytes;
  }
  free(scratch);
  return st;
}

kiln_status kiln_run(kiln_context *ctx, const kiln_tensor *inputs,
                     int64_t num_inputs, const kiln_tensor *outputs,
                     int64_t num_outputs) {
  if (!ctx)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_run: ctx is NULL");
  const kiln_model *model = ctx->model;
  const kiln_model_desc *d = model->desc;
  kiln_rt_release_outputs(ctx);
  kiln_status st = kiln_rt_bind_inputs(model, inputs, num_inputs, ctx->bindings,
                                       ctx->bound_by);
  if (st != KILN_STATUS_OK)
    return st;
  if (num_outputs != d->num_outputs)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "expected %lld outputs, got %lld",
                        (long long)d->num_outputs, (long long)num_outputs);
  if (num_outputs > 0 && !outputs)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT, "outputs is NULL");

  /* The inferred output dims go straight into the table handed to the
   * model; the caller's outputs must have them. */
  write_dims_table(d, inputs, ctx->bindings, ctx->dims);
  int64_t *dims = ctx->dims;
  for (int64_t i = 0; i < num_inputs; ++i) {
    dims += inputs[i].rank;
    ctx->buffers[i] = inputs[i].data;
  }
  for (int64_t i = 0; i < num_outputs; ++i) {
    const kiln_tensor_info *info = &d->outputs[i];
    const kiln_tensor *t = &outputs[i];
    if (is_runtime_output(info)) {
      /* The run allocates it; only the type is the caller's to give. */
      if (t->dtype != info->dtype || t->rank != info->rank)
        return check_header("output", info, t); /* says which */
      dims += info->rank;
      ctx->buffers[num_inputs + i] = NULL;
      continue;
    }
    st = check_header("output", info, t);
    if (st != KILN_STATUS_OK)
      return st;
    for (int32_t k = 0; k < t->rank; ++k)
      if (t->dims[k] != dims[k])
        return kiln_rt_fail(KILN_STATUS_SHAPE_MISMATCH,
                            "output '%s' dim %d: expected %lld, got %lld",
                            info->name, (int)k, (long long)dims[k],
                            (long long)t->dims[k]);
    dims += t->rank;
    st = check_data("output", info, t);
    if (st != KILN_STATUS_OK)
      return st;
    ctx->buffers[num_inputs + i] = t->data;
  }

  /* Buffers whose sizes follow from symbolic dims live in the arena too. */
  if (!ctx->gpu && d->arena_bytes_for) {
    st = kiln_rt_reserve_arena(ctx, d->arena_bytes_for(ctx->dims));
    if (st != KILN_STATUS_OK)
      return st;
  }

  int32_t rc = 0;
  if (ctx->gpu) {
    st = kiln_rt_gpu_run(ctx, &rc);
    if (st != KILN_STATUS_OK)
      return st;
  } else {
    rc = kiln_rt_run_recorded(ctx);
  }
  if (rc != 0)
    return kiln_rt_fail(KILN_STATUS_RUN_FAILED, "model '%s' run returned %d",
                        d->name ? d->name : "", (int)rc);
  ctx->has_run = 1;
  return KILN_STATUS_OK;
}

kiln_status kiln_context_output(const kiln_context *ctx, int64_t index,
                                kiln_tensor *out) {
  if (!ctx || !out)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_context_output: ctx or out is NULL");
  const kiln_model_desc *d = ctx->model->desc;
  if (index < 0 || index >= d->num_outputs)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "output index %lld out of range (model has %lld)",
                        (long long)index, (long long)d->num_outputs);
  if (!ctx->has_run)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_context_output: no successful kiln_run on this "
                        "context since it was created or last failed");
  const int64_t *dims = ctx->dims;
  for (int64_t i = 0; i < d->num_inputs; ++i)
    dims += d->inputs[i].rank;
  for (int64_t i = 0; i < index; ++i)
    dims += d->outputs[i].rank;
  const kiln_tensor_info *info = &d->outputs[index];
  uint64_t count = 1;
  for (int32_t k = 0; k < info->rank; ++k)
    count *= (uint64_t)dims[k];
  out->dtype = info->dtype;
  out->rank = info->rank;
  out->dims = dims;
  out->data = ctx->buffers[d->num_inputs + index];
  out->byte_size = count * kiln_dtype_size(info->dtype);
  return KILN_STATUS_OK;
}
