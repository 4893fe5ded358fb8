//===- ContractionEpilogue.cpp - Bias and activation in the register tile -===//
//
// A convolution or MatMul with a bias and an activation lowers to three ops
// on one buffer C: an initializer (the bias broadcast, or a zero fill), the
// product accumulating into C, and an elementwise epilogue reading C (ReLU,
// a residual Add, a GELU) into D. Run as they are, C goes through memory
// three times more than the product needs: 1x1 64 -> 256 at 56x56 spent
// 114 us writing the bias and 217 us on the ReLU next to 678 us of products.
//
// Here both move into the product's register tiles: the first K block
// starts its accumulators from the initializer's values instead of reading
// C, and the last one stores the epilogue of its accumulators to D instead
// of storing them to C. C is then only written and read between K blocks.
// Applies when the initializer writes all of C right before the product, the
// epilogue reads C (elementwise, same indices) right after it, nothing else
// reads C, and every other operand of the two is one value per element of
// C, per row or per column of the product, or outside the loops.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/BufferAliasing.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"

using namespace mlir;

namespace kiln {
using namespace kiln::cpu;
namespace {

/// Whether the initializer `init` (a fill or an elementwise generic) writes
/// C: a fill through any view of all of it, a generic through C's own.
bool initializes(Operation *init, Value c) {
  if (auto fill = dyn_cast<linalg::FillOp>(init))
    return fillsAll(fill, c);
  return sameBuffer(cast<linalg::LinalgOp>(init).getDpsInits()[0], c);
}

/// Whether a C-shaped buffer of type `t` has a 2-D (M, N) view by `groups`:
/// it is one, or collapses to one.
bool hasMatrixView(MemRefType t, ArrayRef<ReassociationIndices> groups) {
  return (t.getRank() == 2 && groups[0].size() == 1 && groups[1].size() == 1) ||
         memref::CollapseShapeOp::isGuaranteedCollapsible(t, groups);
}

/// Whether `op` writes all of `c` without reading it, through any reshape
/// of it (a collapsed activation reusing C's bytes after the memory plan).
bool overwrites(Operation *op, Value c) {
  if (auto bytes = op->getAttrOfType<DenseI64ArrayAttr>(kOverwritesAttr)) {
    BufferRange range = rangeOf(c);
    return underReshapes(c).getDefiningOp<memref::ViewOp>() && range.known &&
           range.hi >= 0 && bytes[0] <= range.lo && range.hi <= bytes[1];
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      linalgOp.getNumDpsInits() != 1 ||
      !sameBuffer(underReshapes(linalgOp.getDpsInits()[0]), underReshapes(c)) ||
      linalgOp.getNumParallelLoops() != linalgOp.getNumLoops())
    return false;
  OpOperand *out = linalgOp.getDpsInitOperand(0);
  if (!linalgOp.getMatchingIndexingMap(out).isIdentity() ||
      linalgOp.payloadUsesValueFromOperand(out))
    return false;
  return llvm::none_of(linalgOp.getDpsInputs(), [&](Value v) {
    return isa<MemRefType>(v.getType()) && mayAlias(rangeOf(v), rangeOf(c));
  });
}

/// A body of scalar elementwise ops that only reads its block arguments and
/// values from outside.
bool isElementwiseBody(Block &body) {
  for (Operation &op : body.without_terminator()) {
    if (!OpTrait::hasElementwiseMappableTraits(&op) || op.getNumRegions() ||
        op.getNumResults() != 1 ||
        !op.getResult(0).getType().isIntOrIndexOrFloat())
      return false;
  }
  return true;
}

/// An all-parallel generic with one output, identity output map and an
/// elementwise body that does not read its output.
bool isElementwiseGeneric(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumParallelLoops() != op.getNumLoops())
    return false;
  OpOperand *out = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(out).isIdentity() ||
      op.payloadUsesValueFromOperand(out))
    return false;
  return isElementwiseBody(*op.getBlock());
}

/// The buffer under `v`: through collapse_shape (with its groups).
Value rootOf(Value v, SmallVector<ReassociationIndices> &groups) {
  if (auto collapse = v.getDefiningOp<memref::CollapseShapeOp>()) {
    groups = collapse.getReassociationIndices();
    return collapse.getSrc();
  }
  groups.clear();
  for (int64_t d = 0; d < cast<MemRefType>(v.getType()).getRank(); ++d)
    groups.push_back({d});
  return v;
}

