//===- GpuPipeline.cpp - linalg to NVVM kernels and host LLVM -------------===//
//
// Modelled on upstream's gpu-lower-to-nvvm-pipeline, with kiln's own front:
// elementwise fusion on tensors, bufferization with caller-owned outputs,
// device buffers for arguments, allocations and weights, and the mapping of
// every loop nest onto blocks and threads.
//
//===----------------------------------------------------------------------===//

#include "lowering/gpu/GpuPipeline.h"
#include "lowering/bufferization/Passes.h"
#include "lowering/gpu/Passes.h"
#include "lowering/to-linalg/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln {

std::string findCudaToolkit() {
  std::vector<std::string> roots;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto v = llvm::sys::Process::GetEnv(var))
      roots.push_back(*v);
  roots.push_back("/usr/local/cuda");
  roots.push_back("/usr/lib/cuda");
  for (const std::string &root : roots) {
    llvm::SmallString<128> p(root);
    llvm::sys::path::append(p, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(p))
      return root;
  }
  return "";
}

void buildGpuLoweringPipeline(OpPassManager &pm,
                              const GpuPipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Elementwise chains become one loop nest, hence one kernel.
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  if (options.tf32)
    pm.addNestedPass<func::FuncOp>(createConvToMatmul());
  pm.addNestedPass<func::FuncOp>(createMarkHostArguments());
  addEntryBufferization(pm);
  // The static plan places every fixed-size buffer in one arena, which
  // becomes one device block per context. Other buffers come from the
  // launcher's per-context pool and return to it when the run ends, so
  // they need no deallocation analysis (whose helper code would run on
  // the host, over device pointers).
  pm.addPass(createPlanMemory());
  addPipelineText(pm, "convert-bufferization-to-memref");
  pm.addNestedPass<func::FuncOp>(createCopyToLinalg());
  // Warp-level MMA cannot run emulated: emulation checks the rest of the
  // tf32 path (im2col, the split of ragged products) in f32.
  if (options.tf32)
    pm.addNestedPass<func::FuncOp>(createSplitRaggedMatmul());
  if (options.tf32 && !options.emulate)
    pm.addNestedPass<func::FuncOp>(createTensorCoreMatmul());
  pm.addNestedPass<func::FuncOp>(createBlockReductions());
  addPipelineText(pm, "func.func(convert-linalg-to-parallel-loops)");
  pm.addNestedPass<func::FuncOp>(createDeviceMemory());
  pm.addNestedPass<func::FuncOp>(
      createMapToGpu({/*threadsPerBlock=*/options.threadsPerBlock}));
  pm.addPass(createCanonicalizerPass());
  if (options.emulate) {
    pm.addPass(createEmulateOnHost());
    addPipelineText(pm, "canonicalize,lower-affine,convert-scf-to-cf,"
                        "func.func(kiln-expand-shape-to-reinterpret-cast),"
                        "expand-strided-metadata,lower-affine,"
                        "finalize-memref-to-llvm,convert-math-to-llvm,"
                        "convert-math-to-libm,convert-arith-to-llvm,"
                        "convert-index-to-llvm,convert-func-to-llvm,"
                        "convert-cf-to-llvm,convert-ub-to-llvm,"
                        "reconcile-unrealized-casts");
    return;
  }
  // Kernels become gpu.funcs; the host chains its launches and copies on
  // one stream and waits once, at the end of the run.
  addPipelineText(pm, "gpu-kernel-outlining");
  pm.addPass(createMergeKernelModules());
  addPipelineText(pm,
                  "func.func(gpu-async-region),lower-affine,convert-scf-to-cf");
  std::string attach = "nvvm-attach-target{chip=" + options.chip +
                       " O=" + std::to_string(options.optLevel);
  if (!options.features.empty())
    attach += " features=" + options.features;
  attach += "}";
  addPipelineText(pm, attach);
  addPipelineText(pm, "gpu.module(strip-debuginfo,convert-gpu-to-nvvm,"
                      "canonicalize,cse,reconcile-unrealized-casts)");
  // Host: the launcher calls, then one module of LLVM dialect.
  addPipelineText(pm, "func.func(kiln-expand-shape-to-reinterpret-cast),"
                      "expand-strided-metadata,lower-affine,"
                      "convert-func-to-llvm,convert-arith-to-llvm,"
                      "convert-index-to-llvm,convert-cf-to-llvm,"
                      "gpu-to-llvm,finalize-memref-to-llvm,"
                      "reconcile-unrealized-casts");
  std::string binary = "gpu-module-to-binary{format=isa";
  if (!options.toolkitPath.empty())
    binary += " toolkit=" + options.toolkitPath;
  addPipelineText(pm, binary + "}");
  addPipelineText(pm, "canonicalize,cse,reconcile-unrealized-casts");
}

} // namespace kiln
