//===- Registration.cpp - Dialects and passes kiln tools use --------------===//

#include "compiler/pipeline/Registration.h"
#include "dialects/graph/GraphDialect.h"
#include "dialects/kernel/KernelDialect.h"
#include "lowering/bufferization/Passes.h"
#include "lowering/cpu/Passes.h"
#include "lowering/gpu/Passes.h"
#include "lowering/graph/Passes.h"
#include "lowering/to-linalg/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

namespace kiln {

void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<graph::GraphDialect>();
  registry.insert<kernel::KernelDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
}

void registerAllPasses() {
  mlir::registerAllPasses();
  registerKilnToLinalgPasses();
  registerKilnBufferizationPasses();
  registerKilnGraphPasses();
  registerKilnCpuPasses();
  registerKilnGpuPasses();
}

} // namespace kiln