/// How an operand of the initializer or epilogue reads within the product's
/// (M, N) space.
struct OperandRead {
  enum Kind { Full, PerRow, PerCol, Outside } kind;
  Value buffer; // Full: 2-D (M, N); PerRow, PerCol: 1-D
};

/// Classifies `operand` read through `map` from C's loops, C having `shape`
/// and the product's M and N being C's dims `groups[0]` and `groups[1]`.
std::optional<OperandRead> classify(Value operand, AffineMap map,
                                    ArrayRef<int64_t> shape,
                                    ArrayRef<ReassociationIndices> groups) {
  auto type = dyn_cast<MemRefType>(operand.getType());
  if (!type)
    return OperandRead{OperandRead::Outside, operand};
  if (map.isIdentity() && type.getShape() == shape)
    return OperandRead{OperandRead::Full, operand};
  // One dim of C, the only one of its group that is not unit: one value per
  // row or column.
  if (type.getRank() != 1 || map.getNumResults() != 1)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResult(0));
  if (!dim)
    return std::nullopt;
  for (auto [g, group] : llvm::enumerate(groups)) {
    if (!llvm::is_contained(group, dim.getPosition()))
      continue;
    for (int64_t d : group)
      if (d != int64_t(dim.getPosition()) && shape[d] != 1)
        return std::nullopt;
    return OperandRead{g == 0 ? OperandRead::PerRow : OperandRead::PerCol,
                       operand};
  }
  return std::nullopt;
}

/// The unit-stride subviews of `tile`'s rank that lead from `base` to
/// `tile` (none when they are the same); nullopt when there is no such chain.
std::optional<SmallVector<memref::SubViewOp>> subviewsTo(Value tile,
                                                         Value base) {
  int64_t rank = cast<MemRefType>(tile.getType()).getRank();
  SmallVector<memref::SubViewOp> chain;
  while (tile != base) {
    auto sv = tile.getDefiningOp<memref::SubViewOp>();
    if (!sv || sv.getSourceType().getRank() != rank ||
        !llvm::all_of(sv.getMixedStrides(),
                      [](OpFoldResult s) { return isConstantIntValue(s, 1); }))
      return std::nullopt;
    chain.push_back(sv);
    tile = sv.getSource();
  }
  return chain;
}

/// The offsets, in the base of `chain` (from subviewsTo), of its tile.
SmallVector<OpFoldResult> offsetsOf(OpBuilder &b, Location loc,
                                    ArrayRef<memref::SubViewOp> chain,
                                    int64_t rank) {
  SmallVector<OpFoldResult> sum(rank, b.getIndexAttr(0));
  AffineExpr d0, d1;
  bindDims(b.getContext(), d0, d1);
  for (memref::SubViewOp sv : chain)
    for (auto [i, off] : llvm::enumerate(sv.getMixedOffsets()))
      sum[i] = affine::makeComposedFoldedAffineApply(
          b, loc, AffineMap::get(2, 0, d0 + d1), {sum[i], off});
  return sum;
}

/// The tile at (m, n) of an operand, as a vector of `type`.
Value readTile(OpBuilder &b, Location loc, const OperandRead &read, Value m,
               Value n, VectorType type) {
  Type elt = getElementTypeOrSelf(read.buffer);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  VectorType vt = VectorType::get(type.getShape(), elt);
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
  switch (read.kind) {
  case OperandRead::Outside:
    return vector::BroadcastOp::create(b, loc, vt, read.buffer);
  case OperandRead::Full:
    return vector::TransferReadOp::create(b, loc, vt, read.buffer,
                                          ValueRange{m, n}, pad,
                                          ArrayRef<bool>{true, true});
  case OperandRead::PerCol: {
    Value row = vector::TransferReadOp::create(
        b, loc, VectorType::get({cols}, elt), read.buffer, ValueRange{n}, pad,
        ArrayRef<bool>{true});
    return vector::BroadcastOp::create(b, loc, vt, row);
  }
  case OperandRead::PerRow: {
    // A broadcast of each row's value: scalar loads, no transposes.
    Value tile = arith::ConstantOp::create(b, loc, b.getZeroAttr(vt));
    AffineExpr d0;
    bindDims(b.getContext(), d0);
    for (int64_t r = 0; r < rows; ++r) {
      Value i = affine::AffineApplyOp::create(b, loc,
                                              AffineMap::get(1, 0, d0 + r), m);
      Value v = memref::LoadOp::create(b, loc, read.buffer, ValueRange{i});
      Value row =
          vector::BroadcastOp::create(b, loc, VectorType::get({cols}, elt), v);
      tile = vector::InsertOp::create(b, loc, row, tile, r);
    }
    return tile;
  }
  }
  llvm_unreachable("operand kind");
}

