//===- Passes.h - kiln.graph to linalg conversion ---------------*- C++ -*-===//
#ifndef KILN_LOWERING_TOLINALG_PASSES_H
#define KILN_LOWERING_TOLINALG_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace kiln {
/// The entry function's list of results sized at run time (an i64 array),
/// set by the driver from the model's signature: they stay results of
/// kiln-outputs-to-destinations, and the run allocates them.
inline constexpr llvm::StringLiteral kRunTimeOutputsAttr =
    "kiln.run_time_outputs";

#define GEN_PASS_DECL
#include "lowering/to-linalg/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "lowering/to-linalg/Passes.h.inc"
} // namespace kiln

#endif // KILN_LOWERING_TOLINALG_PASSES_H
