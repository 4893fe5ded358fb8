//===- DataMovement.h - Pieces shared by the data-movement files -*- C++
//-*-===//
//
// Private to DataMovement.cpp, IndexedMovement.cpp and Resize.cpp: the
// family's entry populateDataMovementLoweringPatterns adds the patterns of
// the other two files through these functions.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TOLINALG_DATAMOVEMENT_H
#define KILN_LOWERING_TOLINALG_DATAMOVEMENT_H

#include "lowering/to-linalg/Patterns.h"

#include "mlir/IR/Builders.h"

namespace kiln {

/// Slice, Gather and Pad.
void populateIndexedMovementPatterns(GraphTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);
/// Resize.
void populateResizePatterns(GraphTypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
/// Gather/scatter, generators and block rearrangements (Indexing.cpp).
void populateIndexingPatterns(GraphTypeConverter &converter,
                              mlir::RewritePatternSet &patterns);

/// `arith.constant` of index type.
mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Extent `i` of ranked tensor `t` as an index value (constant when static).
mlir::Value dimValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                     int64_t i);

/// Element `i` of the 1-D integer tensor `t`, converted to index.
mlir::Value extractIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                         int64_t i);

/// A linalg.generic producing `type` (dynamic extents `dynSizes`) whose
/// element at each position is `src[indices(b, loc, outputIndices, args)]`
/// (`args`: the elements of `inputs`, read through `inputMaps`), passed
/// through `finish` when given.
mlir::Value createGatherGeneric(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
    mlir::ValueRange dynSizes, mlir::Value src, mlir::ValueRange inputs,
    llvm::ArrayRef<mlir::AffineMap> inputMaps,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(
        mlir::OpBuilder &, mlir::Location, mlir::ValueRange, mlir::ValueRange)>
        indices,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value)>
        finish = nullptr);

/// The converted type of `v` when it is ranked, else null.
mlir::RankedTensorType convertedRankedType(const mlir::TypeConverter *c,
                                           mlir::Value v);

/// The element of a scalar-like tensor (rank 0 or one element).
mlir::Value extractScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value t);

/// Slice, Gather and Pad.
mlir::OpFoldResult foldedSize(mlir::OpBuilder &b, mlir::Value v);

} // namespace kiln

#endif // KILN_LOWERING_TOLINALG_DATAMOVEMENT_H