/// Whether the K-block loop `kBlocks` is in its last iteration.
Value isLastKBlock(OpBuilder &b, Location loc, scf::ForOp kBlocks) {
  Value next = arith::AddIOp::create(b, loc, kBlocks.getInductionVar(),
                                     kBlocks.getStep());
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, next,
                               kBlocks.getUpperBound());
}

/// Prefetches the cache lines of a `rows` x `cols` tile at (m, n) of the
/// 2-D `buffer`. Issued before a register tile's K loop for the operands
/// its epilogue reads and writes: a residual or output beyond the core's
/// cache, read in runs of a tile's width from rows a whole feature map
/// apart, is a stream per row that the prefetchers do not follow.
void prefetchTile(OpBuilder &b, Location loc, Value buffer, Value m, Value n,
                  int64_t rows, int64_t cols, bool write) {
  int64_t eltBytes = getElementTypeOrSelf(buffer).getIntOrFloatBitWidth() / 8;
  int64_t lineElts = std::max<int64_t>(1, 64 / std::max<int64_t>(1, eltBytes));
  AffineExpr d0;
  bindDims(b.getContext(), d0);
  for (int64_t r = 0; r < rows; ++r) {
    Value i =
        affine::AffineApplyOp::create(b, loc, AffineMap::get(1, 0, d0 + r), m);
    for (int64_t c = 0; c < cols; c += lineElts) {
      Value j = affine::AffineApplyOp::create(b, loc,
                                              AffineMap::get(1, 0, d0 + c), n);
      memref::PrefetchOp::create(b, loc, buffer, ValueRange{i, j}, write,
                                 /*localityHint=*/3, /*isDataCache=*/true);
    }
  }
}

/// The body of `op` on vectors of `shape`: its inputs read by `inputs`.
Value evaluateBody(OpBuilder &b, Location loc, linalg::LinalgOp op,
                   ArrayRef<Value> inputs, ArrayRef<int64_t> shape) {
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
    return vector::BroadcastOp::create(
        b, loc,
        VectorType::get(shape, getElementTypeOrSelf(fill.getInputs()[0])),
        fill.getInputs()[0]);
  IRMapping map;
  Block *body = op.getBlock();
  for (auto [arg, v] : llvm::zip(body->getArguments(), inputs))
    map.map(arg, v);
  auto vectorOf = [&](Value v) -> Value {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    // A scalar from outside the body.
    return vector::BroadcastOp::create(b, loc,
                                       VectorType::get(shape, v.getType()), v);
  };
  for (Operation &inner : body->without_terminator()) {
    SmallVector<Value> operands;
    for (Value v : inner.getOperands())
      operands.push_back(vectorOf(v));
    Type result = VectorType::get(shape, inner.getResult(0).getType());
    OperationState state(loc, inner.getName().getStringRef(), operands,
                         TypeRange{result}, inner.getAttrs());
    map.map(inner.getResult(0), b.create(state)->getResult(0));
  }
  return vectorOf(body->getTerminator()->getOperand(0));
}

} // namespace

Value cpu::evaluateEpilogueBody(OpBuilder &b, Location loc, linalg::LinalgOp op,
                                ArrayRef<Value> inputs,
                                ArrayRef<int64_t> shape) {
  return evaluateBody(b, loc, op, inputs, shape);
}

