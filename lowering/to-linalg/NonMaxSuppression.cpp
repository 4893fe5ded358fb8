//===- NonMaxSuppression.cpp - kiln.graph NonMaxSuppression to scf --------===//
//
// Per batch and class: the boxes ordered by descending score (ties by lower
// index, as ONNX Runtime), then a greedy pass that keeps a box when it
// scores above score_threshold and no kept box overlaps it by more than
// iou_threshold, up to max_output_boxes_per_class. The kept (batch, class,
// box) rows go to a scratch block of batch * classes * boxes rows; the
// result holds the rows written.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/ScalarLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// Scalar float arithmetic in the boxes' element type.
struct FloatOps {
  ScalarLoops &lb;
  Value add(Value x, Value y) {
    return arith::AddFOp::create(lb.b, lb.loc, x, y);
  }
  Value sub(Value x, Value y) {
    return arith::SubFOp::create(lb.b, lb.loc, x, y);
  }
  Value mul(Value x, Value y) {
    return arith::MulFOp::create(lb.b, lb.loc, x, y);
  }
  Value div(Value x, Value y) {
    return arith::DivFOp::create(lb.b, lb.loc, x, y);
  }
  Value min(Value x, Value y) {
    return arith::MinimumFOp::create(lb.b, lb.loc, x, y);
  }
  Value max(Value x, Value y) {
    return arith::MaximumFOp::create(lb.b, lb.loc, x, y);
  }
  Value gt(Value x, Value y) {
    return arith::CmpFOp::create(lb.b, lb.loc, arith::CmpFPredicate::OGT, x, y);
  }
  Value oeq(Value x, Value y) {
    return arith::CmpFOp::create(lb.b, lb.loc, arith::CmpFPredicate::OEQ, x, y);
  }
};

/// Box `i` of batch `b` as (ymin, xmin, ymax, xmax).
std::array<Value, 4> corners(ScalarLoops &lb, Value boxes, Value b, Value i,
                             bool centerPoint) {
  FloatOps f{lb};
  std::array<Value, 4> v;
  for (int64_t k = 0; k < 4; ++k)
    v[k] = lb.at(boxes, {b, i, lb.c(k)});
  if (centerPoint) {
    // [x_center, y_center, width, height]
    Value half = createScalarConstant(lb.b, lb.loc, v[0].getType(), 0.5);
    Value hw = f.mul(v[2], half), hh = f.mul(v[3], half);
    return {f.sub(v[1], hh), f.sub(v[0], hw), f.add(v[1], hh), f.add(v[0], hw)};
  }
  // [y1, x1, y2, x2] of any two opposite corners.
  return {f.min(v[0], v[2]), f.min(v[1], v[3]), f.max(v[0], v[2]),
          f.max(v[1], v[3])};
}

/// IoU(a, b) > threshold, false for empty boxes or no overlap.
Value overlapsTooMuch(ScalarLoops &lb, std::array<Value, 4> a,
                      std::array<Value, 4> b, Value threshold) {
  FloatOps f{lb};
  Value zero = createScalarConstant(lb.b, lb.loc, a[0].getType(), 0);
  Value h = f.max(f.sub(f.min(a[2], b[2]), f.max(a[0], b[0])), zero);
  Value w = f.max(f.sub(f.min(a[3], b[3]), f.max(a[1], b[1])), zero);
  Value inter = f.mul(h, w);
  Value areaA = f.mul(f.sub(a[2], a[0]), f.sub(a[3], a[1]));
  Value areaB = f.mul(f.sub(b[2], b[0]), f.sub(b[3], b[1]));
  Value uni = f.sub(f.add(areaA, areaB), inter);
  Value valid = lb.andI(lb.andI(f.gt(inter, zero), f.gt(areaA, zero)),
                        lb.andI(f.gt(areaB, zero), f.gt(uni, zero)));
  // Divide by 1 where invalid: the select discards it.
  Value one = createScalarConstant(lb.b, lb.loc, a[0].getType(), 1);
  Value iou = f.div(inter, lb.select(valid, uni, one));
  return lb.andI(valid, f.gt(iou, threshold));
}

/// Element 0 of an optional scalar input, or `absent`.
Value firstElement(ScalarLoops &ib, Value v, Value absent) {
  if (isAbsent(v))
    return absent;
  return ib.at(ib.flatten(v), ib.c(0));
}

