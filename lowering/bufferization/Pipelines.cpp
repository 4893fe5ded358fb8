//===- Pipelines.cpp - Pass-pipeline pieces every target shares -----------===//

#include "lowering/bufferization/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

void addPipelineText(mlir::OpPassManager &pm, llvm::StringRef text) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (mlir::failed(mlir::parsePassPipeline(text, pm, os)))
    llvm::report_fatal_error(llvm::Twine("invalid built-in pipeline: ") +
                             os.str());
}

void addEntryBufferization(mlir::OpPassManager &pm) {
  addPipelineText(
      pm, "func.func(kiln-unshare-initializers,kiln-mark-pad-interiors),"
          "eliminate-empty-tensors,"
          "func.func(kiln-nest-inserted-tensors),"
          "one-shot-bufferize{bufferize-function-boundaries "
          "allow-return-allocs-from-loops "
          "function-boundary-type-conversion=identity-layout-map},"
          "canonicalize,func.func(kiln-fill-pad-borders)");
}

} // namespace kiln