std::optional<cpu::ContractionEpilogue>
cpu::findContractionEpilogue(linalg::LinalgOp product) {
  if (!product.hasPureBufferSemantics() || product.getNumDpsInits() != 1 ||
      product.hasDynamicShape())
    return std::nullopt;
  Value cv = product.getDpsInits()[0];
  SmallVector<ReassociationIndices> groups;
  Value c;
  if (isa<linalg::DepthwiseConv2DNchwChwOp, linalg::PoolingNchwMaxOp,
          linalg::PoolingNchwSumOp>(product.getOperation())) {
    // One image's channels as the rows, its pixels as the columns.
    auto type = cast<MemRefType>(cv.getType());
    if (type.getRank() != 4 || type.getDimSize(0) != 1)
      return std::nullopt;
    c = cv;
    groups = {{0, 1}, {2, 3}};
  } else {
    if (cast<MemRefType>(cv.getType()).getRank() != 2)
      return std::nullopt;
    c = rootOf(cv, groups);
  }
  // C is a buffer of this function's own or its caller's output (an
  // argument of the function itself): the caller reads that one after the
  // function, so an epilogue only writes it in place.
  auto cType = cast<MemRefType>(c.getType());
  auto arg = dyn_cast<BlockArgument>(c);
  bool callerOwned = arg && isa<func::FuncOp>(arg.getOwner()->getParentOp());
  if ((arg && !callerOwned) || groups.size() != 2 || !cType.hasStaticShape())
    return std::nullopt;
  BufferRange cRange = rangeOf(c);
  if (!cRange.known)
    return std::nullopt;
  ContractionEpilogue result;
  ArrayRef<int64_t> shape = cType.getShape();
  auto collapsible = [&](Value v) {
    return hasMatrixView(cast<MemRefType>(v.getType()), groups);
  };
  // The buffers `op` reads besides C, if each reads as one of the kinds
  // above.
  auto inputsOf =
      [&](linalg::LinalgOp op) -> std::optional<SmallVector<BufferRange>> {
    SmallVector<BufferRange> buffers;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (isa<MemRefType>(in->get().getType()) && sameBuffer(in->get(), c))
        continue;
      std::optional<OperandRead> r =
          classify(in->get(), op.getMatchingIndexingMap(in), shape, groups);
      if (!r || (r->kind == OperandRead::Full && !collapsible(in->get())))
        return std::nullopt;
      if (isa<MemRefType>(in->get().getType()) && !isConstantGlobal(in->get()))
        buffers.push_back(rangeOf(in->get()));
    }
    return buffers;
  };

  // The initializer: the last op before the product that touches C, when
  // it writes all of C and what it reads stays as it is until the product.
  if (Operation *prev = nextToucher(product, cRange, /*after=*/false)) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    auto gen = dyn_cast<linalg::GenericOp>(prev);
    bool fits =
        (fill || (gen && isElementwiseGeneric(gen) && overwrites(gen, c))) &&
        initializes(prev, c);
    if (fits) {
      std::optional<SmallVector<BufferRange>> reads =
          inputsOf(cast<linalg::LinalgOp>(prev));
      if (reads && untouchedBetween(prev, product, *reads))
        result.init = prev;
    }
  }
  // The epilogue: the first op after the product that touches C, reading
  // it elementwise into D; what it reads and D stay as they are until then,
  // and C is dead after it (or is D).
  if (Operation *next = nextToucher(product, cRange, /*after=*/true)) {
    auto gen = dyn_cast<linalg::GenericOp>(next);
    if (gen && isElementwiseGeneric(gen)) {
      int reads = 0;
      for (OpOperand *in : gen.getDpsInputOperands())
        if (isa<MemRefType>(in->get().getType()) && sameBuffer(in->get(), c))
          reads += gen.getMatchingIndexingMap(in).isIdentity() ? 1 : 2;
      Value d = gen.getDpsInits()[0];
      auto dType = cast<MemRefType>(d.getType());
      std::optional<SmallVector<BufferRange>> others = inputsOf(gen);
      bool inPlace = sameBuffer(d, c);
      if (reads == 1 && others && dType.getShape() == shape &&
          (collapsible(d) || matchImageRows(dType, groups)) &&
          (inPlace || !mayAlias(rangeOf(d), cRange))) {
        SmallVector<BufferRange> kept = *others;
        kept.push_back(rangeOf(d));
        // Past the end of a loop body C lives on into the next iteration,
        // unless the body made it.
        Operation *after = nextToucher(gen, cRange, /*after=*/true);
        Block *block = gen->getBlock();
        bool diesAtEnd =
            !callerOwned &&
            (isa<func::FuncOp>(block->getParentOp()) ||
             (c.getDefiningOp() && c.getDefiningOp()->getBlock() == block));
        bool dead =
            inPlace || (after ? overwrites(after, c) || reusesBytesOf(after, c)
                              : diesAtEnd);
        // The tiles write D while the product (and its initializer) still
        // read their operands, whose bytes the memory plan may have given
        // to D: its life began at the epilogue.
        BufferRange dRange = rangeOf(d);
        auto readsD = [&](Operation *op) {
          auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
          return linalgOp &&
                 llvm::any_of(linalgOp.getDpsInputs(), [&](Value v) {
                   return isa<MemRefType>(v.getType()) &&
                          mayAlias(rangeOf(v), dRange);
                 });
        };
        if (dead && !readsD(product) && !readsD(result.init) &&
            untouchedBetween(product, gen, kept))
          result.epilogue = gen;
      }
    }
  }
  if (!result.init && !result.epilogue)
    return std::nullopt;
  return result;
}

