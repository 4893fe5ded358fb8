//===- CpuPipeline.cpp - linalg to LLVM dialect for CPU targets -----------===//

#include "lowering/cpu/CpuPipeline.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
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
  addPipeline(pm, "canonicalize,cse,"
                  "func.func(kiln-fuse-elementwise)");
  if (options.convToIm2Col && options.tileAndVectorize)
    addPipeline(pm, "func.func(kiln-cpu-conv-to-im2col),canonicalize,cse");
  // Bufferize (outputs are already caller buffers), then free intermediates.
  addPipeline(pm, "eliminate-empty-tensors,"
                  "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map},"
                  "canonicalize,kiln-plan-memory,"
                  "buffer-deallocation-pipeline,"
                  "convert-bufferization-to-memref,"
                  "func.func(kiln-copy-to-linalg)");
  // Depthwise convolutions get their own vector kernel and threads.
  if (options.tileAndVectorize)
    addPipeline(pm, llvm::formatv(
                        "func.func(kiln-cpu-vectorize-depthwise-conv{{"
                        "vector-bits={0} parallel={1} "
                        "min-parallel-work={2}})",
                        options.vectorBits, options.parallel ? "true" : "false",
                        options.minParallelWork)
                        .str());
  // Tiles, register kernels and threads on buffers.
  if (options.tileAndVectorize) {
    addPipeline(
        pm, llvm::formatv(
                "func.func(kiln-cpu-tile-and-vectorize{{vector-bits={0} "
                "tile-m={1} tile-n={2} tile-k={3} reg-m={4} reg-n={5} "
                "reg-k={6} parallel={7} min-parallel-work={8} "
                "pack-row-bytes={9} pack-a-row-bytes={10}}),"
                "canonicalize,cse,func.func(kiln-cpu-lower-vector),"
                "canonicalize,cse",
                options.vectorBits, options.tileM, options.tileN, options.tileK,
                options.regM, options.regN, options.regK,
                options.parallel ? "true" : "false", options.minParallelWork,
                options.packRowBytes, options.packARowBytes)
                .str());
  }
  addPipeline(pm, "func.func(kiln-cpu-approximate-math)");
  addPipeline(pm, "kiln-cpu-parallel-to-runtime");
  // Loops, then LLVM.
  addPipeline(
      pm,
      "func.func(convert-linalg-to-loops),"
      "convert-vector-to-scf{full-unroll=true},"
      "lower-affine,convert-scf-to-cf,"
      "expand-strided-metadata,lower-affine,"
      "convert-vector-to-llvm{reassociate-fp-reductions},convert-ub-to-llvm,"
      "convert-math-to-llvm,convert-math-to-libm,"
      "finalize-memref-to-llvm,convert-arith-to-llvm,"
      "convert-index-to-llvm,convert-func-to-llvm,"
      "convert-cf-to-llvm,reconcile-unrealized-casts,"
      "kiln-cpu-store-bools-as-bytes");
}

} // namespace kiln
