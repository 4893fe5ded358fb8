//===- CpuPipeline.h - linalg to LLVM dialect for CPU targets ---*- C++ -*-===//
#ifndef KILN_LOWERING_CPU_CPUPIPELINE_H
#define KILN_LOWERING_CPU_CPUPIPELINE_H

#include "lowering/cpu/Passes.h"

#include "mlir/Pass/PassManager.h"

namespace kiln {

/// The schedule inputs of the CPU pipeline: the options of
/// kiln-cpu-select-schedule, whose defaults are declared once, in
/// lowering/cpu/Passes.td. A target's description sets its own; `--schedule`
/// overrides them for every op.
using CpuScheduleOptions = SelectScheduleOptions;

/// Bufferizes linalg-on-tensors, plans memory, selects each op's schedule,
/// tiles and vectorizes for the CPU, and lowers to the LLVM dialect. Shared
/// by every CPU target; they differ in the options. `profile` times every
/// kernel through kiln_rt (kiln-cpu-instrument-profile). `dot`: the
/// dot-product instructions the target has for kiln-cpu-dot-kernel.
struct CpuDotKernels {
  std::string arch = "x86_64"; // or aarch64
  bool int8 = false;       // vpdpbusd (512-bit) or usdot (128-bit), as wide as
                           // the schedule's vectors
  bool int8Signed = false; // the 8-bit product is s8 x s8 (AArch64 sdot)
  bool bf16 = false;       // 512-bit vdpbf16ps
  bool amx = false;        // AMX tiles for both (amx-tile, amx-int8, amx-bf16)
};
void buildCpuLoweringPipeline(mlir::OpPassManager &pm,
                              const CpuScheduleOptions &options,
                              bool profile = false, CpuDotKernels dot = {});

} // namespace kiln

#endif // KILN_LOWERING_CPU_CPUPIPELINE_H
