//===- CpuPipeline.cpp - linalg to LLVM dialect for CPU targets -----------===//

#include "lowering/cpu/CpuPipeline.h"
#include "lowering/bufferization/Passes.h"
#include "lowering/to-linalg/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln {

void buildCpuLoweringPipeline(OpPassManager &pm,
                              const CpuScheduleOptions &options, bool profile,
                              CpuDotKernels dot) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  pm.addNestedPass<func::FuncOp>(createCollapseElementwiseDims());
  // Products over a run-time number of rows: static blocks of rows.
  pm.addNestedPass<func::FuncOp>(createBlockDynamicRows());
  // Convolutions and pooling over run-time image sizes: static tiles.
  pm.addNestedPass<func::FuncOp>(createBlockDynamicImages());
  // Every schedule decision, on tensors: the convolution paths and the
  // tiles of the ops that exist now.
  pm.addNestedPass<func::FuncOp>(createSelectSchedule(options));
  ConvToIm2ColOptions im2col;
  im2col.cacheBytes = options.cacheBytes;
  pm.addNestedPass<func::FuncOp>(createConvToIm2Col(im2col));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Bufferize (outputs are already caller buffers), then free intermediates.
  addEntryBufferization(pm);
  // Softmax and the normalizations: one loop over rows, each in L1. Before
  // the memory plan, which then keeps the chain's buffers apart for the
  // whole loop.
  pm.addNestedPass<func::FuncOp>(createFuseRowChains());
  PlanMemoryOptions plan;
  plan.symbolicSizes = true;
  pm.addPass(createPlanMemory(plan));
  addPipelineText(pm, "buffer-deallocation-pipeline,"
                      "convert-bufferization-to-memref");
  pm.addNestedPass<func::FuncOp>(createCopyToLinalg());
  // Products with packed weights (QDQ models, --precision bf16|fp16) as
  // dot-product register tiles.
  DotKernelOptions dotOptions;
  dotOptions.vectorBits = static_cast<unsigned>(options.vectorBits);
  dotOptions.arch = dot.arch;
  dotOptions.int8 = dot.int8;
  dotOptions.int8Signed = dot.int8Signed;
  dotOptions.bf16 = dot.bf16;
  dotOptions.amx = dot.amx;
  pm.addNestedPass<func::FuncOp>(createDotKernel(dotOptions));
  // Products with pruned constant weights, where the sparse kernel wins.
  SparseWeightsOptions sparse;
  sparse.vectorBits = options.vectorBits;
  sparse.enabled = options.sparseWeights;
  pm.addPass(createSparseWeights(sparse));
  // Schedules for ops made since (copies, packing); selected ones stay.
  pm.addNestedPass<func::FuncOp>(createSelectSchedule(options));
  // Depthwise convolutions get their own vector kernel and threads.
  pm.addNestedPass<func::FuncOp>(createVectorizeDepthwiseConv());
  // Tiles, register kernels and threads on buffers.
  pm.addNestedPass<func::FuncOp>(createTileAndVectorize());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createLowerVectorOps());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createApproximateMath());
  pm.addPass(createParallelToRuntime({/*markKernels=*/profile}));
  if (profile)
    pm.addPass(createInstrumentProfile());
  // Loops, then LLVM.
  // Passes that need no module-level symbols run on each function, so that
  // the functions outlined above lower on several threads.
  addPipelineText(pm, "func.func(convert-linalg-to-loops,"
                      "convert-vector-to-scf{full-unroll=true},"
                      "lower-affine),kiln-cpu-lower-amx,"
                      "func.func(convert-scf-to-cf,"
                      "kiln-expand-shape-to-reinterpret-cast,"
                      "expand-strided-metadata,lower-affine,"
                      "convert-vector-to-llvm{reassociate-fp-reductions},"
                      "convert-ub-to-llvm,convert-math-to-llvm),"
                      "convert-math-to-libm,"
                      "finalize-memref-to-llvm,"
                      "func.func(convert-arith-to-llvm,convert-index-to-llvm),"
                      "convert-func-to-llvm,"
                      "convert-cf-to-llvm,"
                      "reconcile-unrealized-casts");
  pm.addPass(createStoreBoolsAsBytes());
}

} // namespace kiln
