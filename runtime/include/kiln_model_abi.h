/*===- kiln_model_abi.h - Contract between a compiled model and kiln_rt ---===*
 *
 * A model library produced by `kiln compile` exports exactly one symbol,
 * `kiln_model_get`, returning a pointer to a static `kiln_model_desc`. The
 * runtime (kiln_rt) reads only this structure; the compiler emits it. Changing
 * the layout requires bumping KILN_MODEL_ABI_VERSION.
 *
 * Plain C, no dependencies: also included by the generated model header.
 *===----------------------------------------------------------------------===*/
#ifndef KILN_MODEL_ABI_H
#define KILN_MODEL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_MODEL_ABI_VERSION 7u

/* Element types use ONNX TensorProto.DataType codes so that .pb files and
 * model metadata agree without a translation table. */
typedef enum kiln_dtype {
  KILN_DTYPE_UNDEFINED = 0,
  KILN_DTYPE_FLOAT32 = 1,
  KILN_DTYPE_UINT8 = 2,
  KILN_DTYPE_INT8 = 3,
  KILN_DTYPE_UINT16 = 4,
  KILN_DTYPE_INT16 = 5,
  KILN_DTYPE_INT32 = 6,
  KILN_DTYPE_INT64 = 7,
  KILN_DTYPE_BOOL = 9, /* one byte per element, 0 or 1 */
  KILN_DTYPE_FLOAT16 = 10,
  KILN_DTYPE_FLOAT64 = 11,
  KILN_DTYPE_UINT32 = 12,
  KILN_DTYPE_UINT64 = 13,
  KILN_DTYPE_BFLOAT16 = 16,
} kiln_dtype;

/* Bytes per element of a kiln_dtype (bools take a byte); 0 for unknown
 * codes. Shared by kiln_rt and the code generator. */
static inline int64_t kiln_dtype_bytes(int32_t dtype) {
  switch (dtype) {
  case KILN_DTYPE_UINT8:
  case KILN_DTYPE_INT8:
  case KILN_DTYPE_BOOL:
    return 1;
  case KILN_DTYPE_UINT16:
  case KILN_DTYPE_INT16:
  case KILN_DTYPE_FLOAT16:
  case KILN_DTYPE_BFLOAT16:
    return 2;
  case KILN_DTYPE_FLOAT32:
  case KILN_DTYPE_INT32:
  case KILN_DTYPE_UINT32:
    return 4;
  case KILN_DTYPE_INT64:
  case KILN_DTYPE_FLOAT64:
  case KILN_DTYPE_UINT64:
    return 8;
  default:
    return 0;
  }
}

/* One graph input or output. `dims[i] >= 0` is a static extent; a negative
 * value `-(k + 1)` names symbolic dimension k (see kiln_model_desc.symbols).
 * Outputs only use symbols that some input binds. Since ABI 6, an output dim
 * may be KILN_DIM_AT_RUN_TIME: its extent depends on the input data (NonZero,
 * Unique, a TopK whose K is an input, ...) or on the input dims through
 * arithmetic, and only the run knows it (see kiln_model_run_fn). */
#define KILN_DIM_AT_RUN_TIME INT64_MIN
typedef struct kiln_tensor_info {
  const char *name;
  int32_t dtype; /* kiln_dtype */
  int32_t rank;
  const int64_t *dims;
} kiln_tensor_info;

/* Since ABI 4. One instrumented kernel of a library compiled with
 * `kiln compile --profile`: an outlined loop nest, named by the ONNX node it
 * comes from. Around each call the library calls
 * kiln_rt_profile_event(index, 0) and kiln_rt_profile_event(index, 1). */
typedef struct kiln_kernel_info {
  const char *symbol;  /* the outlined function, e.g. "kiln_entry_conv1_par3" */
  const char *node;    /* ONNX node name ("" when unknown) */
  const char *op_type; /* ONNX op type of the node ("Conv") */
  const char *fused;   /* what was fused into it ("Relu", "bias"); "" if none */
  /* Floating-point operations of the whole node (2 per multiply-add), 0
   * when unknown (dynamic shapes, ops without a count). Every kernel of the
   * node carries the node's count. */
  double node_flops;
} kiln_kernel_info;