int64_t cpu::markContractionEpilogues(RewriterBase &rewriter,
                                      ArrayRef<linalg::LinalgOp> products) {
  int64_t groups = 0;
  for (linalg::LinalgOp op : products) {
    std::optional<ContractionEpilogue> found = findContractionEpilogue(op);
    if (!found)
      continue;
    IntegerAttr g = rewriter.getI64IntegerAttr(groups++);
    op->setAttr(kEpilogueGroupAttr, g);
    if (found->init)
      found->init->setAttr(kEpilogueInitAttr, g);
    if (found->epilogue)
      found->epilogue->setAttr(kEpilogueOfAttr, g);
  }
  return groups;
}

int64_t cpu::getEpilogueGroup(Operation *op) {
  for (StringRef name : {kEpilogueInitAttr, kEpilogueOfAttr})
    if (auto g = op->getAttrOfType<IntegerAttr>(name))
      return g.getInt();
  return -1;
}

llvm::MapVector<int64_t, cpu::ContractionEpilogue>
cpu::takeEpilogueGroups(func::FuncOp func) {
  llvm::MapVector<int64_t, ContractionEpilogue> groups;
  func.walk([&](Operation *op) {
    if (auto g = op->getAttrOfType<IntegerAttr>(kEpilogueInitAttr))
      groups[g.getInt()].init = op;
    if (auto g = op->getAttrOfType<IntegerAttr>(kEpilogueOfAttr))
      groups[g.getInt()].epilogue = cast<linalg::GenericOp>(op);
    op->removeAttr(kEpilogueInitAttr);
    op->removeAttr(kEpilogueOfAttr);
  });
  return groups;
}

