//===- Normalization.cpp - Normalization ops to linalg --------------------===//
//
// BatchNormalization (inference) folds its four parameter vectors into a
// per-channel scale and shift, then applies x * scale + shift.
// LayerNormalization computes mean and variance over the trailing dims in at
// least f32 (two passes, for stability), then normalizes, scales and shifts.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// `tensor.empty` with the extents of `src` along `dims`, in that order.
Value createEmptyFromDims(OpBuilder &b, Location loc, Value src,
                          ArrayRef<int64_t> dims, Type elt) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : dims)
    sizes.push_back(tensor::getMixedSize(b, loc, src, d));
  return tensor::EmptyOp::create(b, loc, sizes, elt);
}

SmallVector<utils::IteratorType> parallelIters(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

struct BatchNormLowering : OpConversionPattern<g::BatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::BatchNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    if (op.getTrainingMode() != 0)
      return rewriter.notifyMatchFailure(op, "training mode");
    Value x = adaptor.getX();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a float tensor, rank >= 2");
    Value params[] = {adaptor.getScale(), adaptor.getB(),
                      adaptor.getInputMean(), adaptor.getInputVar()};
    for (Value p : params) {
      auto t = dyn_cast<RankedTensorType>(p.getType());
      if (!t || t.getRank() != 1 || !isa<FloatType>(t.getElementType()))
        return rewriter.notifyMatchFailure(op, "parameters must be 1-D float");
    }
    Type elt = type.getElementType();
    int64_t rank = type.getRank();

    // Per channel: s = scale / sqrt(var + eps), t = B - mean * s.
    Value eps = createScalarConstant(rewriter, loc, elt,
                                     op.getEpsilon().convertToDouble());
    Value cs = createEmptyFromDims(rewriter, loc, params[0], {0}, elt);
    Value ct = createEmptyFromDims(rewriter, loc, params[0], {0}, elt);
    AffineMap id1 = rewriter.getMultiDimIdentityMap(1);
    auto perChannel = linalg::GenericOp::create(
        rewriter, loc, TypeRange{cs.getType(), ct.getType()}, params,
        ValueRange{cs, ct}, SmallVector<AffineMap>(6, id1), parallelIters(1),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value scale = castScalar(b, l, a[0], elt);
          Value bias = castScalar(b, l, a[1], elt);
          Value mean = castScalar(b, l, a[2], elt);
          Value var = castScalar(b, l, a[3], elt);
          Value std =
              math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, var, eps));
          Value s = arith::DivFOp::create(b, l, scale, std);
          Value t = arith::SubFOp::create(b, l, bias,
                                          arith::MulFOp::create(b, l, mean, s));
          linalg::YieldOp::create(b, l, ValueRange{s, t});
        });

    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value init = createEmptyFromDims(rewriter, loc, x, all, elt);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type,
            ValueRange{x, perChannel.getResult(0), perChannel.getResult(1)},
            init, ArrayRef<AffineMap>{id, channel, channel, id},
            parallelIters(rank),
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value m = arith::MulFOp::create(b, l, a[0], a[1]);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, m, a[2]).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LayerNormLowering : OpConversionPattern<g::LayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::LayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getX();
    Value scale = adaptor.getScale(), bias = adaptor.getB();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a ranked float tensor");
    int64_t rank = type.getRank();
    auto axisOr = g::normalizeAxis(std::nullopt, op.getAxis(), rank);
    if (failed(axisOr))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t axis = *axisOr;
    SmallVector<Value> affine = {scale};
    if (!isAbsent(bias))
      affine.push_back(bias);
    for (Value v : affine) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getRank() > rank - axis ||
          !isa<FloatType>(t.getElementType()))
        return rewriter.notifyMatchFailure(op, "unsupported Scale/B");
    }
    Type elt = type.getElementType();
    // Statistics in f32, or in the input type when that is wider.
    Type ct = elt.getIntOrFloatBitWidth() > 32 ? elt : rewriter.getF32Type();

    // Loops over all dims; the statistics live on the leading `axis` dims.
    SmallVector<int64_t> lead = llvm::to_vector(llvm::seq<int64_t>(0, axis));
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<AffineExpr> leadExprs;
    for (int64_t d : lead)
      leadExprs.push_back(getAffineDimExpr(d, ctx));
    AffineMap stat = AffineMap::get(rank, 0, leadExprs, ctx);
    SmallVector<utils::IteratorType> reduceIters = parallelIters(rank);
    for (int64_t i = axis; i < rank; ++i)
      reduceIters[i] = utils::IteratorType::reduction;

    Value invN = arith::DivFOp::create(
        rewriter, loc, createScalarConstant(rewriter, loc, ct, 1.0),
        createElementCount(rewriter, loc, x,
                           llvm::to_vector(llvm::seq<int64_t>(axis, rank)),
                           ct));
    Value zero = createScalarConstant(rewriter, loc, ct, 0.0);
    auto zeroStat = [&]() {
      Value e = createEmptyFromDims(rewriter, loc, x, lead, ct);
      return linalg::FillOp::create(rewriter, loc, zero, e).getResult(0);
    };

    // Pass 1: sum of x.
    Value sumInit = zeroStat();
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, sumInit.getType(), x, sumInit,
            ArrayRef<AffineMap>{id, stat}, reduceIters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value v = castScalar(b, l, a[0], ct);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, a[1], v).getResult());
            })
            .getResult(0);
    // Pass 2: sum of squared deviations from the mean.
    Value sq =
        linalg::GenericOp::create(
            rewriter, loc, sum.getType(), ValueRange{x, sum}, zeroStat(),
            ArrayRef<AffineMap>{id, stat, stat}, reduceIters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value mean = arith::MulFOp::create(b, l, a[1], invN);
              Value d =
                  arith::SubFOp::create(b, l, castScalar(b, l, a[0], ct), mean);
              Value d2 = arith::MulFOp::create(b, l, d, d);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, a[2], d2).getResult());
            })
            .getResult(0);
    // Per row: mean and 1 / sqrt(var + eps).
    Value eps = createScalarConstant(rewriter, loc, ct,
                                     op.getEpsilon().convertToDouble());
    AffineMap statId = rewriter.getMultiDimIdentityMap(axis);
    Value meanInit = createEmptyFromDims(rewriter, loc, x, lead, ct);
    Value rstdInit = createEmptyFromDims(rewriter, loc, x, lead, ct);
    auto stats = linalg::GenericOp::create(
        rewriter, loc, TypeRange{sum.getType(), sum.getType()},
        ValueRange{sum, sq}, ValueRange{meanInit, rstdInit},
        SmallVector<AffineMap>(4, statId), parallelIters(axis),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value mean = arith::MulFOp::create(b, l, a[0], invN);
          Value var = arith::MulFOp::create(b, l, a[1], invN);
          Value std =
              math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, var, eps));
          Value one = createScalarConstant(b, l, ct, 1.0);
          Value rstd = arith::DivFOp::create(b, l, one, std);
          linalg::YieldOp::create(b, l, ValueRange{mean, rstd});
        });

    // y = (x - mean) * rstd * Scale + B.
    SmallVector<Value> inputs = {x, stats.getResult(0), stats.getResult(1)};
    SmallVector<AffineMap> maps = {id, stat, stat};
    for (Value v : affine) {
      inputs.push_back(v);
      maps.push_back(
          getBroadcastMap(ctx, cast<RankedTensorType>(v.getType()), rank));
    }
    maps.push_back(id);
    Value init = createEmptyFromDims(rewriter, loc, x, all, elt);
    bool hasBias = affine.size() == 2;
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, inputs, init, maps, parallelIters(rank),
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value d =
                  arith::SubFOp::create(b, l, castScalar(b, l, a[0], ct), a[1]);
              Value n = arith::MulFOp::create(b, l, d, a[2]);
              Value y =
                  arith::MulFOp::create(b, l, n, castScalar(b, l, a[3], ct));
              if (hasBias)
                y = arith::AddFOp::create(b, l, y, castScalar(b, l, a[4], ct));
              linalg::YieldOp::create(b, l, castScalar(b, l, y, elt));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateNormalizationLoweringPatterns(GraphTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<BatchNormLowering, LayerNormLowering>(converter,
                                                     patterns.getContext());
}

} // namespace kiln
