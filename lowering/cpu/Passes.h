//===- Passes.h - CPU code-generation passes --------------------*- C++ -*-===//
#ifndef KILN_LOWERING_CPU_PASSES_H
#define KILN_LOWERING_CPU_PASSES_H

#include "dialects/kernel/KernelDialect.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kiln {
#define GEN_PASS_DECL
#include "lowering/cpu/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "lowering/cpu/Passes.h.inc"

/// Vector-of-i1 loads and stores in the LLVM dialect become byte vectors
/// (see kiln-cpu-store-bools-as-bytes).
void populateStoreBoolsAsBytesPatterns(mlir::RewritePatternSet &patterns);

/// Name of the runtime entry the outlined parallel bodies are passed to.
inline constexpr const char *kParallelForSymbol = "kiln_rt_parallel_for";
/// On each kernel call site kiln-cpu-parallel-to-runtime makes: the
/// outlined function's name.
inline constexpr const char *kKernelAttr = "kiln.kernel";
/// The runtime hook profiled libraries call around each kernel.
inline constexpr const char *kProfileEventSymbol = "kiln_rt_profile_event";
/// Module attribute of kiln-cpu-instrument-profile: one {symbol, node} per
/// kernel index.
inline constexpr const char *kProfileKernelsAttr = "kiln.profile.kernels";
} // namespace kiln

#endif // KILN_LOWERING_CPU_PASSES_H
