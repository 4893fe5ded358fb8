/*===- model.c - Loading model libraries and reading their metadata -------===*/
#include "internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static kiln_status check_tensor_infos(const kiln_model_desc *d,
                                      const kiln_tensor_info *infos,
                                      int64_t count, const char *kind,
                                      const char *origin, int64_t *rank_sum) {
  if (count < 0 || (count > 0 && !infos))
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: malformed descriptor: bad %s table", origin, kind);
  for (int64_t i = 0; i < count; ++i) {
    const kiln_tensor_info *t = &infos[i];
    if (!t->name || t->rank < 0 || (t->rank > 0 && !t->dims))
      return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                          "%s: malformed descriptor: %s %lld", origin, kind,
                          (long long)i);
    if (kiln_dtype_size(t->dtype) == 0)
      return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                          "%s: %s '%s' has unsupported dtype %d", origin, kind,
                          t->name, (int)t->dtype);
    for (int32_t k = 0; k < t->rank; ++k) {
      int64_t dim = t->dims[k];
      if (dim == KILN_DIM_AT_RUN_TIME) {
        if (infos == d->inputs)
          return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                              "%s: input '%s' dim %d is marked as computed "
                              "at run time",
                              origin, t->name, (int)k);
        continue;
      }
      if (dim < 0 && -(dim + 1) >= d->num_symbols)
        return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                            "%s: %s '%s' dim %d names unknown symbol %lld",
                            origin, kind, t->name, (int)k,
                            (long long)-(dim + 1));
    }
    *rank_sum += t->rank;
  }
  return KILN_STATUS_OK;
}

/* True if some input dimension is symbol `sym`. */
static int input_binds(const kiln_model_desc *d, int64_t sym) {
  for (int64_t i = 0; i < d->num_inputs; ++i)
    for (int32_t k = 0; k < d->inputs[i].rank; ++k)
      if (d->inputs[i].dims[k] == -(sym + 1))
        return 1;
  return 0;
}

kiln_status kiln_rt_check_desc(kiln_model *model, const char *origin) {
  const kiln_model_desc *d = model->desc;
  if (!d->run)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: malformed descriptor: no run function", origin);
  if (d->num_symbols < 0 || (d->num_symbols > 0 && !d->symbols))
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: malformed descriptor: bad symbol table", origin);
  for (int64_t i = 0; i < d->num_symbols; ++i)
    if (!d->symbols[i])
      return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                          "%s: malformed descriptor: symbol %lld unnamed",
                          origin, (long long)i);
  int64_t rank_sum = 0;
  kiln_status st = check_tensor_infos(d, d->inputs, d->num_inputs, "input",
                                      origin, &rank_sum);
  if (st != KILN_STATUS_OK)
    return st;
  st = check_tensor_infos(d, d->outputs, d->num_outputs, "output", origin,
                          &rank_sum);
  if (st != KILN_STATUS_OK)
    return st;
  /* An output symbol no input binds could never be resolved. */
  model->num_runtime_outputs = 0;
  for (int64_t i = 0; i < d->num_outputs; ++i) {
    int runtime = 0;
    for (int32_t k = 0; k < d->outputs[i].rank; ++k) {
      int64_t dim = d->outputs[i].dims[k];
      if (dim == KILN_DIM_AT_RUN_TIME) {
        runtime = 1;
        continue;
      }
      if (dim < 0 && !input_binds(d, -(dim + 1)))
        return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                            "%s: output '%s' dim %d uses a symbol no input "
                            "binds",
                            origin, d->outputs[i].name, (int)k);
    }
    model->num_runtime_outputs += runtime;
  }
  if (model->num_runtime_outputs > 0 && d->device)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: malformed descriptor: a device library with "
                        "outputs sized at run time",
                        origin);
  if (d->num_kernels < 0 || (d->num_kernels > 0 && !d->kernels))
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: malformed descriptor: bad kernel table", origin);
  for (int64_t i = 0; i < d->num_kernels; ++i) {
    const kiln_kernel_info *k = &d->kernels[i];
    if (!k->symbol || !k->node || !k->op_type || !k->fused)
      return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                          "%s: malformed descriptor: kernel %lld", origin,
                          (long long)i);
  }
  kiln_status cpu = kiln_rt_check_cpu_features(d, origin);
  if (cpu != KILN_STATUS_OK)
    return cpu;
  kiln_status device = kiln_rt_bind_device_calls(d, origin);
  if (device != KILN_STATUS_OK)
    return device;
  uint64_t align = d->arena_alignment;
  if (align & (align - 1))
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: arena alignment %llu is not a power of two",
                        origin, (unsigned long long)align);
  model->arena_alignment = align < 64 ? 64 : align;
  model->total_rank = rank_sum;
  return KILN_STATUS_OK;
}

static kiln_status check_abi(const kiln_model_desc *desc, const char *origin) {
  if (!desc)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: " KILN_MODEL_ENTRY_SYMBOL "() returned NULL",
                        origin);
  /* Read only the version before trusting the rest of the layout. */
  if (desc->abi_version != KILN_MODEL_ABI_VERSION)
    return kiln_rt_fail(KILN_STATUS_ABI_MISMATCH,
                        "%s: model ABI version %u, runtime expects %u", origin,
                        (unsigned)desc->abi_version,
                        (unsigned)KILN_MODEL_ABI_VERSION);
  return KILN_STATUS_OK;
}

