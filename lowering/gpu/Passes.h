//===- Passes.h - GPU code-generation passes --------------------*- C++ -*-===//
#ifndef KILN_LOWERING_GPU_PASSES_H
#define KILN_LOWERING_GPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace kiln {
#define GEN_PASS_DECL
#include "lowering/gpu/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "lowering/gpu/Passes.h.inc"

/// Unit attribute of entry arguments the device reads (graph inputs).
inline constexpr const char *kCopyInAttr = "kiln.gpu.copy_in";
/// Prefix of the launcher functions that return a weight's device copy
/// (one per element type: kiln_gpu_constant_f32, ...).
inline constexpr const char *kConstantUploadPrefix = "kiln_gpu_constant_";
} // namespace kiln

#endif // KILN_LOWERING_GPU_PASSES_H
