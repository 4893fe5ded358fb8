//===- LoweringUtils.h - Helpers shared by to-linalg patterns ---*- C++ -*-===//
#ifndef KILN_LOWERING_TOLINALG_LOWERINGUTILS_H
#define KILN_LOWERING_TOLINALG_LOWERINGUTILS_H

#include "dialects/graph/Activation.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <functional>

namespace kiln {

/// True when `v` is an absent optional input (a value of type `none`).
inline bool isAbsent(mlir::Value v) {
  return !v || llvm::isa<mlir::NoneType>(v.getType());
}

/// `tensor.empty` of `type`, taking every dynamic extent from `sources`: the
/// first source (right-aligned, as in broadcasting) whose extent along that
/// result dim is dynamic or non-1 supplies it.
mlir::Value createEmptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::RankedTensorType type,
                              mlir::ValueRange sources);

/// A constant of scalar type `type` (integer or float) with value `v`.
mlir::Value createScalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Type type, double v);

/// Body builder for elementwise generics: receives the scalar block
/// arguments of the inputs and returns the scalar result.
using ScalarBodyFn = std::function<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// A `linalg.generic` computing `resultType` elementwise from `inputs` with
/// ONNX multidirectional broadcasting (right-aligned; a static 1 broadcasts).
mlir::Value createBroadcastGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::RankedTensorType resultType,
                                   mlir::ValueRange inputs,
                                   const ScalarBodyFn &body);

/// The activation `act` (see dialects/graph/Activation.h) of scalar `x`.
mlir::Value buildActivation(mlir::OpBuilder &b, mlir::Location loc,
                            graph::Activation act, llvm::ArrayRef<float> params,
                            mlir::Value x);

/// act(y + bias) as one elementwise generic; `bias` (absent: none) broadcasts
/// right-aligned, e.g. a 1-D bias along the last dim. Returns `y` when there
/// is nothing to apply.
mlir::Value applyEpilogue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value y,
                          mlir::Value bias, graph::Activation act,
                          llvm::ArrayRef<float> params);

/// Indexing map reading `input` (rank <= the result's) broadcast into a
/// result of shape `resultShape`. A size-1 dim of `input` is read at 0 only
/// where the result's dim is not 1 too: an identity read keeps elementwise
/// chains fusable and their dims collapsible.
mlir::AffineMap getBroadcastMap(mlir::MLIRContext *ctx,
                                mlir::RankedTensorType input,
                                llvm::ArrayRef<int64_t> resultShape);

/// Keys' cubic convolution weights (coefficient `a`) of the 4 taps at
/// floor(x) - 1 .. floor(x) + 2 for the fraction `t` = x - floor(x), in t's
/// float type (Resize's cubic mode, GridSample's bicubic).
llvm::SmallVector<mlir::Value, 4>
cubicWeights(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t, double a);

/// Converts a scalar between element types with ONNX Cast semantics
/// (`srcUnsigned` tells how to read an integer source, since the lowered
/// types are signless).
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type to, bool srcUnsigned = false,
                       bool dstUnsigned = false);

/// Product of the extents of `src` along `dims` as a scalar of type `elt`
/// (constant when those extents are static).
mlir::Value createElementCount(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value src, llvm::ArrayRef<int64_t> dims,
                               mlir::Type elt);

/// `v` cast to a type whose dynamic dims take the static extents in `known`
/// (kDynamic: unknown there too); `v` itself when nothing changes. For
/// extents a shape computed at run time hid but an operand's type knows.
mlir::Value refineDims(mlir::OpBuilder &b, mlir::Location l, mlir::Value v,
                       llvm::ArrayRef<int64_t> known);

/// `x` with its dims in the order `perm` (result dim i is x's dim perm[i])
/// as a linalg.transpose; `x` itself for the identity order.
mlir::Value createTranspose(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, llvm::ArrayRef<int64_t> perm);

} // namespace kiln

#endif // KILN_LOWERING_TOLINALG_LOWERINGUTILS_H