kiln_status kiln_rt_load_library(const char *dl_path, const char *origin,
                                 kiln_model **out) {
  void *handle = dlopen(dl_path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *msg = dlerror();
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "cannot load '%s': %s", origin,
                        msg ? msg : "unknown dlopen error");
  }
  /* The function-pointer cast through a union keeps -Wpedantic quiet. */
  union {
    void *obj;
    kiln_model_get_fn fn;
  } entry;
  entry.obj = dlsym(handle, KILN_MODEL_ENTRY_SYMBOL);
  if (!entry.obj) {
    dlclose(handle);
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "'%s' does not export " KILN_MODEL_ENTRY_SYMBOL,
                        origin);
  }
  const kiln_model_desc *desc = entry.fn();
  kiln_status st = check_abi(desc, origin);
  if (st != KILN_STATUS_OK) {
    dlclose(handle);
    return st;
  }
  kiln_model *model = calloc(1, sizeof(*model));
  if (!model) {
    dlclose(handle);
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY, "kiln_model_load: %s",
                        origin);
  }
  model->handle = handle;
  model->desc = desc;
  st = kiln_rt_check_desc(model, origin);
  if (st == KILN_STATUS_OK)
    st = kiln_rt_map_weights(model, dl_path);
  if (st != KILN_STATUS_OK) {
    kiln_model_unload(model);
    return st;
  }
  *out = model;
  return KILN_STATUS_OK;
}

kiln_status kiln_model_load(const char *path, kiln_model **out) {
  if (!out)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_model_load: out is NULL");
  *out = NULL;
  if (!path)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_model_load: path is NULL");
  if (kiln_is_bundle(path))
    return kiln_rt_load_bundle(path, out);
  /* A path without a slash would send dlopen through the library search
   * path; a model path always names a file. */
  if (strchr(path, '/'))
    return kiln_rt_load_library(path, path, out);
  size_t len = strlen(path);
  char *local = (char *)malloc(len + 3);
  if (!local)
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY,
                        "kiln_model_load: out of memory");
  memcpy(local, "./", 2);
  memcpy(local + 2, path, len + 1);
  kiln_status st = kiln_rt_load_library(local, path, out);
  free(local);
  return st;
}

kiln_status kiln_model_from_desc(const kiln_model_desc *desc,
                                 kiln_model **out) {
  if (!out)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_model_from_desc: out is NULL");
  *out = NULL;
  kiln_status st = check_abi(desc, "kiln_model_from_desc");
  if (st != KILN_STATUS_OK)
    return st;
  kiln_model *model = calloc(1, sizeof(*model));
  if (!model)
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY, "kiln_model_from_desc");
  model->desc = desc;
  st = kiln_rt_check_desc(model, "kiln_model_from_desc");
  if (st == KILN_STATUS_OK)
    st = kiln_rt_map_weights(model, NULL);
  if (st != KILN_STATUS_OK) {
    free(model);
    return st;
  }
  *out = model;
  return KILN_STATUS_OK;
}

void kiln_model_unload(kiln_model *model) {
  if (!model)
    return;
  kiln_rt_unmap_weights(model);
  if (model->handle)
    dlclose(model->handle);
  free(model);
}

/* Accessors tolerate NULL so that bindings can call them unguarded. */
const kiln_model_desc *kiln_model_descriptor(const kiln_model *m) {
  return m ? m->desc : NULL;
}
const char *kiln_model_name(const kiln_model *m) {
  return m && m->desc->name ? m->desc->name : "";
}
const char *kiln_model_target(const kiln_model *m) {
  return m && m->desc->target ? m->desc->target : "";
}

const char *kiln_model_device(const kiln_model *m) {
  return m && m->desc->device ? m->desc->device : "";
}
const char *kiln_model_kiln_version(const kiln_model *m) {
  return m && m->desc->kiln_version ? m->desc->kiln_version : "";
}
uint64_t kiln_model_weights_checksum(const kiln_model *m) {
  return m ? m->desc->weights_checksum : 0;
}
uint64_t kiln_model_arena_bytes(const kiln_model *m) {
  return m ? m->desc->arena_bytes : 0;
}
uint64_t kiln_model_arena_alignment(const kiln_model *m) {
  return m ? m->arena_alignment : 0;
}
int64_t kiln_model_num_inputs(const kiln_model *m) {
  return m ? m->desc->num_inputs : 0;
}
int64_t kiln_model_num_outputs(const kiln_model *m) {
  return m ? m->desc->num_outputs : 0;
}
const kiln_tensor_info *kiln_model_input(const kiln_model *m, int64_t index) {
  if (!m || index < 0 || index >= m->desc->num_inputs)
    return NULL;
  return &m->desc->inputs[index];
}
const kiln_tensor_info *kiln_model_output(const kiln_model *m, int64_t index) {
  if (!m || index < 0 || index >= m->desc->num_outputs)
    return NULL;
  return &m->desc->outputs[index];
}
int64_t kiln_model_num_symbols(const kiln_model *m) {
  return m ? m->desc->num_symbols : 0;
}
const char *kiln_model_symbol(const kiln_model *m, int64_t index) {
  if (!m || index < 0 || index >= m->desc->num_symbols)
    return NULL;
  return m->desc->symbols[index];
}

static int64_t find_tensor(const kiln_tensor_info *infos, int64_t count,
                           const char *name) {
  if (!name)
    return -1;
  for (int64_t i = 0; i < count; ++i)
    if (strcmp(infos[i].name, name) == 0)
      return i;
  return -1;
}
int64_t kiln_model_find_input(const kiln_model *m, const char *name) {
  return m ? find_tensor(m->desc->inputs, m->desc->num_inputs, name) : -1;
}
int64_t kiln_model_find_output(const kiln_model *m, const char *name) {
  return m ? find_tensor(m->desc->outputs, m->desc->num_outputs, name) : -1;
}
