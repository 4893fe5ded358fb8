//===- ScalarLoops.h - Sequential scf loops on tensors ----------*- C++ -*-===//
//
// Builders for the sequential loops of ops that compute their result
// extents from data (DataDependent.cpp, NonMaxSuppression.cpp): index
// arithmetic, scf.for / scf.if carrying tensors, flat views.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TOLINALG_SCALARLOOPS_H
#define KILN_LOWERING_TOLINALG_SCALARLOOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln {

/// Index arithmetic and scalar loops at one insertion point.
struct ScalarLoops {
  mlir::OpBuilder &b;
  mlir::Location loc;

  using Values = llvm::SmallVector<mlir::Value>;
  mlir::Value c(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Value x, mlir::Value y);
  mlir::Value lt(mlir::Value x, mlir::Value y); // signed
  mlir::Value eq(mlir::Value x, mlir::Value y);
  mlir::Value andI(mlir::Value x, mlir::Value y);
  mlir::Value orI(mlir::Value x, mlir::Value y);
  mlir::Value notI(mlir::Value x);
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y);
  /// 1 where `cond`, else 0, as an index.
  mlir::Value oneIf(mlir::Value cond);
  mlir::Value toI64(mlir::Value index);
  mlir::Value toIndex(mlir::Value integer);
  mlir::Value at(mlir::Value tensor, mlir::ValueRange ivs);
  mlir::Value put(mlir::Value v, mlir::Value tensor, mlir::ValueRange ivs);
  mlir::Value product(llvm::ArrayRef<mlir::Value> dims);

  using Body = llvm::function_ref<Values(ScalarLoops &, mlir::Value iv,
                                         mlir::ValueRange acc)>;
  /// for iv in [0, n) carrying `init`; returns the final values.
  Values loop(mlir::Value n, mlir::ValueRange init, Body body);
  using Branch = llvm::function_ref<Values(ScalarLoops &)>;
  /// Values of `then` where `cond`, else of `orElse` (same types).
  Values ifElse(mlir::Value cond, Branch then, Branch orElse);
  /// `acc` updated by `then` where `cond`, else unchanged.
  Values ifThen(mlir::Value cond, mlir::ValueRange acc, Branch then);

  /// A zero-filled tensor of `shape` (dynamic extents from `dyn`).
  mlir::Value zeros(llvm::ArrayRef<int64_t> shape, mlir::Type elt,
                    mlir::ValueRange dyn);
  /// `t` as a 1-D tensor (a scalar as one element).
  mlir::Value flatten(mlir::Value t);
  /// A 1-D tensor viewed as `type`, whose extents are `sizes`.
  mlir::Value unflatten(mlir::Value flat, mlir::RankedTensorType type,
                        llvm::ArrayRef<mlir::Value> sizes);
};

} // namespace kiln

#endif // KILN_LOWERING_TOLINALG_SCALARLOOPS_H