struct NonMaxSuppressionLowering : OpConversionPattern<g::NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::NonMaxSuppressionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value boxes = adaptor.getBoxes(), scores = adaptor.getScores();
    auto bt = dyn_cast<RankedTensorType>(boxes.getType());
    auto st = dyn_cast<RankedTensorType>(scores.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getSelectedIndices().getType()));
    if (!bt || !st || !yt || bt.getElementType() != st.getElementType())
      return rewriter.notifyMatchFailure(op, "needs ranked boxes and scores");
    Location loc = op.getLoc();
    ScalarLoops ib{rewriter, loc};
    Type elt = bt.getElementType(), i64 = rewriter.getI64Type();
    bool centerPoint = op.getCenterPointBox() != 0;
    Value numBatches = dimValue(rewriter, loc, boxes, 0);
    Value n = dimValue(rewriter, loc, boxes, 1);
    Value numClasses = dimValue(rewriter, loc, scores, 1);
    Value zeroI64 = createScalarConstant(rewriter, loc, i64, 0);
    Value maxOut =
        firstElement(ib, adaptor.getMaxOutputBoxesPerClass(), zeroI64);
    maxOut = ib.toIndex(arith::MaxSIOp::create(rewriter, loc, maxOut, zeroI64));
    Value iouTh =
        castScalar(rewriter, loc,
                   firstElement(ib, adaptor.getIouThreshold(),
                                createScalarConstant(rewriter, loc, elt, 0)),
                   elt);
    Value scoreTh =
        isAbsent(adaptor.getScoreThreshold())
            ? Value()
            : castScalar(rewriter, loc,
                         firstElement(ib, adaptor.getScoreThreshold(), {}),
                         elt);

    Value capacity = ib.mul(ib.mul(numBatches, numClasses), n);
    Value rows = ib.zeros({ShapedType::kDynamic, 3}, i64, capacity);
    Value order = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic},
        rewriter.getIndexType(), ValueRange{n});
    SmallVector<Value> kept = ib.loop(
        ib.mul(numBatches, numClasses), {rows, ib.c(0), order},
        [&](ScalarLoops &pb, Value p, ValueRange pa) {
          Value b = arith::DivUIOp::create(pb.b, pb.loc, p, numClasses);
          Value c = arith::RemUIOp::create(pb.b, pb.loc, p, numClasses);
          // order[rank] = box: descending score, ties by lower index.
          Value ord =
              pb.loop(n, pa[2], [&](ScalarLoops &lb, Value i, ValueRange a) {
                Value si = lb.at(scores, {b, c, i});
                Value rank = lb.loop(
                    n, lb.c(0), [&](ScalarLoops &kb, Value j, ValueRange ra) {
                      FloatOps f{kb};
                      Value sj = kb.at(scores, {b, c, j});
                      Value before = kb.orI(
                          f.gt(sj, si), kb.andI(f.oeq(sj, si), kb.lt(j, i)));
                      return ScalarLoops::Values{
                          kb.add(ra[0], kb.oneIf(before))};
                    })[0];
                return ScalarLoops::Values{lb.put(i, a[0], rank)};
              })[0];
          Value start = pa[1];
          SmallVector<Value> sel = pb.loop(
              n, {pa[0], pa[1]}, [&](ScalarLoops &lb, Value r, ValueRange a) {
                Value i = lb.at(ord, r);
                Value count = lb.sub(a[1], start);
                Value ok = lb.lt(count, maxOut);
                if (scoreTh) {
                  FloatOps f{lb};
                  ok = lb.andI(ok, f.gt(lb.at(scores, {b, c, i}), scoreTh));
                }
                return lb.ifThen(ok, a, [&](ScalarLoops &tb) {
                  auto box = corners(tb, boxes, b, i, centerPoint);
                  Value suppressed = tb.loop(
                      count,
                      Value(arith::ConstantOp::create(tb.b, tb.loc,
                                                      tb.b.getBoolAttr(false))),
                      [&](ScalarLoops &mb, Value m, ValueRange ma) {
                        Value other = mb.toIndex(
                            mb.at(a[0], {mb.add(start, m), mb.c(2)}));
                        Value hit = overlapsTooMuch(
                            mb, box, corners(mb, boxes, b, other, centerPoint),
                            iouTh);
                        return ScalarLoops::Values{mb.orI(ma[0], hit)};
                      })[0];
                  return tb.ifThen(
                      tb.notI(suppressed), a, [&](ScalarLoops &wb) {
                        Value t = a[0];
                        Value row[3] = {b, c, i};
                        for (int64_t k = 0; k < 3; ++k)
                          t = wb.put(wb.toI64(row[k]), t, {a[1], wb.c(k)});
                        return ScalarLoops::Values{t, wb.add(a[1], wb.c(1))};
                      });
                });
              });
          return ScalarLoops::Values{sel[0], sel[1], ord};
        });

    // The rows written, up to a declared row count.
    Value total = kept[1];
    Value extent = yt.isDynamicDim(0) ? total : ib.c(yt.getDimSize(0));
    Value out =
        ib.zeros(yt.getShape(), i64,
                 yt.isDynamicDim(0) ? ValueRange{extent} : ValueRange{});
    out = ib.loop(ib.min(total, extent), out,
                  [&](ScalarLoops &lb, Value r, ValueRange a) {
                    Value t = a[0];
                    for (int64_t k = 0; k < 3; ++k)
                      t = lb.put(lb.at(kept[0], {r, lb.c(k)}), t, {r, lb.c(k)});
                    return ScalarLoops::Values{t};
                  })[0];
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

void populateNonMaxSuppressionPatterns(GraphTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<NonMaxSuppressionLowering>(converter, patterns.getContext());
}

} // namespace kiln
