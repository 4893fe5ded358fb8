/*===- fake_bad_abi_model.c - Model library from a future ABI -------------===*
 *
 * Only abi_version is meaningful: the runtime must reject the library before
 * reading any other field, whose layout a future ABI may change.
 *===----------------------------------------------------------------------===*/
#include "kiln_model_abi.h"

static const kiln_model_desc kDesc = {
    .abi_version = KILN_MODEL_ABI_VERSION + 1,
    .name = "future",
};

__attribute__((visibility("default"))) const kiln_model_desc *
kiln_model_get(void) {
  return &kDesc;
}