/* Entry point. `buffers` holds num_inputs + num_outputs data pointers, inputs
 * first; `dims` holds the actual extents of every tensor in the same order,
 * concatenated (rank entries each). Buffers are dense row-major. `arena`
 * points to `arena_bytes` (or, since ABI 7, `arena_bytes_for(dims)` when that
 * is set) of scratch aligned to `arena_alignment`, owned by
 * the caller and not used concurrently. Returns 0 on success.
 *
 * Since ABI 6, an output with a KILN_DIM_AT_RUN_TIME dim (a run-time output)
 * is allocated by the run: its slot in `buffers` and its entries in `dims` are
 * ignored on entry and written on return (the data pointer, all its extents).
 * `buffers` then has one more slot per run-time output, after the outputs, in
 * output order: the run stores there the pointer to pass to free() once the
 * data is no longer needed (the data pointer may point inside that block). */
typedef int32_t (*kiln_model_run_fn)(void **buffers, int64_t *dims,
                                     void *arena);

typedef struct kiln_model_desc {
  uint32_t abi_version; /* KILN_MODEL_ABI_VERSION */
  uint32_t reserved;
  const char *name;         /* graph name, sanitized to a C identifier */
  const char *target;       /* e.g. "x86_64" */
  const char *kiln_version; /* compiler version that produced the library */
  /* FNV-1a 64 over all constant tensor bytes (with external weights: over
   * the bytes of the weights file) */
  uint64_t weights_checksum;
  int64_t num_inputs;
  const kiln_tensor_info *inputs;
  int64_t num_outputs;
  const kiln_tensor_info *outputs;
  int64_t num_symbols;
  const char *const *symbols; /* names of symbolic dims, e.g. "batch" */
  uint64_t arena_bytes;       /* scratch size from the static memory plan */
  uint64_t arena_alignment;
  kiln_model_run_fn run;
  /* Most bytes of planned buffers alive at once: no plan can use a smaller
   * arena, so arena_bytes / arena_lower_bound measures the plan. */
  uint64_t arena_lower_bound;
  /* Since ABI 3. The CPU the code was compiled for ("x86-64-v3", "znver5")
   * and the CPU features it may use, comma-separated in LLVM's spelling
   * ("avx,avx2,fma"); kiln_rt refuses to load the library on a machine that
   * lacks one of them. NULL or "" when nothing needs checking. */
  const char *cpu;
  const char *cpu_features;
  /* Since ABI 4. The instrumented kernels of a `--profile` library; 0 and
   * NULL otherwise. */
  int64_t num_kernels;
  const kiln_kernel_info *kernels;
  /* Since ABI 4. Weights kept outside the library (`--weights external`):
   * the file's name, relative to the library's folder, and its size. The
   * runtime maps the file read-only, checks its size and that its FNV-1a 64
   * equals weights_checksum, and stores its address in *weights_base, which
   * the code reads every weight through. NULL, 0 and NULL when the weights
   * are inside the library. */
  const char *weights_file;
  uint64_t weights_bytes;
  const void **weights_base;
  /* Since ABI 5. Where the kernels run: "cuda:sm_90" for a library whose
   * kernels are PTX for that chip, NULL for CPU code. The host code calls
   * the device launcher through `device_calls`, a table of
   * num_device_calls function pointers that kiln_rt fills at load time by
   * the names in device_call_names (upstream MLIR's launcher ABI,
   * "mgpuLaunchKernel", ..., and kiln's "kiln_gpu_constant"); a name kiln_rt
   * does not provide fails the load. */
  const char *device;
  int64_t num_device_calls;
  const char *const *device_call_names;
  void **device_calls;
  /* Since ABI 7. Models with symbolic dims place buffers whose sizes follow
   * from the input dims in the arena too: their offsets are computed on
   * entry, and this function returns the arena bytes a run with the dims
   * table `dims` (the layout `run` takes; the extents of run-time outputs
   * are not read) needs, at least arena_bytes. NULL when arena_bytes always
   * suffices. */
  uint64_t (*arena_bytes_for)(const int64_t *dims);
} kiln_model_desc;

typedef const kiln_model_desc *(*kiln_model_get_fn)(void);

#define KILN_MODEL_ENTRY_SYMBOL "kiln_model_get"

#ifdef __cplusplus
}
#endif

#endif /* KILN_MODEL_ABI_H */
