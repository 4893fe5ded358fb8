//===- RowTiling.cpp - Threads and vector rows for non-contraction ops ---===//
//
// See RowTiling.h. Rows are one vector register wide; the row loop is
// peeled so its remainder is a shorter static row.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/RowTiling.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

#include <limits>

using namespace mlir;

namespace kiln::cpu {

/// Tiles `op` into loops of `type`; on buffers the original op is erased.
FailureOr<scf::SCFTilingResult>
tileOp(RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> sizes,
       scf::SCFTilingOptions::LoopType type, ArrayRef<int64_t> interchange) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  options.setLoopType(type);
  if (!interchange.empty())
    options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(result) || result->tiledOps.empty())
    return failure();
  rewriter.eraseOp(op);
  return result;
}

namespace {

/// Whether tiling dim `d` of `op` gives exact operand slices. Linalg sizes a
/// slice from the indexing map at the tile's first index and extent, which is
/// only right where `d` never appears under floordiv, ceildiv or mod (an NHWC
/// im2col gather, say, reads rows `m floordiv OW` and columns `m mod OW`).
bool isExactlyTileable(linalg::LinalgOp op, unsigned d) {
  for (AffineMap map : op.getIndexingMapsArray())
    for (AffineExpr result : map.getResults()) {
      bool inexact = false;
      result.walk([&](AffineExpr e) {
        auto bin = dyn_cast<AffineBinaryOpExpr>(e);
        if (bin && (e.getKind() == AffineExprKind::FloorDiv ||
                    e.getKind() == AffineExprKind::CeilDiv ||
                    e.getKind() == AffineExprKind::Mod))
          inexact |= bin.getLHS().isFunctionOfDim(d);
      });
      if (inexact)
        return false;
    }
  return true;
}

} // namespace

int64_t staticWork(linalg::LinalgOp op) {
  uint64_t work = 1;
  for (int64_t r : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(r))
      return std::numeric_limits<int64_t>::max();
    work = llvm::SaturatingMultiply(work, static_cast<uint64_t>(r));
  }
  return static_cast<int64_t>(
      std::min<uint64_t>(work, std::numeric_limits<int64_t>::max()));
}

int64_t staticLoopProduct(linalg::LinalgOp op, utils::IteratorType type) {
  int64_t product = 1;
  for (auto [range, it] :
       llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
    if (it == type)
      product *= range;
  return product;
}

/// Splits enough leading parallel dims for a few iterations per thread.
FailureOr<linalg::LinalgOp>
parallelizeOuterDims(RewriterBase &rewriter, linalg::LinalgOp op,
                     int64_t minWork, int64_t targetChunks,
                     std::optional<unsigned> blockDim, int64_t minBlock,
                     ArrayRef<unsigned> order) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return failure();
  if (staticWork(op) < minWork)
    return failure();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  // Enough chunks to balance threads, but no smaller: the dim that gets
  // there is split into blocks, not single iterations, so the inner loops
  // stay long enough to vectorize. Blocks divide the dim: a last, shorter
  // block would have a dynamic extent, and the tile would get scalar loops
  // (a SiLU over 672 channels split into blocks of 10 ran 10x slower).
  SmallVector<unsigned> dims(order);
  if (dims.empty())
    dims = llvm::to_vector(llvm::seq<unsigned>(0, iters.size()));
  int64_t chunks = 1;
  for (unsigned d : dims) {
    if (chunks >= targetChunks)
      break;
    if (iters[d] != utils::IteratorType::parallel || !isExactlyTileable(op, d))
      break;
    int64_t need = llvm::divideCeil(targetChunks, chunks);
    int64_t size = std::max<int64_t>(ranges[d] / need, 1);
    while (ranges[d] % size != 0)
      --size;
    if (blockDim && d == *blockDim && size < minBlock) {
      size = std::min(minBlock, ranges[d]);
      while (ranges[d] % size != 0)
        ++size;
    }
    sizes[d] = size;
    chunks *= ranges[d] / size;
  }
  if (chunks < 2)
    return failure();
  FailureOr<scf::SCFTilingResult> tiled =
      tileOp(rewriter, cast<TilingInterface>(op.getOperation()), sizes,
             scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(tiled))
    return failure();
  auto inner = dyn_cast<linalg::LinalgOp>(tiled->tiledOps.front());
  if (!inner)
    return failure();
  return inner;
}

