//===- PackedWeightProduct.cpp - Products with weights packed in panels ---===//
//
// A MatMul with a constant B (a transformer's projections and MLPs) reads
// its weights as the vector operand: one kc x nr panel per N step, copied
// at run time from rows a whole weight row apart (3-12 KiB), a page each,
// which the prefetchers do not follow. Packed at compile time, panel-major
// ([N / nr][K][nr]), every panel is one contiguous stream, read once per
// block of rows and never copied:
//
//   scf.for K / kc                          sequential, A block (mc x kc)
//     scf.forall (M / mc, N / nr)           threads; N fastest, so a thread
//       linalg.matmul mc x nr x kc            keeps its A block in L2
//
// with the whole M blocks and the last partial one as separate foralls, so
// every product is static. Each product takes the contraction kernel with
// one register-tile column and no packing.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

namespace {

/// B ([K][N]) in panels of `nr` columns, [ceil(N / nr)][K][nr]: packed at
/// compile time where B is constant (the last panel's missing columns are
/// zeros), else by a copy at run time (a transpose of the whole panels and
/// an insert of the last one's columns; its other columns are never read).
Value packPanels(RewriterBase &rewriter, Location loc, Value b, int64_t k,
                 int64_t n, int64_t nr) {
  auto bt = cast<RankedTensorType>(b.getType());
  Type elt = bt.getElementType();
  int64_t panels = llvm::divideCeil(n, nr), whole = n / nr;
  auto packedType = RankedTensorType::get({panels, k, nr}, elt);
  if (std::optional<ConstantData> w = getConstantData(b)) {
    // packed[j][kk][c] = w[kk][j * nr + c].
    std::vector<double> packed(panels * k * nr, 0.0);
    for (int64_t j = 0; j < panels; ++j)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t c = 0; c < nr && j * nr + c < n; ++c)
          packed[(j * k + kk) * nr + c] = w->getDouble(kk * n + j * nr + c);
    return arith::ConstantOp::create(
        rewriter, loc,
        cast<TypedAttr>(
            createFloatConstantAttr(packedType, packed, "weights_panels")));
  }
  MLIRContext *ctx = rewriter.getContext();
  auto index = [&](int64_t v) -> OpFoldResult {
    return rewriter.getIndexAttr(v);
  };
  Value packed =
      tensor::EmptyOp::create(rewriter, loc, packedType.getShape(), elt);
  if (whole > 0) {
    Value src = b;
    if (whole * nr < n)
      src = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({k, whole * nr}, elt), b,
          SmallVector<OpFoldResult>{index(0), index(0)},
          SmallVector<OpFoldResult>{index(k), index(whole * nr)},
          SmallVector<OpFoldResult>(2, index(1)));
    Value rows = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, whole, nr}, elt), src,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    Value dest = packed;
    if (whole < panels)
      dest = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({whole, k, nr}, elt), packed,
          SmallVector<OpFoldResult>{index(0), index(0), index(0)},
          SmallVector<OpFoldResult>{index(whole), index(k), index(nr)},
          SmallVector<OpFoldResult>(3, index(1)));
    AffineExpr j, kk, c;
    bindDims(ctx, j, kk, c);
    auto copy = linalg::GenericOp::create(
        rewriter, loc, TypeRange{dest.getType()}, ValueRange{rows},
        ValueRange{dest},
        ArrayRef<AffineMap>{AffineMap::get(3, 0, {kk, j, c}, ctx),
                            AffineMap::get(3, 0, {j, kk, c}, ctx)},
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
        [](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l, args[0]);
        });
    packed =
        whole < panels
            ? tensor::InsertSliceOp::create(
                  rewriter, loc, copy.getResult(0), packed,
                  SmallVector<OpFoldResult>{index(0), index(0), index(0)},
                  SmallVector<OpFoldResult>{index(whole), index(k), index(nr)},
                  SmallVector<OpFoldResult>(3, index(1)))
                  .getResult()
            : copy.getResult(0);
  }
  if (whole < panels) {
    int64_t width = n - whole * nr;
    Value last = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({k, width}, elt), b,
        SmallVector<OpFoldResult>{index(0), index(whole * nr)},
        SmallVector<OpFoldResult>{index(k), index(width)},
        SmallVector<OpFoldResult>(2, index(1)));
    packed = tensor::InsertSliceOp::create(
        rewriter, loc, last, packed,
        SmallVector<OpFoldResult>{index(whole), index(0), index(0)},
        SmallVector<OpFoldResult>{index(1), index(k), index(width)},
        SmallVector<OpFoldResult>(3, index(1)));
  }
  return packed;
}

} // namespace

