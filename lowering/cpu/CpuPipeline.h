//===- CpuPipeline.h - linalg to LLVM dialect for CPU targets ---*- C++ -*-===//
#ifndef KILN_LOWERING_CPU_CPUPIPELINE_H
#define KILN_LOWERING_CPU_CPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace kiln {

/// Schedule knobs of the CPU pipeline; the autotuner sets these per target.
struct CpuScheduleOptions {
  /// Vector width in bits of the target's widest profitable registers.
  unsigned vectorBits = 256;
};

/// Bufferizes linalg-on-tensors, plans memory and lowers to the LLVM
/// dialect. Shared by every CPU target; they differ in the options.
void buildCpuLoweringPipeline(mlir::OpPassManager &pm,
                              const CpuScheduleOptions &options);

} // namespace kiln

#endif // KILN_LOWERING_CPU_CPUPIPELINE_H