namespace {

/// `map` with the loop dims whose bit is set in `fixed` replaced by 0: what
/// a tile that runs those loops once reads, relative to its operand slice.
AffineMap fixDims(AffineMap map, const llvm::SmallBitVector &fixed) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> dims;
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    dims.push_back(fixed.test(d) ? getAffineConstantExpr(0, ctx)
                                 : getAffineDimExpr(d, ctx));
  return simplifyAffineMap(
      map.replaceDimsAndSymbols(dims, {}, map.getNumDims(), 0));
}

/// Whether `e` is `d * 2`, a row read with stride 2.
bool isDoubled(AffineExpr e, unsigned d) {
  auto mul = dyn_cast<AffineBinaryOpExpr>(e);
  if (!mul || mul.getKind() != AffineExprKind::Mul)
    return false;
  auto dim = dyn_cast<AffineDimExpr>(mul.getLHS());
  auto c = dyn_cast<AffineConstantExpr>(mul.getRHS());
  return dim && dim.getPosition() == d && c && c.getValue() == 2;
}

/// Whether `op` only copies its single input.
bool isCopy(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  return op.getNumDpsInputs() == 1 &&
         llvm::hasSingleElement(body->getOperations()) &&
         body->getTerminator()->getOperand(0) == body->getArgument(0);
}

/// Whether an input map of `op` that is not a projected permutation reads
/// rows: linear in the loops (no floordiv or mod, which tiling would size
/// wrongly), and a projected permutation once the `outer` loops are fixed,
/// except that a copy (a stride-2 convolution's gather) may read every
/// other element of its row.
bool isRowGather(linalg::LinalgOp op, AffineMap map,
                 const llvm::SmallBitVector &outer, unsigned inner) {
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (!isExactlyTileable(op, d))
      return false;
  if (map.getNumSymbols() != 0)
    return false;
  AffineMap fixed = fixDims(map, outer);
  if (fixed.isProjectedPermutation(/*allowZeroInResults=*/true))
    return true;
  return isCopy(op) && isDoubled(fixed.getResults().back(), inner) &&
         fixed.dropResult(fixed.getNumResults() - 1)
             .isProjectedPermutation(/*allowZeroInResults=*/true);
}

/// Whether an operand read through `map` (the loops of a row tile other than
/// the innermost fixed) is a scalar, independent of the innermost loop, or
/// walks the innermost dim of its memref, which has unit stride: one
/// element per iteration, or two when `allowDoubled`.
bool readsRow(OpOperand &operand, AffineMap map, unsigned inner,
              bool allowDoubled) {
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (!type)
    return true; // a scalar
  if (!isa<FloatType, IntegerType>(type.getElementType()))
    return false;
  if (!map.isFunctionOfDim(inner))
    return true;
  if (llvm::any_of(map.getResults().drop_back(),
                   [&](AffineExpr e) { return e.isFunctionOfDim(inner); }))
    return false;
  AffineExpr last = map.getResults().back();
  auto dim = dyn_cast<AffineDimExpr>(last);
  if ((!dim || dim.getPosition() != inner) &&
      !(allowDoubled && isDoubled(last, inner)))
    return false;
  int64_t offset;
  SmallVector<int64_t> strides;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

} // namespace

/// Whether `op` is elementwise over static buffers with every operand either
/// contiguous along the innermost loop or independent of it (a broadcast),
/// so that rows of `lanes` elements vectorize into plain loads and stores.
/// Inputs may also be read through sums of loops, as an im2col gather reads
/// `x[c, oh + kh, ow + kw]`: once every loop but the innermost is split into
/// single iterations, such a row is contiguous too.
bool isRowVectorizable(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !isa<linalg::GenericOp>(op.getOperation()) ||
      !linalg::hasOnlyScalarElementwiseOp(op->getRegion(0)))
    return false;
  // Run-time extents: rows of `lanes` elements and a peeled remainder, for
  // plain elementwise ops (gathers need the static extents they sum).
  if (op.hasDynamicShape() &&
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return false;
  unsigned inner = op.getNumLoops() - 1;
  llvm::SmallBitVector outer(op.getNumLoops(), true);
  outer.reset(inner);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (op.isDpsInit(&operand) ? !map.isPermutation()
                               : !map.isProjectedPermutation(true) &&
                                     !isRowGather(op, map, outer, inner))
      return false;
    if (!readsRow(operand, fixDims(map, outer), inner,
                  /*allowDoubled=*/true))
      return false;
  }
  return hasPlainBody(op);
}

