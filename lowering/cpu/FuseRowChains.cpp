//===- FuseRowChains.cpp - One pass a row for softmax and norms -----------===//
//
// Softmax, LogSoftmax and the normalizations lower to a few ops over the
// whole tensor: a row reduction (maximum, sum), another that reads it, a
// per-row step (1 / sum, 1 / sqrt(var + eps)) and an elementwise op that
// reads all of them. Each op on its own sweeps the whole input, so ViT-B/16's
// attention softmax (12 x 197 x 197, 1.9 MB) crossed the L2 cache three
// times, and took twice as long as ONNX Runtime's one pass.
//
// On buffers, before tiling, a run of such ops in a block becomes one loop
// over the rows (scf.forall where there is enough work for threads), each op
// a copy of itself on one row, so the row stays in L1 from the first op to
// the last:
//
//   scf.forall (%i) in (rows) {
//     max(x[i]) ; sum(exp(x[i] - max[i])) ; r[i] = 1 / sum[i] ;
//     y[i] = exp(x[i] - max[i]) * r[i]
//   }
//
// A chain starts at a reduction of the innermost loops (with the fills
// before it), takes the ops after it that iterate over the same rows, and
// ends at the last op that reads what an earlier one wrote. Rows are the
// leading parallel loops: every buffer the chain writes must be read and
// written through those loops, as contiguous rows of one size, so that row
// i of every op touches row i of every such buffer only. Buffers the chain
// only reads (the input, LayerNorm's scale) may be read any way.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/BufferAliasing.h"
#include "lowering/cpu/Passes.h"
#include "lowering/cpu/RowTiling.h"
#include "lowering/cpu/Schedule.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_FUSEROWCHAINS
#include "lowering/cpu/Passes.h.inc"

using namespace kiln::cpu;

namespace {

/// Rows longer than this (in elements) leave the L2 cache anyway.
constexpr int64_t kMaxRowElements = 1 << 16;
/// Fewer rows than this gain little and give threads nothing to share.
constexpr int64_t kMinRows = 4;

/// An op of a chain and the number of its leading loops that enumerate the
/// rows.
struct RowOp {
  mutable linalg::LinalgOp op;
  unsigned rowLoops;
};

/// The fewest leading parallel loops whose iterations multiply to `rows`,
/// or none. Ops with their own schedule (products), loop indices, dynamic
/// sizes or non-buffer operands are not row ops.
std::optional<unsigned> rowLoopsOf(linalg::LinalgOp op, int64_t rows) {
  if (!op.hasPureBufferSemantics() || getOwnSchedule(op) || !hasPlainBody(op) ||
      op.hasDynamicShape())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  int64_t product = 1;
  for (unsigned k = 0; k <= ranges.size(); ++k) {
    if (product == rows)
      return k;
    if (k == ranges.size() || iters[k] != utils::IteratorType::parallel ||
        product > rows)
      return std::nullopt;
    product *= ranges[k];
  }
  return std::nullopt;
}

/// Whether every map result is a loop dim or a constant.
bool slicesByMap(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr e) {
    return isa<AffineDimExpr, AffineConstantExpr>(e);
  });
}

/// Whether `v`, read or written through `map` by an op whose first
/// `rowLoops` loops enumerate the rows, is a contiguous buffer whose
/// leading dims are those loops, in order.
bool readsAsRows(Value v, AffineMap map, unsigned rowLoops) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      map.getNumResults() < rowLoops ||
      !map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return false;
  for (unsigned j = 0; j < rowLoops; ++j)
    if (map.getResult(j) != getAffineDimExpr(j, map.getContext()))
      return false;
  return true;
}

/// The buffers a chain writes, with the element count of each, so that two
/// views of the same bytes agree on what a row is.
struct Written {
  BufferRange range;
  int64_t elements;
};

