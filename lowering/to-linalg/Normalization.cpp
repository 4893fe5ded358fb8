//===- Normalization.cpp - Normalization ops to linalg --------------------===//
//
// BatchNormalization (inference) folds its four parameter vectors into a
// per-channel scale and shift, then applies x * scale + shift.
// LayerNormalization computes mean and variance over the trailing dims in at
// least f32 (two passes, for stability), then normalizes, scales and shifts;
// InstanceNormalization is the same over the spatial dims. LRN sums squares
// over a window of channels.
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

/// (x - mean) / sqrt(var + eps) with the statistics over dims [axis, rank)
/// in at least f32 (two passes, for stability), times `affine[0]` and plus
/// `affine[1]` (when given), each read through its map.
Value normalizeTrailingDims(OpBuilder &rewriter, Location loc, Value x,
                            int64_t axis, double epsilon,
                            ArrayRef<Value> affine,
                            ArrayRef<AffineMap> affineMaps) {
  MLIRContext *ctx = rewriter.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
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
                         llvm::to_vector(llvm::seq<int64_t>(axis, rank)), ct));
  Value zero = createScalarConstant(rewriter, loc, ct, 0.0);
  auto zeroStat = [&]() {
    Value e = createEmptyFromDims(rewriter, loc, x, lead, ct);
    return linalg::FillOp::create(rewriter, loc, zero, e).getResult(0);
  };

  // Pass 1: sum of x.
  Value sumInit = zeroStat();
  Value sum = linalg::GenericOp::create(
                  rewriter, loc, sumInit.getType(), x, sumInit,
                  ArrayRef<AffineMap>{id, stat}, reduceIters,
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    Value v = castScalar(b, l, a[0], ct);
                    linalg::YieldOp::create(
                        b, l, arith::AddFOp::create(b, l, a[1], v).getResult());
                  })
                  .getResult(0);
  // Pass 2: sum of squared deviations from the mean.
  Value sq = linalg::GenericOp::create(
                 rewriter, loc, sum.getType(), ValueRange{x, sum}, zeroStat(),
                 ArrayRef<AffineMap>{id, stat, stat}, reduceIters,
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   Value mean = arith::MulFOp::create(b, l, a[1], invN);
                   Value d = arith::SubFOp::create(
                       b, l, castScalar(b, l, a[0], ct), mean);
                   Value d2 = arith::MulFOp::create(b, l, d, d);
                   linalg::YieldOp::create(
                       b, l, arith::AddFOp::create(b, l, a[2], d2).getResult());
                 })
                 .getResult(0);
  // Per row: mean and 1 / sqrt(var + eps).
  Value eps = createScalarConstant(rewriter, loc, ct, epsilon);
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
  llvm::append_range(inputs, affine);
  llvm::append_range(maps, affineMaps);
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
  return result;
}

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
    SmallVector<AffineMap> maps;
    for (Value v : affine)
      maps.push_back(getBroadcastMap(ctx, cast<RankedTensorType>(v.getType()),
                                     type.getShape()));
    Value result =
        normalizeTrailingDims(rewriter, loc, x, axis,
                              op.getEpsilon().convertToDouble(), affine, maps);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Statistics per (n, c) over the spatial dims, as a LayerNormalization at
/// axis 2, with the scale and bias per channel.
struct InstanceNormLowering : OpConversionPattern<g::InstanceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::InstanceNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || type.getRank() < 3 || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a float tensor, rank >= 3");
    SmallVector<Value> affine = {adaptor.getScale(), adaptor.getB()};
    for (Value v : affine) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getRank() != 1)
        return rewriter.notifyMatchFailure(op, "scale and B must be 1-D");
    }
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    rewriter.replaceOp(
        op, normalizeTrailingDims(rewriter, op.getLoc(), x, /*axis=*/2,
                                  op.getEpsilon().convertToDouble(), affine,
                                  {channel, channel}));
    return success();
  }
};

/// The sum of squares over a window of `size` channels (one generic with a
/// reduction loop over the window; channels past the edges count 0), then
/// x / (bias + alpha / size * sum)^beta.
struct LRNLowering : OpConversionPattern<g::LRNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    int64_t size = op.getSize();
    if (!type || type.getRank() < 2 || size < 1)
      return rewriter.notifyMatchFailure(op, "needs rank >= 2 and size >= 1");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    Type elt = type.getElementType();
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value zero = createScalarConstant(rewriter, loc, elt, 0.0);
    Value sqInit =
        linalg::FillOp::create(rewriter, loc, zero,
                               createEmptyFromDims(rewriter, loc, x, all, elt))
            .getResult(0);
    // Loop `rank` walks the window; a tensor of its extent carries it.
    Value window = tensor::EmptyOp::create(rewriter, loc, {size}, elt);
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    AffineMap out = AffineMap::get(rank + 1, 0, outExprs, ctx);
    AffineMap win = AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx));
    SmallVector<utils::IteratorType> iters = parallelIters(rank);
    iters.push_back(utils::IteratorType::reduction);
    Value channels = tensor::DimOp::create(rewriter, loc, x, 1);
    int64_t before = (size - 1) / 2;
    Value sq =
        linalg::GenericOp::create(
            rewriter, loc, type, window, sqInit, ArrayRef<AffineMap>{win, out},
            iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              SmallVector<Value> idx;
              for (int64_t i = 0; i < rank; ++i)
                idx.push_back(linalg::IndexOp::create(b, l, i));
              Value k = linalg::IndexOp::create(b, l, rank);
              // c - before + k, compared signed so that it may go below 0.
              Value ch = arith::SubIOp::create(
                  b, l, arith::AddIOp::create(b, l, idx[1], k),
                  arith::ConstantIndexOp::create(b, l, before));
              Value inside = arith::AndIOp::create(
                  b, l,
                  arith::CmpIOp::create(
                      b, l, arith::CmpIPredicate::sge, ch,
                      arith::ConstantIndexOp::create(b, l, 0)),
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, ch,
                                        channels));
              Value safe = arith::SelectOp::create(
                  b, l, inside, ch, arith::ConstantIndexOp::create(b, l, 0));
              idx[1] = safe;
              Value v = tensor::ExtractOp::create(b, l, x, idx);
              Value v2 = arith::MulFOp::create(b, l, v, v);
              v2 = arith::SelectOp::create(b, l, inside, v2,
                                           createScalarConstant(b, l, elt, 0));
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, a[1], v2).getResult());
            })
            .getResult(0);
    double alpha = op.getAlpha().convertToDouble() / double(size);
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, ValueRange{x, sq},
            createEmptyFromDims(rewriter, loc, x, all, elt),
            ArrayRef<AffineMap>{id, id, id}, parallelIters(rank),
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value d = arith::AddFOp::create(
                  b, l, createScalarConstant(b, l, elt, bias),
                  arith::MulFOp::create(
                      b, l, createScalarConstant(b, l, elt, alpha), a[1]));
              Value p = math::PowFOp::create(
                  b, l, d, createScalarConstant(b, l, elt, beta));
              linalg::YieldOp::create(
                  b, l, arith::DivFOp::create(b, l, a[0], p).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateNormalizationLoweringPatterns(GraphTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<BatchNormLowering, LayerNormLowering, InstanceNormLowering,
               LRNLowering>(converter, patterns.getContext());
}

} // namespace kiln