/// Bodies that index or gather stay scalar loops.
bool hasPlainBody(linalg::LinalgOp op) {
  bool plain = true;
  op.getBlock()->walk([&](Operation *nested) {
    if (isa<linalg::IndexOp>(nested) || nested->getNumRegions() > 0 ||
        !isMemoryEffectFree(nested))
      plain = false;
  });
  return plain;
}

/// Whether `op` reduces rows: parallel loops, then reduction loops with the
/// innermost contiguous in every input that reads it, combined by one
/// reassociable op (add, mul, max, min). A row tile then reads `lanes`
/// elements and folds them into the output with one horizontal reduction,
/// instead of a chain of dependent scalar ops (a global average pool over
/// 80x80 otherwise waits for 6400 adds in turn).
bool isRowReduction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.hasDynamicShape() || op.getNumDpsInits() != 1 ||
      !isa<linalg::GenericOp>(op.getOperation()) ||
      !linalg::hasOnlyScalarElementwiseOp(op->getRegion(0)))
    return false;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  unsigned inner = iters.size() - 1;
  if (iters[inner] != utils::IteratorType::reduction ||
      !llvm::is_sorted(iters, [](utils::IteratorType a, utils::IteratorType b) {
        return a == utils::IteratorType::parallel &&
               b == utils::IteratorType::reduction;
      }))
    return false;
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MaxSIOp,
           arith::MinSIOp>(combiners.front()))
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        !readsRow(operand, map, inner, /*allowDoubled=*/false))
      return false;
  }
  return true;
}

/// Tiles an elementwise op into rows of `lanes` along its innermost loop
/// (every other loop one at a time) and marks the row for vectorization; the
/// row loop is peeled so the remainder is a static, shorter row.
scf::ForOp tileRows(RewriterBase &rewriter, linalg::LinalgOp op,
                    int64_t lanes) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Rows of half a vector or more are vectors, and with vectors wider than
  // 8 lanes rows of 4 or more (with 512-bit vectors a Winograd stage's rows
  // of 7 tiles at 28x28 stayed scalar below half a vector; maskedRowSizes
  // pads them to 8 masked lanes).
  bool dynamicRow = ShapedType::isDynamic(ranges.back());
  if (!dynamicRow && ranges.back() < std::min<int64_t>(lanes / 2, 4))
    return nullptr;
  SmallVector<int64_t> sizes(ranges.size(), 1);
  sizes.back() = dynamicRow ? lanes : std::min(lanes, ranges.back());
  FailureOr<scf::SCFTilingResult> rows =
      tileOp(rewriter, cast<TilingInterface>(op.getOperation()), sizes,
             scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(rows))
    return nullptr;
  rows->tiledOps.front()->setAttr(kRegisterTileAttr, rewriter.getUnitAttr());
  if (rows->loops.empty())
    return nullptr;
  rows->loops.back()->setAttr(kPeelAttr, rewriter.getUnitAttr());
  return dyn_cast<scf::ForOp>(rows->loops.back().getOperation());
}