LogicalResult cpu::fuseContractionEpilogue(
    RewriterBase &rewriter, Operation *init, linalg::GenericOp epilogue,
    ArrayRef<std::pair<Value, scf::ForOp>> tiles, bool maskedStores) {
  if (tiles.empty())
    return failure();
  // The buffer the tiles view, re-derived from them.
  Value cv = tiles.front().first;
  while (auto sv = cv.getDefiningOp<memref::SubViewOp>())
    cv = sv.getSource();
  SmallVector<ReassociationIndices> groups;
  Value c = rootOf(cv, groups);
  if (groups.size() != 2 || (init && !initializes(init, c)))
    return failure();
  auto shape = cast<MemRefType>(c.getType()).getShape();

  // Each tile's hoisted accumulator read and write of C.
  struct Access {
    vector::TransferReadOp read;
    vector::TransferWriteOp write;
    scf::ForOp kBlocks;
    SmallVector<memref::SubViewOp> chain; // from C's view to the tile
  };
  SmallVector<Access> accesses;
  for (auto [tile, kBlocks] : tiles) {
    std::optional<SmallVector<memref::SubViewOp>> chain = subviewsTo(tile, cv);
    if (!chain)
      return failure();
    Access a{nullptr, nullptr, kBlocks, std::move(*chain)};
    for (Operation *user : tile.getUsers()) {
      if (auto r = dyn_cast<vector::TransferReadOp>(user); r && !a.read)
        a.read = r;
      else if (auto w = dyn_cast<vector::TransferWriteOp>(user); w && !a.write)
        a.write = w;
      else if (!isa<memref::SubViewOp>(user))
        return failure();
    }
    if (!a.read || !a.write || a.read->getBlock() != a.write->getBlock() ||
        !a.read->isBeforeInBlock(a.write) ||
        a.read.getVectorType().getRank() != 2 ||
        a.read.getVectorType() != a.write.getVectorType() ||
        !a.read.getPermutationMap().isIdentity() ||
        !a.write.getPermutationMap().isIdentity())
      return failure();
    accesses.push_back(a);
  }

  // 2-D and 1-D views of the operands, before the first tile's nest.
  // The block of the product, its initializer and epilogue.
  Block *block = (init ? init : epilogue.getOperation())->getBlock();
  Operation *top = nullptr;
  for (const Access &a : accesses) {
    Operation *t = block->findAncestorOpInBlock(*a.read);
    if (!t)
      return failure();
    if (!top || t->isBeforeInBlock(top))
      top = t;
  }
  DominanceInfo dom(top->getParentOp());
  rewriter.setInsertionPoint(top);
  Location loc = top->getLoc();
  // Checked first, made after: a failure leaves nothing behind.
  auto readsOf = [&](linalg::LinalgOp op, Value skip)
      -> std::optional<SmallVector<std::optional<OperandRead>>> {
    SmallVector<std::optional<OperandRead>> reads;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (skip && isa<MemRefType>(in->get().getType()) &&
          sameBuffer(in->get(), skip)) {
        reads.push_back(std::nullopt);
        continue;
      }
      std::optional<OperandRead> r =
          classify(in->get(), op.getMatchingIndexingMap(in), shape, groups);
      if (!r || !cpu::availableBefore(r->buffer, top, dom))
        return std::nullopt;
      reads.push_back(r);
    }
    return reads;
  };
  SmallVector<std::optional<OperandRead>> initReads, epilogueReads;
  if (init && !isa<linalg::FillOp>(init)) {
    auto r = readsOf(cast<linalg::LinalgOp>(init), Value());
    if (!r)
      return failure();
    initReads = *r;
  }
  if (epilogue) {
    auto r = readsOf(epilogue, c);
    if (!r || !cpu::availableBefore(epilogue.getDpsInits()[0], top, dom))
      return failure();
    epilogueReads = *r;
  }
  // 2-D views of C-shaped operands and of D.
  auto view2d = [&](Value v) -> Value {
    if (cast<MemRefType>(v.getType()).getRank() == 2 && groups[0].size() == 1)
      return v;
    return memref::CollapseShapeOp::create(rewriter, loc, v, groups);
  };
  for (auto *reads : {&initReads, &epilogueReads})
    for (std::optional<OperandRead> &r : *reads)
      if (r && r->kind == OperandRead::Full)
        r->buffer = view2d(r->buffer);
  // D by image rows where it has no 2-D view (a padded buffer's interior).
  Value d;
  std::optional<ImageRows> dRows;
  if (epilogue) {
    d = epilogue.getDpsInits()[0];
    auto dType = cast<MemRefType>(d.getType());
    if (hasMatrixView(dType, groups))
      d = view2d(d);
    else if ((dRows = matchImageRows(dType, groups)))
      d = flatImageRowsView(rewriter, loc, d, *dRows);
    else
      return failure();
  }

  for (Access &a : accesses) {
    VectorType type = a.read.getVectorType();
    Location l = a.read.getLoc();
    auto tileReads = [&](ArrayRef<std::optional<OperandRead>> reads,
                         ArrayRef<OpFoldResult> at, Value acc) {
      SmallVector<Value> vectors;
      for (const std::optional<OperandRead> &r : reads)
        vectors.push_back(
            r ? readTile(rewriter, l, *r,
                         getValueOrCreateConstantIndexOp(rewriter, l, at[0]),
                         getValueOrCreateConstantIndexOp(rewriter, l, at[1]),
                         type)
              : acc);
      return vectors;
    };
    // The tile's place in C, before its K loop (where the initializer, the
    // prefetches and the epilogue all take it from).
    rewriter.setInsertionPoint(a.read);
    SmallVector<OpFoldResult> at = offsetsOf(rewriter, l, a.chain, 2);
    if (epilogue || !a.kBlocks) {
      // The lines the tile's last K block reads and writes after its K loop
      // (a residual, D, or C written once), fetched while that loop runs.
      int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
      auto prefetch = [&](OpBuilder &b, Location bl) {
        if (!epilogue) {
          // C's place as the write after the K loop takes it; constant
          // indices defined after the loop (a tile at [0, 0] of its block)
          // are made again here.
          SmallVector<Value> where;
          for (Value v : llvm::concat<Value>(ValueRange{a.write.getBase()},
                                             a.write.getIndices())) {
            if (std::optional<int64_t> c = getConstantIntValue(v)) {
              where.push_back(arith::ConstantIndexOp::create(b, bl, *c));
              continue;
            }
            Operation *def = v.getDefiningOp();
            if (def && !(def->getBlock() == a.read->getBlock()
                             ? def->isBeforeInBlock(a.read)
                             : def->getParentRegion()->isProperAncestor(
                                   a.read->getParentRegion())))
              return;
            where.push_back(v);
          }
          prefetchTile(b, bl, where[0], where[1], where[2], rows, cols, true);
          return;
        }
        Value m = getValueOrCreateConstantIndexOp(b, bl, at[0]);
        Value n = getValueOrCreateConstantIndexOp(b, bl, at[1]);
        for (const std::optional<OperandRead> &r : epilogueReads)
          if (r && r->kind == OperandRead::Full)
            prefetchTile(b, bl, r->buffer, m, n, rows, cols, false);
        if (!dRows)
          prefetchTile(b, bl, d, m, n, rows, cols, true);
      };
      if (!a.kBlocks) {
        prefetch(rewriter, l);
      } else {
        Value isLast = isLastKBlock(rewriter, l, a.kBlocks);
        scf::IfOp::create(rewriter, l, isLast, [&](OpBuilder &b, Location bl) {
          prefetch(b, bl);
          scf::YieldOp::create(b, bl);
        });
      }
    }
    if (init) {
      rewriter.setInsertionPoint(a.read);
      auto start = [&](OpBuilder &b, Location bl) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(b.getInsertionBlock(),
                                   b.getInsertionPoint());
        return evaluateBody(rewriter, bl, cast<linalg::LinalgOp>(init),
                            tileReads(initReads, at, Value()), type.getShape());
      };
      Value initial;
      if (!a.kBlocks) {
        initial = start(rewriter, l);
      } else {
        Value isFirst = arith::CmpIOp::create(
            rewriter, l, arith::CmpIPredicate::eq, a.kBlocks.getInductionVar(),
            a.kBlocks.getLowerBound());
        auto branch = scf::IfOp::create(
            rewriter, l, isFirst,
            [&](OpBuilder &b, Location bl) {
              scf::YieldOp::create(b, bl, start(b, bl));
            },
            [&](OpBuilder &b, Location bl) {
              Operation *clone = b.clone(*a.read);
              scf::YieldOp::create(b, bl, clone->getResult(0));
            });
        initial = branch.getResult(0);
      }
      rewriter.replaceOp(a.read, initial);
    }
    if (epilogue) {
      rewriter.setInsertionPoint(a.write);
      Value acc = a.write.getValueToStore();
      auto finish = [&](OpBuilder &b, Location bl) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(b.getInsertionBlock(),
                                   b.getInsertionPoint());
        Value out =
            evaluateBody(rewriter, bl, epilogue,
                         tileReads(epilogueReads, at, acc), type.getShape());
        Value m = getValueOrCreateConstantIndexOp(rewriter, bl, at[0]);
        Value n = getValueOrCreateConstantIndexOp(rewriter, bl, at[1]);
        if (dRows)
          storeTileByImageRows(rewriter, bl, out, d, *dRows, m, n,
                               maskedStores);
        else
          vector::TransferWriteOp::create(rewriter, bl, out, d,
                                          ValueRange{m, n},
                                          ArrayRef<bool>{true, true});
      };
      if (!a.kBlocks) {
        finish(rewriter, l);
      } else {
        Value isLast = isLastKBlock(rewriter, l, a.kBlocks);
        scf::IfOp::create(
            rewriter, l, isLast,
            [&](OpBuilder &b, Location bl) {
              finish(b, bl);
              scf::YieldOp::create(b, bl);
            },
            [&](OpBuilder &b, Location bl) {
              b.clone(*a.write);
              scf::YieldOp::create(b, bl);
            });
      }
      rewriter.eraseOp(a.write);
    }
  }
  if (init)
    rewriter.eraseOp(init);
  if (epilogue)
    rewriter.eraseOp(epilogue);
  return success();
}

} // namespace kiln
