//===- Combiners.h - Reduction combiners for GPU kernels --------*- C++ -*-===//
#ifndef KILN_LOWERING_GPU_COMBINERS_H
#define KILN_LOWERING_GPU_COMBINERS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace kiln {

/// The gpu.all_reduce operation a combiner op computes, if it is one.
std::optional<mlir::gpu::AllReduceOperation>
getAllReduceOperation(mlir::Operation *combiner);
/// The identity of `op` for values of `type` (0 for add, -inf for max...).
mlir::Value buildReductionIdentity(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::gpu::AllReduceOperation op,
                                   mlir::Type type);
/// `op(a, b)` as one arith op.
mlir::Value buildCombine(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::gpu::AllReduceOperation op, mlir::Value a,
                         mlir::Value c);

} // namespace kiln

#endif // KILN_LOWERING_GPU_COMBINERS_H
