/*===- fake_add_model.c - Hand-written model library for runtime tests ----===*
 *
 * Stands in for a compiled model: z[batch, 3] = x[batch, 3] + y[batch, 3].
 * It also fills and re-checks its whole arena around the computation, so a
 * missing, misaligned or shared arena shows up as a run failure.
 *===----------------------------------------------------------------------===*/
#include "kiln_model_abi.h"

#include <stdint.h>
#include <string.h>

#define ARENA_BYTES 256

static const int64_t kDims[] = {-1, 3};
static const kiln_tensor_info kInputs[] = {
    {"x", KILN_DTYPE_FLOAT32, 2, kDims},
    {"y", KILN_DTYPE_FLOAT32, 2, kDims},
};
static const kiln_tensor_info kOutputs[] = {
    {"z", KILN_DTYPE_FLOAT32, 2, kDims},
};
static const char *const kSymbols[] = {"batch"};

/* Error codes a test can tell apart. */
enum { BAD_ARENA = 1, BAD_DIMS = 2, ARENA_CLOBBERED = 3, REQUESTED = 42 };

static int32_t run(void **buffers, int64_t *dims, void *arena) {
  if (!arena || (uintptr_t)arena % 64 != 0)
    return BAD_ARENA;
  int64_t batch = dims[0];
  if (dims[1] != 3 || dims[2] != batch || dims[3] != 3 || dims[4] != batch ||
      dims[5] != 3)
    return BAD_DIMS;
  const float *x = buffers[0], *y = buffers[1];
  float *z = buffers[2];
  /* x[0] == -999 asks for a failure so RUN_FAILED can be tested. */
  if (batch > 0 && x[0] == -999.0f)
    return REQUESTED;
  unsigned char tag = (unsigned char)(batch * 31 + 7);
  memset(arena, tag, ARENA_BYTES);
  for (int64_t i = 0; i < batch * 3; ++i)
    z[i] = x[i] + y[i];
  const unsigned char *bytes = arena;
  for (int i = 0; i < ARENA_BYTES; ++i)
    if (bytes[i] != tag)
      return ARENA_CLOBBERED;
  return 0;
}

static const kiln_model_desc kDesc = {
    .abi_version = KILN_MODEL_ABI_VERSION,
    .name = "fake_add",
    .target = "x86_64",
    .kiln_version = "0.1.0-test",
    .weights_checksum = 0xcbf29ce484222325ull,
    .num_inputs = 2,
    .inputs = kInputs,
    .num_outputs = 1,
    .outputs = kOutputs,
    .num_symbols = 1,
    .symbols = kSymbols,
    .arena_bytes = ARENA_BYTES,
    .arena_alignment = 64,
    .run = run,
};

__attribute__((visibility("default"))) const kiln_model_desc *
kiln_model_get(void) {
  return &kDesc;
}
