//===- Targets.cpp - The one place targets are registered -----------------===//

#include "compiler/pipeline/TargetBackend.h"
#include "lowering/cpu/CpuTargets.h"

namespace kiln {

void registerAllTargets() {
  static bool done = [] {
    registerCpuTargets();
    return true;
  }();
  (void)done;
}

} // namespace kiln
