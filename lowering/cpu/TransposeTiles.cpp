//===- TransposeTiles.cpp - Elementwise transposes in register blocks -----===//
//
// An elementwise op whose output runs along one loop (r) while an input
// runs along another (q) has no contiguous rows to vectorize: a row along
// r reads that input a whole stride apart per element, and it stayed a
// scalar loop nest. The pixel-row products of 7x7 layers make such ops
// ([pixels, channels] back to NCHW, with the residual and the activation),
// as do transposes of attention heads. Tiled in blocks of lanes x lanes
// over (q, r), each block vectorizes like any register tile: linalg's
// vectorizer reads the transposed input as rows along q and transposes them
// in registers (a vector.transpose, one shuffle of the flattened block after
// kiln-cpu-lower-vector-ops, which LLVM lowers to unpacks and permutes),
// and the block is written as rows along r.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/RowTiling.h"

#include "mlir/Dialect/Linalg/Utils/Utils.h"

using namespace mlir;

namespace kiln::cpu {

namespace {

/// The loop an operand's innermost dim walks, if its map is a projected
/// permutation (an expanded [h, w, c] view of a [h * w, c] product, read
/// by the loops (n, c, h, w), has no n).
std::optional<unsigned> innermostLoop(AffineMap map) {
  if (!map.isProjectedPermutation() || map.getNumResults() == 0)
    return std::nullopt;
  return cast<AffineDimExpr>(map.getResults().back()).getPosition();
}

/// (q, r) for an elementwise transpose over static buffers: the output is
/// written in loop order (r, its innermost loop, last), every input is a
/// projected permutation whose innermost dim walks r or one other loop q,
/// and at least one walks q.
std::optional<std::pair<unsigned, unsigned>>
transposeLoops(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.hasDynamicShape() ||
      op.getNumLoops() < 2 || op.getNumLoops() != op.getNumParallelLoops() ||
      op.getNumDpsInits() != 1 || !isa<linalg::GenericOp>(op.getOperation()) ||
      !linalg::hasOnlyScalarElementwiseOp(op->getRegion(0)))
    return std::nullopt;
  unsigned r = op.getNumLoops() - 1;
  if (!op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  std::optional<unsigned> q;
  for (OpOperand *in : op.getDpsInputOperands()) {
    std::optional<unsigned> inner =
        innermostLoop(op.getMatchingIndexingMap(in));
    if (!inner)
      return std::nullopt;
    if (*inner == r)
      continue;
    if (q && *q != *inner)
      return std::nullopt;
    q = inner;
  }
  if (!q)
    return std::nullopt;
  if (!hasPlainBody(op))
    return std::nullopt;
  return std::make_pair(*q, r);
}

} // namespace

std::optional<unsigned> transposeBlockLoop(linalg::LinalgOp op) {
  if (std::optional<std::pair<unsigned, unsigned>> qr = transposeLoops(op))
    return qr->first;
  return std::nullopt;
}

bool tileTransposeBlocks(RewriterBase &rewriter, linalg::LinalgOp op,
                         int64_t lanes) {
  std::optional<std::pair<unsigned, unsigned>> qr = transposeLoops(op);
  if (!qr || lanes < 4)
    return false;
  auto [q, r] = *qr;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Blocks of lanes x lanes; a short side keeps its length (7x7 maps have
  // rows of 7 pixels where (h, w) were not collapsed; a Winograd F(2x2)
  // scatter writes pairs; threads may leave two channels a chunk).
  if (ranges[q] < 2 || ranges[r] < 2)
    return false;
  SmallVector<int64_t> sizes(ranges.size(), 1);
  sizes[q] = std::min(lanes, ranges[q]);
  sizes[r] = std::min(lanes, ranges[r]);
  FailureOr<scf::SCFTilingResult> blocks =
      tileOp(rewriter, cast<TilingInterface>(op.getOperation()), sizes,
             scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(blocks))
    return false;
  UnitAttr unit = rewriter.getUnitAttr();
  blocks->tiledOps.front()->setAttr(kRegisterTileAttr, unit);
  // Full blocks, then the remainders along q and r.
  for (LoopLikeOpInterface loop : blocks->loops)
    loop->setAttr(kPeelAttr, unit);
  return true;
}

} // namespace kiln::cpu