/// Whether the ops of `chain` touch the buffers any of them writes only row
/// by row: row i of each op reaches row i of each such buffer alone.
bool rowLocal(ArrayRef<RowOp> chain) {
  SmallVector<Written> written;
  for (const RowOp &r : chain)
    for (Value init : r.op.getDpsInits()) {
      BufferRange range = rangeOf(init);
      if (!range.known)
        return false;
      written.push_back(
          {range, cast<MemRefType>(init.getType()).getNumElements()});
    }
  for (const RowOp &r : chain) {
    for (OpOperand &operand : r.op->getOpOperands()) {
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType()))
        continue;
      AffineMap map = r.op.getMatchingIndexingMap(&operand);
      if (!slicesByMap(map))
        return false;
      BufferRange range = rangeOf(v);
      int64_t elements = cast<MemRefType>(v.getType()).getNumElements();
      for (const Written &w : written) {
        if (!mayAlias(range, w.range))
          continue;
        // The same bytes, seen as the same rows.
        if (range.base != w.range.base || range.lo != w.range.lo ||
            range.hi != w.range.hi || elements != w.elements ||
            !readsAsRows(v, map, r.rowLoops))
          return false;
      }
    }
  }
  return true;
}

/// Whether `op` reads (as an input, not an initial value) what an op of
/// `chain` writes.
bool readsChain(linalg::LinalgOp op, ArrayRef<RowOp> chain) {
  for (Value in : op.getDpsInputs()) {
    if (!isa<MemRefType>(in.getType()))
      continue;
    BufferRange range = rangeOf(in);
    for (const RowOp &r : chain)
      for (Value init : r.op.getDpsInits())
        if (mayAlias(range, rangeOf(init)))
          return true;
  }
  return false;
}

/// Ops a chain may pass over: they only name values, or allocate.
bool passesOver(Operation *op) {
  return isNonMemoryOp(op) || isa<memref::AllocOp>(op);
}

/// The chain that starts at the row reduction `seed`: the fills right
/// before it, and the row ops after it up to the last that reads what the
/// chain wrote. Only ops that name values, and allocations, may lie between
/// them.
SmallVector<RowOp> chainFrom(linalg::LinalgOp seed, int64_t rows) {
  SmallVector<RowOp> chain;
  for (Operation *op = seed->getPrevNode(); op; op = op->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (!fill) {
      if (passesOver(op))
        continue;
      break;
    }
    std::optional<unsigned> k = rowLoopsOf(fill, rows);
    if (!k)
      break;
    chain.insert(chain.begin(), {fill, *k});
  }
  chain.push_back({seed, *rowLoopsOf(seed, rows)});
  for (Operation *op = seed->getNextNode(); op; op = op->getNextNode()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp) {
      if (passesOver(op))
        continue;
      break;
    }
    std::optional<unsigned> k = rowLoopsOf(linalgOp, rows);
    if (!k)
      break;
    chain.push_back({linalgOp, *k});
    if (!rowLocal(chain)) {
      chain.pop_back();
      break;
    }
  }
  while (chain.size() > 1 && !readsChain(chain.back().op, chain))
    chain.pop_back();
  if (!rowLocal(chain))
    return {};
  return chain;
}

/// Copies `r.op` onto row `row` of its operands at the builder's place and
/// erases it.
void sliceToRow(RewriterBase &rewriter, const RowOp &r, Value row) {
  linalg::LinalgOp op = r.op;
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<Value> rowIndex;
  if (r.rowLoops == 1) {
    rowIndex.push_back(row);
  } else if (r.rowLoops > 1) {
    SmallVector<int64_t> basis(ranges.begin(), ranges.begin() + r.rowLoops);
    auto delin =
        affine::AffineDelinearizeIndexOp::create(rewriter, loc, row, basis);
    rowIndex.assign(delin.getResults().begin(), delin.getResults().end());
  }
  SmallVector<Value> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type) {
      operands.push_back(v);
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    // Operands read whole by every row (LayerNorm's scale) stay as they are.
    if (llvm::none_of(map.getResults(), [&](AffineExpr e) {
          auto d = dyn_cast<AffineDimExpr>(e);
          return d && d.getPosition() < r.rowLoops;
        })) {
      operands.push_back(v);
      continue;
    }
    SmallVector<OpFoldResult> offsets, sizes,
        strides(type.getRank(), rewriter.getIndexAttr(1));
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (d && d.getPosition() < r.rowLoops) {
        offsets.push_back(rowIndex[d.getPosition()]);
        sizes.push_back(rewriter.getIndexAttr(1));
      } else {
        offsets.push_back(rewriter.getIndexAttr(0));
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
      }
    }
    operands.push_back(
        memref::SubViewOp::create(rewriter, loc, v, offsets, sizes, strides));
  }
  Operation *copy = rewriter.clone(*op);
  copy->setOperands(operands);
  rewriter.eraseOp(op);
}

