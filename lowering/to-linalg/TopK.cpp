//===- TopK.cpp - kiln.graph TopK to linalg/scf ---------------------------===//
//
// TopK in two steps (K constant, or read at run time). First each element's
// rank along the axis: the number of elements that come before it (greater, or
// smaller with largest = 0; equal ones by lower index, so ranks are a
// permutation), one generic with a reduction loop over the axis. Then a loop
// nest writes every element whose rank is below K to that position of the
// values and indices. Sorted output comes for free; it costs n^2 comparisons
// per row, which the axes TopK sees in models (classes, boxes) keep small.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

struct TopKLowering : OpConversionPattern<g::TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto vt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getValues().getType()));
    auto it = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getIndices().getType()));
    if (!xt || !vt || !it || xt.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    auto axisOr = g::normalizeAxis(std::nullopt, op.getAxis(), xt.getRank());
    auto kt = dyn_cast<RankedTensorType>(adaptor.getK().getType());
    if (failed(axisOr) || !kt || kt.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "needs a one-element K");
    int64_t axis = *axisOr, rank = xt.getRank();
    Type elt = xt.getElementType();
    Type origElt = getElementTypeOrSelf(op.getX().getType());
    bool isFloat = isa<FloatType>(elt);
    bool isUnsigned = origElt.isUnsignedInteger();
    bool largest = op.getLargest() != 0;
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type i64 = rewriter.getI64Type();

    SmallVector<Value> dims, dyn;
    for (int64_t i = 0; i < rank; ++i) {
      dims.push_back(dimValue(rewriter, loc, x, i));
      if (xt.isDynamicDim(i))
        dyn.push_back(dims.back());
    }
    Value zero = createScalarConstant(rewriter, loc, i64, 0);
    Value rankInit =
        linalg::FillOp::create(rewriter, loc, zero,
                               ValueRange{tensor::EmptyOp::create(
                                   rewriter, loc, xt.getShape(), i64, dyn)})
            .getResult(0);
    SmallVector<AffineExpr> self, other;
    for (int64_t i = 0; i < rank; ++i) {
      self.push_back(getAffineDimExpr(i, ctx));
      other.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
    }
    AffineMap selfMap = AffineMap::get(rank + 1, 0, self, ctx);
    AffineMap otherMap = AffineMap::get(rank + 1, 0, other, ctx);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, rankInit.getType(), ValueRange{x, x}, rankInit,
            ArrayRef<AffineMap>{selfMap, otherMap, selfMap}, iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value xi = a[0], xj = a[1];
              Value i = linalg::IndexOp::create(b, l, axis);
              Value j = linalg::IndexOp::create(b, l, rank);
              Value before, equal;
              if (isFloat) {
                before =
                    arith::CmpFOp::create(b, l,
                                          largest ? arith::CmpFPredicate::OGT
                                                  : arith::CmpFPredicate::OLT,
                                          xj, xi);
                equal = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              xj, xi);
              } else {
                using P = arith::CmpIPredicate;
                P p = largest ? (isUnsigned ? P::ugt : P::sgt)
                              : (isUnsigned ? P::ult : P::slt);
                before = arith::CmpIOp::create(b, l, p, xj, xi);
                equal = arith::CmpIOp::create(b, l, P::eq, xj, xi);
              }
              Value lower =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j, i);
              Value counts = arith::OrIOp::create(
                  b, l, before, arith::AndIOp::create(b, l, equal, lower));
              Value inc = arith::ExtUIOp::create(b, l, i64, counts);
              linalg::YieldOp::create(
                  b, l, arith::AddIOp::create(b, l, a[2], inc).getResult());
            })
            .getResult(0);

    // K from the result type, or read at run time (clamped to the axis: the
    // output is then sized at run time).
    Value k =
        createScalarConstant(rewriter, loc, i64, double(vt.getDimSize(axis)));
    SmallVector<Value> outDyn;
    for (int64_t i = 0; i < rank; ++i) {
      if (!vt.isDynamicDim(i))
        continue;
      if (i != axis) {
        outDyn.push_back(dims[i]);
        continue;
      }
      SmallVector<Value> at(kt.getRank(), indexConstant(rewriter, loc, 0));
      Value kv = tensor::ExtractOp::create(rewriter, loc, adaptor.getK(), at);
      Value n = arith::IndexCastOp::create(rewriter, loc, i64, dims[axis]);
      k = arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, kv, zero), n);
      outDyn.push_back(arith::IndexCastOp::create(rewriter, loc,
                                                  rewriter.getIndexType(), k));
    }
    Value values =
        tensor::EmptyOp::create(rewriter, loc, vt.getShape(), elt, outDyn);
    Value indices =
        tensor::EmptyOp::create(rewriter, loc, it.getShape(), i64, outDyn);
    SmallVector<Value> lbs(rank, indexConstant(rewriter, loc, 0));
    SmallVector<Value> steps(rank, indexConstant(rewriter, loc, 1));
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, dims, steps, ValueRange{values, indices},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange dest) -> scf::ValueVector {
          Value r = tensor::ExtractOp::create(b, l, ranks, ivs);
          Value keep =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, k);
          auto ifOp = scf::IfOp::create(
              b, l, keep,
              [&](OpBuilder &tb, Location tl) {
                SmallVector<Value> pos(ivs);
                pos[axis] =
                    arith::IndexCastOp::create(tb, tl, tb.getIndexType(), r);
                Value v = tensor::ExtractOp::create(tb, tl, x, ivs);
                Value idx = arith::IndexCastOp::create(tb, tl, i64, ivs[axis]);
                Value nv = tensor::InsertOp::create(tb, tl, v, dest[0], pos);
                Value ni = tensor::InsertOp::create(tb, tl, idx, dest[1], pos);
                scf::YieldOp::create(tb, tl, ValueRange{nv, ni});
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, dest);
              });
          return {ifOp.getResult(0), ifOp.getResult(1)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

} // namespace

void populateTopKPatterns(GraphTypeConverter &converter,
                          RewritePatternSet &patterns) {
  patterns.add<TopKLowering>(converter, patterns.getContext());
}

} // namespace kiln