/// A row tile of a gather (see isRowVectorizable) still reads through sums
/// of loops that now run once; with those loops fixed at 0 its maps are
/// projected permutations, which the vectorizer turns into row reads.
void fixGatherRowMaps(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  llvm::SmallBitVector unit(ranges.size());
  for (auto [d, r] : llvm::enumerate(ranges))
    if (r == 1)
      unit.set(d);
  // Only the gathering maps change: the others, the output's among them,
  // still give every loop its extent.
  SmallVector<AffineMap> maps;
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      map = fixDims(map, unit);
    maps.push_back(map);
  }
  rewriter.modifyOpInPlace(generic, [&] {
    generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
}

/// A stride-2 row copy, out[0..L) = in[0, 2, .., 2L-2], as two vector
/// loads that together cover the 2L-1 input elements (the second one ends
/// on the last) and one shuffle that picks the even ones. Vectorized as a
/// gather it would load one element at a time.
LogicalResult vectorizeStridedRow(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!isCopy(op) || op.hasDynamicShape())
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned inner = ranges.size() - 1;
  AffineMap inMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  if (!isDoubled(inMap.getResults().back(), inner) ||
      llvm::any_of(inMap.getResults().drop_back(),
                   [](AffineExpr e) { return !isa<AffineConstantExpr>(e); }) ||
      llvm::any_of(ArrayRef(ranges).drop_back(),
                   [](int64_t r) { return r != 1; }))
    return failure();
  Value in = op.getDpsInputOperand(0)->get();
  Value out = op.getDpsInitOperand(0)->get();
  auto inType = cast<MemRefType>(in.getType());
  auto outType = cast<MemRefType>(out.getType());
  int64_t lanes = ranges.back();
  if (inType.getShape().back() != 2 * lanes - 1)
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> at(inType.getRank(), zero);
  Type elt = inType.getElementType();
  auto rowType = VectorType::get({lanes}, elt);
  Value pad = ub::PoisonOp::create(rewriter, loc, elt);
  auto read = [&](ArrayRef<Value> indices) {
    return vector::TransferReadOp::create(rewriter, loc, rowType, in, indices,
                                          pad, ArrayRef<bool>{true});
  };
  Value low = read(at);
  at.back() = arith::ConstantIndexOp::create(rewriter, loc, lanes - 1);
  Value high = read(at);
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < lanes; ++i)
    mask.push_back(2 * i < lanes ? 2 * i : lanes + 2 * i - (lanes - 1));
  Value row = vector::ShuffleOp::create(rewriter, loc, low, high, mask);
  SmallVector<Value> outAt(outType.getRank(), zero);
  vector::TransferWriteOp::create(rewriter, loc, row, out, outAt,
                                  ArrayRef<bool>{true});
  rewriter.eraseOp(op);
  return success();
}

/// Vector sizes for a row tile whose row is not a power of two long (a
/// Winograd stage's 14 tiles, a 7x7 map's 7 pixels): the row padded to the
/// next power of two and masked, one masked load or store a row, instead of
/// pieces of 8, 4, 2 and 1 lanes. With 512-bit vectors only (masked moves
/// are single instructions there) and float rows that every operand reads
/// along the row; empty: vectorize as it is.
SmallVector<int64_t> maskedRowSizes(linalg::LinalgOp op, int64_t lanes) {
  if (lanes < 16 || !isa<linalg::GenericOp>(op.getOperation()) ||
      op.getNumLoops() == 0 || op.getNumLoops() != op.getNumParallelLoops() ||
      op.hasDynamicShape())
    return {};
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  int64_t row = sizes.back();
  if (row <= 2 || row > lanes || llvm::has_single_bit(uint64_t(row)))
    return {};
  for (int64_t s : ArrayRef(sizes).drop_back())
    if (s != 1)
      return {};
  // Every operand a float row along the innermost loop (which also rules
  // out transposed reads): masked-off lanes hold anything, which an integer
  // division would trap on, and operands broadcast along the row (0-d or
  // per-row) do not take a row mask.
  AffineExpr inner = getAffineDimExpr(op.getNumLoops() - 1, op.getContext());
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!isa<FloatType>(getElementTypeOrSelf(operand.get().getType())) ||
        !map.isProjectedPermutation() || map.getNumResults() == 0 ||
        map.getResults().back() != inner)
      return {};
  }
  sizes.back() = int64_t(llvm::bit_ceil(uint64_t(row)));
  return sizes;
}

std::optional<unsigned> gatherRowLoop(linalg::LinalgOp op) {
  if (op.getNumLoops() != 6 || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isIdentity() || in.getNumResults() != 4 ||
      in.getResult(0) != getAffineDimExpr(0, op.getContext()) ||
      in.getResult(1) != getAffineDimExpr(1, op.getContext()) ||
      !in.getResult(2).isFunctionOfDim(4) ||
      !in.getResult(2).isFunctionOfDim(2) ||
      !in.getResult(3).isFunctionOfDim(5) ||
      !in.getResult(3).isFunctionOfDim(3))
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  if (body.getOperations().size() != 1)
    return std::nullopt;
  return 4u;
}

} // namespace kiln::cpu
