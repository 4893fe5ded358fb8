//===- RowTiling.h - Vector rows for non-contraction ops --------*- C++ -*-===//
//
// Shared by kiln-cpu-tile-and-vectorize: everything that is not a
// contraction (elementwise ops, im2col gathers, reductions over the
// innermost loop) gets an outer scf.forall for threads and is tiled into
// rows of one vector register along its innermost loop.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_ROWTILING_H
#define KILN_LOWERING_CPU_ROWTILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::cpu {

/// Marks a tile for vectorization.
constexpr llvm::StringLiteral kRegisterTileAttr = "kiln.register_tile";
/// Marks a loop to peel so that all but its last iteration are full tiles.
constexpr llvm::StringLiteral kPeelAttr = "kiln.peel";
/// Marks a loop whose body's output tile can stay in registers.
constexpr llvm::StringLiteral kAccumulateAttr = "kiln.accumulate";

/// Tiles `op` into loops of `type`; on buffers the original op is erased.
mlir::FailureOr<mlir::scf::SCFTilingResult>
tileOp(mlir::RewriterBase &rewriter, mlir::TilingInterface op,
       llvm::ArrayRef<int64_t> sizes,
       mlir::scf::SCFTilingOptions::LoopType type,
       llvm::ArrayRef<int64_t> interchange = {});

/// The iteration count of `op`, or INT64_MAX when a loop is dynamic.
int64_t staticWork(mlir::linalg::LinalgOp op);
/// The product of `op`'s static loop ranges of iterator type `type` (a row
/// reduction's rows, a contraction's multiply-adds per output).
int64_t staticLoopProduct(mlir::linalg::LinalgOp op,
                          mlir::utils::IteratorType type);

/// Wraps an op of at least `minWork` iterations in an scf.forall over its
/// leading parallel dims (in `order`, if given), aiming for `chunks`
/// parallel chunks; returns the op inside. Loop `blockDim`, if any, is split
/// only in blocks of `minBlock` or more (a transpose's blocks need both
/// their sides).
mlir::FailureOr<mlir::linalg::LinalgOp>
parallelizeOuterDims(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                     int64_t minWork, int64_t chunks,
                     std::optional<unsigned> blockDim = std::nullopt,
                     int64_t minBlock = 1, llvm::ArrayRef<unsigned> order = {});

/// The output-row loop of an NCHW im2col gather (loops n, c, kh, kw, oh,
/// ow, writing cols[n, c, kh, kw, oh, ow]), if `op` is one.
std::optional<unsigned> gatherRowLoop(mlir::linalg::LinalgOp op);

/// Elementwise ops (and gathers) whose rows vectorize into plain loads and
/// stores, and reductions of the innermost loop.
bool isRowVectorizable(mlir::linalg::LinalgOp op);
/// Whether `op`'s body is plain arithmetic: no indices, regions or memory
/// effects (no gathers).
bool hasPlainBody(mlir::linalg::LinalgOp op);
bool isRowReduction(mlir::linalg::LinalgOp op);

/// Tiles `op` into rows of `lanes` along its innermost loop and marks the
/// row tile for vectorization; returns the row loop, if any.
mlir::scf::ForOp tileRows(mlir::RewriterBase &rewriter,
                          mlir::linalg::LinalgOp op, int64_t lanes);

/// Rewrites the maps of a gather's row tile so that linalg's vectorizer
/// takes it (loops that run once read index 0); no-op on other ops.
void fixGatherRowMaps(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op);

/// Vectorizes the row tile of a stride-2 gather, which linalg's vectorizer
/// would turn into scalar loads; fails, leaving it alone, on other ops.
mlir::LogicalResult vectorizeStridedRow(mlir::RewriterBase &rewriter,
                                        mlir::linalg::LinalgOp op);

/// Tiles an elementwise op that writes along one loop and reads an input
/// along another into blocks of `lanes` x `lanes` over the two, each marked
/// for vectorization; false, leaving it alone, on other ops.
bool tileTransposeBlocks(mlir::RewriterBase &rewriter,
                         mlir::linalg::LinalgOp op, int64_t lanes);

/// Vector sizes that pad a row tile's row to a power of two under a mask
/// (512-bit vectors, float rows); empty where it vectorizes as it is.
llvm::SmallVector<int64_t> maskedRowSizes(mlir::linalg::LinalgOp op,
                                          int64_t lanes);

/// For an op that tileTransposeBlocks takes, the loop its transposed input
/// runs along (the blocks' other side besides the output's innermost loop).
std::optional<unsigned> transposeBlockLoop(mlir::linalg::LinalgOp op);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_ROWTILING_H