FailureOr<Operation *>
cpu::rewriteMatmulWithPackedWeights(RewriterBase &rewriter,
                                    linalg::MatmulOp op) {
  kernel::CpuScheduleAttr schedule = getOwnSchedule(op);
  if (!schedule || !op.hasPureTensorSemantics() ||
      !linalg::MatmulOp::isDefaultIndexingMaps(op.getIndexingMaps()))
    return rewriter.notifyMatchFailure(op, "needs tensors and default maps");
  auto at = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto bt = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto ct = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
  if (!at || !bt || !ct || !at.hasStaticShape() || !bt.hasStaticShape() ||
      !ct.hasStaticShape() || !ct.getElementType().isF32() ||
      !at.getElementType().isF32() || !bt.getElementType().isF32())
    return rewriter.notifyMatchFailure(op, "needs static f32 shapes");
  int64_t m = ct.getDimSize(0), n = ct.getDimSize(1), k = at.getDimSize(1);
  int64_t nr = schedule.getRegN(), kc = schedule.getTileK(),
          mc = schedule.getTileM();
  if (nr <= 0 || kc <= 0 || mc <= 0)
    return rewriter.notifyMatchFailure(op, "needs register and cache tiles");

  MLIRContext *ctx = rewriter.getContext();
  Location loc = op.getLoc();
  Type elt = ct.getElementType();
  int64_t whole = n / nr, width = n - whole * nr;
  rewriter.setInsertionPoint(op);
  Value weights = packPanels(rewriter, loc, op.getInputs()[1], k, n, nr);
  Value a = op.getInputs()[0];
  SavedSchedule saved = saveSchedule(op);
  Operation *first = nullptr;
  auto index = [&](int64_t v) -> OpFoldResult {
    return rewriter.getIndexAttr(v);
  };

  // One forall over `blocks` row blocks of `rows` from `row0` and `count`
  // panels from `panel0`, `cols` columns of each, on K columns [k0, k0 +
  // depth).
  auto panelsOf = [&](OpBuilder &b, Location l, Value acc, OpFoldResult k0,
                      int64_t depth, int64_t row0, int64_t rows, int64_t blocks,
                      int64_t panel0, int64_t count, int64_t cols) -> Value {
    // One panel of columns, this row and K block, no packing and no threads
    // of their own.
    kernel::CpuScheduleAttr inner = contractionScheduleFrom(
        schedule, rows, nr, depth, /*packRowBytes=*/0, /*packARowBytes=*/0,
        /*threads=*/0);
    AffineExpr d0;
    bindDims(ctx, d0);
    auto forall = scf::ForallOp::create(
        b, l, ArrayRef<OpFoldResult>{index(blocks), index(count)},
        ValueRange{acc}, std::nullopt,
        [&](OpBuilder &nb, Location il, ValueRange args) {
          Value i = args[0], out = args[2];
          Value j = panel0 == 0 ? args[1]
                                : affine::AffineApplyOp::create(
                                      nb, il, AffineMap::get(1, 0, d0 + panel0),
                                      args[1])
                                      .getResult();
          Value r = affine::AffineApplyOp::create(
              nb, il, AffineMap::get(1, 0, d0 * rows + row0), i);
          Value c = affine::AffineApplyOp::create(
              nb, il, AffineMap::get(1, 0, d0 * nr), j);
          Value aBlock = tensor::ExtractSliceOp::create(
              nb, il, RankedTensorType::get({rows, depth}, elt), a,
              SmallVector<OpFoldResult>{r, k0},
              SmallVector<OpFoldResult>{index(rows), index(depth)},
              SmallVector<OpFoldResult>(2, index(1)));
          Value panel = tensor::ExtractSliceOp::create(
              nb, il, RankedTensorType::get({depth, cols}, elt), weights,
              SmallVector<OpFoldResult>{j, k0, index(0)},
              SmallVector<OpFoldResult>{index(1), index(depth), index(cols)},
              SmallVector<OpFoldResult>(3, index(1)));
          SmallVector<OpFoldResult> offsets = {r, c},
                                    sizes = {index(rows), index(cols)},
                                    unit = {index(1), index(1)};
          Value slot =
              tensor::ExtractSliceOp::create(nb, il, out, offsets, sizes, unit);
          auto product = linalg::MatmulOp::create(
              nb, il, TypeRange{slot.getType()}, ValueRange{aBlock, panel},
              ValueRange{slot});
          restoreSchedule(saved, product);
          product->setAttr(kScheduleAttr, inner);
          if (!first)
            first = product;
          auto inParallel = scf::InParallelOp::create(nb, il);
          OpBuilder::InsertionGuard guard(nb);
          nb.setInsertionPointToStart(inParallel.getBody());
          tensor::ParallelInsertSliceOp::create(nb, il, product.getResult(0),
                                                out, offsets, sizes, unit);
        });
    return forall.getResult(0);
  };
  // All row blocks and panels on K columns [k0, k0 + depth): whole row
  // blocks and the last partial one, whole panels and the last partial one.
  int64_t wholeRows = m / mc * mc;
  auto block = [&](OpBuilder &b, Location l, Value acc, OpFoldResult k0,
                   int64_t depth) {
    auto rowsOf = [&](int64_t row0, int64_t rows, int64_t blocks) {
      if (whole > 0)
        acc = panelsOf(b, l, acc, k0, depth, row0, rows, blocks, 0, whole, nr);
      if (width > 0)
        acc =
            panelsOf(b, l, acc, k0, depth, row0, rows, blocks, whole, 1, width);
    };
    if (wholeRows > 0)
      rowsOf(0, mc, m / mc);
    if (wholeRows < m)
      rowsOf(wholeRows, m - wholeRows, 1);
    return acc;
  };

  Value acc = op.getOutputs()[0];
  int64_t wholeK = k / kc * kc;
  if (wholeK == kc) {
    acc = block(rewriter, loc, acc, index(0), kc);
  } else if (wholeK > 0) {
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, wholeK);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, kc);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{acc},
        [&](OpBuilder &b, Location l, Value k0, ValueRange args) {
          scf::YieldOp::create(b, l, block(b, l, args[0], k0, kc));
        });
    acc = loop.getResult(0);
  }
  if (wholeK < k)
    acc = block(rewriter, loc, acc, index(wholeK), k - wholeK);
  rewriter.replaceOp(op, acc);
  return first;
}

} // namespace kiln
