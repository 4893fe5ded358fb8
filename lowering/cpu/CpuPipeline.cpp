//===- CpuPipeline.cpp - linalg to LLVM dialect for CPU targets -----------===//

#include "lowering/cpu/CpuPipeline.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln {

static void addPipeline(OpPassManager &pm, llvm::StringRef text) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(text, pm, os)))
    llvm::report_fatal_error(llvm::Twine("invalid built-in pipeline: ") +
                             os.str());
}

void buildCpuLoweringPipeline(OpPassManager &pm,
                              const CpuScheduleOptions &options) {
  (void)options;
  // Bufferize (outputs are already caller buffers), then free intermediates.
  addPipeline(pm, "canonicalize,cse,"
                  "func.func(linalg-fuse-elementwise-ops),"
                  "eliminate-empty-tensors,"
                  "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map},"
                  "canonicalize,kiln-plan-memory,"
                  "buffer-deallocation-pipeline,"
                  "convert-bufferization-to-memref");
  // Loops, then LLVM.
  addPipeline(pm, "func.func(convert-linalg-to-loops),"
                  "lower-affine,convert-scf-to-cf,"
                  "expand-strided-metadata,lower-affine,"
                  "convert-math-to-llvm,convert-math-to-libm,"
                  "finalize-memref-to-llvm,convert-arith-to-llvm,"
                  "convert-index-to-llvm,convert-func-to-llvm,"
                  "convert-cf-to-llvm,reconcile-unrealized-casts");
}

} // namespace kiln
