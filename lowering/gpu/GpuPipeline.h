//===- GpuPipeline.h - linalg to NVVM kernels and host LLVM -----*- C++ -*-===//
#ifndef KILN_LOWERING_GPU_GPUPIPELINE_H
#define KILN_LOWERING_GPU_GPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace kiln {

struct GpuPipelineOptions {
  std::string chip = "sm_90"; // NVVM target chip
  std::string features;       // "+ptx80"; empty: the chip's minimum
  unsigned optLevel = 3;      // NVPTX back-end level
  int64_t threadsPerBlock = 256;
  /// f32 contractions on tensor cores with TF32 inputs (`--precision tf32`).
  bool tf32 = false;
  /// Run the kernels as host loops: a CPU library computing what the
  /// kernels compute (`kiln compile --emulate-device`).
  bool emulate = false;
  /// CUDA toolkit root, where libdevice (math functions) is found.
  std::string toolkitPath;
};

/// Adds the passes taking linalg on tensors (kiln_entry) to the LLVM
/// dialect: host code that calls the launcher, kernels as embedded PTX.
void buildGpuLoweringPipeline(mlir::OpPassManager &pm,
                              const GpuPipelineOptions &options);

/// The CUDA toolkit root this machine has (CUDA_HOME, CUDA_PATH,
/// /usr/local/cuda, /usr/lib/cuda), or "" when none holds libdevice.
std::string findCudaToolkit();

} // namespace kiln

#endif // KILN_LOWERING_GPU_GPUPIPELINE_H