struct FuseRowChainsPass : impl::FuseRowChainsBase<FuseRowChainsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto defaults =
        func->getAttrOfType<kernel::CpuScheduleAttr>(kDefaultScheduleAttr);
    if (!defaults)
      return;
    IRRewriter rewriter(&getContext());
    // Named reductions (softmax's maximum) are generics to the checks
    // below, as they are to kiln-cpu-tile-and-vectorize.
    SmallVector<linalg::ReduceOp> named;
    func.walk([&](linalg::ReduceOp op) { named.push_back(op); });
    for (linalg::ReduceOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }

    SmallVector<linalg::LinalgOp> seeds;
    func.walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<scf::ForallOp>() && isRowReduction(op) &&
          rowLoopsOf(op, rowsOf(op)))
        seeds.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 16> taken;
    for (linalg::LinalgOp seed : seeds) {
      if (taken.contains(seed))
        continue;
      int64_t rows = rowsOf(seed);
      int64_t rowElements = staticWork(seed) / rows;
      if (rows < kMinRows || rowElements > kMaxRowElements)
        continue;
      SmallVector<RowOp> chain = chainFrom(seed, rows);
      // Worth a loop only where an op reads a reduction's result.
      bool reuses = llvm::any_of(chain, [&](const RowOp &r) {
        return r.op != seed && readsChain(r.op, chain) &&
               !isa<linalg::FillOp>(r.op.getOperation());
      });
      if (chain.size() < 2 || !reuses)
        continue;
      for (const RowOp &r : chain)
        taken.insert(r.op);
      fuse(rewriter, chain, rows, defaults, seed.getLoc());
    }
  }

  /// The product of a row reduction's parallel loops.
  static int64_t rowsOf(linalg::LinalgOp op) {
    return staticLoopProduct(op, utils::IteratorType::parallel);
  }

  /// The loop takes `loc`, the reduction's: the fills before it may carry
  /// another node's (CSE merged ViT's twelve softmax fills into layer 0's
  /// before bufferization copied them again), and the profile and the
  /// kernel's symbol name the loop's node.
  void fuse(RewriterBase &rewriter, ArrayRef<RowOp> chain, int64_t rows,
            kernel::CpuScheduleAttr defaults, Location loc) {
    Operation *first = chain.front().op;
    DominanceInfo dom(getOperation());
    // The buffers and views that the later ops read are made before the
    // loop (allocations only live longer).
    for (const RowOp &r : chain)
      for (Value v : r.op->getOperands()) {
        auto alloc = rangeOf(v).base.getDefiningOp<memref::AllocOp>();
        if (alloc && alloc->getNumOperands() == 0 &&
            alloc->getBlock() == first->getBlock() &&
            first->isBeforeInBlock(alloc))
          alloc->moveBefore(first);
        if (!availableBefore(v, first, dom))
          return;
      }
    int64_t work = 0;
    for (const RowOp &r : chain)
      work = std::min(work, INT64_MAX / 2) +
             std::min(staticWork(r.op), INT64_MAX / 2);
    rewriter.setInsertionPoint(first);
    Block *body;
    Value row;
    if (defaults.getThreads() > 0 && work >= defaults.getMinParallelWork()) {
      auto forall = scf::ForallOp::create(
          rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(rows)},
          ValueRange{}, std::nullopt);
      body = forall.getBody();
      row = forall.getInductionVar(0);
    } else {
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value end = arith::ConstantIndexOp::create(rewriter, loc, rows);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto loop = scf::ForOp::create(rewriter, loc, zero, end, one);
      body = loop.getBody();
      row = loop.getInductionVar();
    }
    for (const RowOp &r : chain) {
      rewriter.setInsertionPoint(body->getTerminator());
      sliceToRow(rewriter, r, row);
    }
  }
};

} // namespace
} // namespace kiln
