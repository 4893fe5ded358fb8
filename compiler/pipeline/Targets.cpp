//===- Targets.cpp - The one place targets are registered -----------------===//
//
// Each entry names a folder under lowering/targets/ that defines
// `void register<Name>Target()`; adding a target adds one line here.
//
//===----------------------------------------------------------------------===//

#include "lowering/targets/TargetBackend.h"

#define KILN_FOR_EACH_TARGET(TARGET)                                           \
  TARGET(X86_64)                                                               \
  TARGET(AArch64)                                                              \
  TARGET(Riscv64)                                                              \
  TARGET(Nvptx)

namespace kiln {

#define KILN_DECLARE_TARGET(NAME) void register##NAME##Target();
KILN_FOR_EACH_TARGET(KILN_DECLARE_TARGET)
#undef KILN_DECLARE_TARGET

void registerAllTargets() {
  static bool done = [] {
#define KILN_REGISTER_TARGET(NAME) register##NAME##Target();
    KILN_FOR_EACH_TARGET(KILN_REGISTER_TARGET)
#undef KILN_REGISTER_TARGET
    return true;
  }();
  (void)done;
}

} // namespace kiln
