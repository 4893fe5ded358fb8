//===- SymbolicSizes.h - Sizes computed from the entry's argument dims -*- C++
//-*-===//
//
// The memory plan of a model with symbolic dims places each dynamically
// shaped buffer whose extents depend only on the dims of the entry's
// arguments: those extents can be computed on entry, before any kernel runs,
// and so can the buffer's offset in the arena and the arena's size.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_BUFFERIZATION_SYMBOLICSIZES_H
#define KILN_LOWERING_BUFFERIZATION_SYMBOLICSIZES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace kiln {

/// Whether `v` is computed by pure, region-free ops from constants and the
/// dims of `fn`'s arguments only (no loaded data, nothing inside a loop).
bool isComputableOnEntry(mlir::Value v, mlir::func::FuncOp fn,
                         llvm::DenseMap<mlir::Value, bool> &memo);

/// Clones the computation of `v` (isComputableOnEntry) at `b`'s insertion
/// point, reusing what `map` already holds.
mlir::Value cloneComputation(mlir::OpBuilder &b, mlir::Value v,
                             mlir::IRMapping &map);

/// `v` with every dynamic dim of an argument taken as `extent`; nullopt
/// where an op is not understood. Ranks candidate placements only.
std::optional<int64_t> evaluateWithExtent(mlir::Value v, int64_t extent);

} // namespace kiln

#endif // KILN_LOWERING_BUFFERIZATION_SYMBOLICSIZES_H
