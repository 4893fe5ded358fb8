//===- ContractionPacking.cpp - Packed panels of the contraction kernel -===//
//
// B micro-panels and A blocks copied into contiguous, 64-byte aligned stack
// buffers (one per thread) before the loops whose register tiles read them.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/ContractionPacking.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;
using namespace kiln::cpu;

namespace kiln {

static constexpr int64_t kCacheLineBytes = 64;

/// A constant upper bound of a tile extent: the constant, or the least
/// constant of the affine.min that clamps a step at the end of the range.
static int64_t widthBound(OpFoldResult size) {
  if (std::optional<int64_t> c = getConstantIntValue(size))
    return *c;
  auto min = dyn_cast_if_present<affine::AffineMinOp>(
      dyn_cast_if_present<Value>(size) ? cast<Value>(size).getDefiningOp()
                                       : nullptr);
  int64_t bound = std::numeric_limits<int64_t>::max();
  if (min)
    for (AffineExpr e : min.getMap().getResults())
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        bound = std::min(bound, c.getValue());
  return bound == std::numeric_limits<int64_t>::max() ? -1 : bound;
}

/// The 2-D subview feeding `operand` if it has unit inner stride and rows at
/// least `minRowBytes` apart (0: never), or rows closer but not a whole
/// number of cache lines apart in a panel at least `fullWidth` wide.
static memref::SubViewOp packableView(OpOperand *operand, int64_t minRowBytes,
                                      int64_t fullWidth) {
  auto view = operand->get().getDefiningOp<memref::SubViewOp>();
  if (!view || minRowBytes <= 0)
    return nullptr;
  MemRefType viewType = view.getType();
  int64_t offset;
  SmallVector<int64_t> strides;
  if (viewType.getRank() != 2 ||
      failed(viewType.getStridesAndOffset(strides, offset)) ||
      strides[1] != 1 || ShapedType::isDynamic(strides[0]))
    return nullptr;
  // Rows closer together pack too when they are not whole cache lines
  // apart, so that a register tile's loads straddle lines in most rows,
  // and the panel is two vectors wide. 1x1 convolutions at 7x7
  // (B rows of 49 floats) with channels that are not whole panels, which
  // take the channel-rows product: 888 -> 888 1.16 -> 1.05 ms on a Zen 3
  // core (0.70 -> 0.59 on two), 1512 -> 1512 3.60 -> 3.03. Narrower tail
  // panels (25 or 60 columns: 16 + 8 + 1, 48 + 8 + 4) lost 9-17 %.
  int64_t rowBytes = strides[0] * viewType.getElementTypeBitWidth() / 8;
  if (rowBytes < minRowBytes &&
      (rowBytes % kCacheLineBytes == 0 || fullWidth <= 0 ||
       widthBound(view.getMixedSizes()[1]) < fullWidth))
    return nullptr;
  return view;
}

/// Copies the subview feeding `operand` of `tile` into a stack buffer of
/// `bufferShape` (the largest the view can be) right before `before`, and
/// makes `tile` read the copy.
static void packOperand(RewriterBase &rewriter, linalg::LinalgOp tile,
                        OpOperand *operand, Operation *before,
                        ArrayRef<int64_t> bufferShape,
                        ContractionTilingResult &result) {
  auto view = operand->get().getDefiningOp<memref::SubViewOp>();
  Location loc = view.getLoc();
  // One buffer per thread: at the start of the parallel loop's body, which
  // kiln-cpu-parallel-to-runtime allocates once per worker call, or of the
  // function. An alloca inside a loop would grow the stack each step.
  Block *home = &before->getParentOfType<func::FuncOp>().getBody().front();
  if (auto forall = before->getParentOfType<scf::ForallOp>())
    home = forall.getBody();
  rewriter.setInsertionPointToStart(home);
  auto bufferType =
      MemRefType::get(bufferShape, view.getType().getElementType());
  Value buffer = memref::AllocaOp::create(
      rewriter, loc, bufferType, /*alignment=*/rewriter.getI64IntegerAttr(64));
  rewriter.setInsertionPoint(before);
  SmallVector<OpFoldResult> sizes = view.getMixedSizes();
  Value packed = memref::SubViewOp::create(
      rewriter, loc, buffer,
      SmallVector<OpFoldResult>(2, rewriter.getIndexAttr(0)), sizes,
      SmallVector<OpFoldResult>(2, rewriter.getIndexAttr(1)));
  auto copy = linalg::CopyOp::create(rewriter, loc, view.getResult(), packed);
  rewriter.modifyOpInPlace(tile, [&] { operand->set(packed); });
  // The copy is one more elementwise op: rows of vectors.
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, copy);
  // The copy becomes vector rows once canonicalization has made its K
  // extent static.
  if (succeeded(generic))
    result.packCopies.push_back(*generic);
}

