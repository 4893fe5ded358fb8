//===- ConvUtils.h - Convolution building blocks ----------------*- C++ -*-===//
//
// Shared by the Conv and ConvTranspose lowerings.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TO_LINALG_CONVUTILS_H
#define KILN_LOWERING_TO_LINALG_CONVUTILS_H

#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"
#include "lowering/to-linalg/WindowUtils.h"

namespace kiln {
namespace conv {

/// `v` with dim `d` split into [groups, size / groups].
mlir::Value splitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     int64_t d, int64_t groups);
/// Inverse of splitDim.
mlir::Value mergeDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      int64_t d);
/// Convolution of the padded `input` [N, C, S...] with `weight`
/// [M, C / group, K...] accumulating into `init` [N, M, O...].
mlir::Value emitConv(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                     mlir::Value weight, mlir::Value init,
                     const window::Window &w, llvm::ArrayRef<int64_t> strides,
                     int64_t group);
/// The accumulator of a convolution: the bias broadcast over [N, M, O...],
/// or zeros; with `win`, the dynamic output extents from `x`'s.
mlir::Value convInit(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::RankedTensorType type, mlir::Value x,
                     mlir::Value bias, const window::Window *win = nullptr);
/// Common checks of Conv/ConvTranspose operands; `dynamicSpatial`: the
/// image extents may be dynamic too.
llvm::LogicalResult checkConvTypes(mlir::RankedTensorType x,
                                   mlir::RankedTensorType w,
                                   mlir::RankedTensorType y,
                                   bool dynamicSpatial = false);

} // namespace conv

/// ConvTranspose (ConvTranspose.cpp); part of populateConvPoolLoweringPatterns.
void populateConvTransposeLoweringPatterns(GraphTypeConverter &converter,
                                           mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_LOWERING_TO_LINALG_CONVUTILS_H