/// Copies the B micro-panel (kc x nr) that the register tiles of one N step
/// share into a contiguous stack buffer before the M loop sweeps over it.
/// In place, its rows are a full B row apart, so with a large power-of-two
/// row stride they fall into the same few cache sets and every register
/// tile reloads them. Packed, the kernel streams nr floats per k step. Only
/// worth it when several M tiles reuse the panel.
void cpu::packPanel(RewriterBase &rewriter, scf::ForOp nLoop, scf::ForOp mLoop,
                    linalg::LinalgOp tile, const ContractionTiles &t,
                    ContractionTilingResult &result) {
  std::optional<int64_t> lb = getConstantIntValue(mLoop.getLowerBound()),
                         ub = getConstantIntValue(mLoop.getUpperBound()),
                         step = getConstantIntValue(mLoop.getStep());
  if (!lb || !ub || !step || (*ub - *lb) / *step < t.packMinReuse)
    return;
  OpOperand *bOperand = tile.getDpsInputOperand(1);
  memref::SubViewOp view = packableView(bOperand, t.packRowBytes, 2 * t.lanes);
  if (!view || view->getParentOp() != mLoop.getOperation())
    return;
  // The panel's width (an affine.min of the N step while the last step is
  // partial) is computed in the M loop by the tiling; it depends on the N
  // step only, so it moves out with the view.
  SmallVector<Operation *> hoist;
  for (Value v : view->getOperands()) {
    if (mLoop.isDefinedOutsideOfLoop(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getParentOp() != mLoop.getOperation() || !isPure(def) ||
        !llvm::all_of(def->getOperands(),
                      [&](Value o) { return mLoop.isDefinedOutsideOfLoop(o); }))
      return;
    hoist.push_back(def);
  }
  for (Operation *def : hoist)
    rewriter.moveOpBefore(def, mLoop);
  rewriter.moveOpBefore(view, mLoop);
  packOperand(rewriter, tile, bOperand, mLoop, {t.kc, t.nr}, result);
}

/// Copies the A block (mc x kc) of one K step into a contiguous stack
/// buffer before the N loop sweeps over it. In place, the mr rows a register
/// tile broadcasts from are a full A row apart; with a large power-of-two
/// row stride they share a few cache sets with B's panel and get evicted
/// between k steps. Only worth it when several N tiles reuse the block.
void cpu::packBlock(RewriterBase &rewriter, linalg::LinalgOp tile,
                    const ContractionTiles &t, unsigned mDim, unsigned nDim,
                    ContractionTilingResult &result) {
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  if (!ShapedType::isDynamic(ranges[nDim]) &&
      ranges[nDim] < t.packAMinReuse * t.nr)
    return;
  OpOperand *aOperand = tile.getDpsInputOperand(0);
  AffineMap aMap = tile.getMatchingIndexingMap(aOperand);
  if (aMap.getNumResults() != 2 || !aMap.getResult(0).isFunctionOfDim(mDim))
    return;
  memref::SubViewOp view =
      packableView(aOperand, t.packARowBytes, /*fullWidth=*/0);
  if (!view || view->getBlock() != tile->getBlock())
    return;
  packOperand(rewriter, tile, aOperand, tile, {t.mc, t.kc}, result);
}

} // namespace kiln
