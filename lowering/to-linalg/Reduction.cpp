//===- Reduction.cpp - Reductions and softmax to linalg -------------------===//
//
// ReduceSum/Mean/Max become a linalg.reduce over the reduced dims (plus a
// division for the mean) and a tensor.expand_shape for keepdims. Softmax and
// LogSoftmax are the numerically stable three-step form: a max-reduce, a
// sum of exp(x - max), and an elementwise normalization.
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

enum class ReduceKind { Sum, Mean, Max };

/// `tensor.empty` with the extents of `src` along `dims`, in that order.
Value createEmptyFromDims(OpBuilder &b, Location loc, Value src,
                          ArrayRef<int64_t> dims, Type elt) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : dims)
    sizes.push_back(tensor::getMixedSize(b, loc, src, d));
  return tensor::EmptyOp::create(b, loc, sizes, elt);
}

/// A tensor with the extents of `src` along `dims`, filled with `value`.
Value createFilled(OpBuilder &b, Location loc, Value src,
                   ArrayRef<int64_t> dims, Value value) {
  Value empty = createEmptyFromDims(b, loc, src, dims, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

/// Identity map over `rank` loop dims with the dims in `drop` removed.
AffineMap getMapWithout(MLIRContext *ctx, int64_t rank,
                        ArrayRef<int64_t> drop) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(drop, i))
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// The lowest value of `elt`: -inf for floats, the minimum integer otherwise.
Value createLowest(OpBuilder &b, Location loc, Type elt, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(elt))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(),
                                          /*Negative=*/true)));
  unsigned w = elt.getIntOrFloatBitWidth();
  APInt v = isUnsigned ? APInt::getMinValue(w) : APInt::getSignedMinValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elt, v));
}

Value createMax(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

/// Reduces `input` over `dims` (sorted) with max or add, starting from the
/// neutral value. The result drops the reduced dims.
Value createReduce(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> dims, bool isMax, bool isUnsigned) {
  auto type = cast<RankedTensorType>(input.getType());
  Type elt = type.getElementType();
  Value init = isMax ? createLowest(b, loc, elt, isUnsigned)
                     : createScalarConstant(b, loc, elt, 0.0);
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!llvm::is_contained(dims, i))
      kept.push_back(i);
  Value acc = createFilled(b, loc, input, kept, init);
  auto reduce = linalg::ReduceOp::create(
      b, loc, input, acc, dims,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r;
        if (isMax)
          r = createMax(nb, nloc, args[0], args[1], isUnsigned);
        else if (isa<FloatType>(elt))
          r = arith::AddFOp::create(nb, nloc, args[0], args[1]);
        else
          r = arith::AddIOp::create(nb, nloc, args[0], args[1]);
        linalg::YieldOp::create(nb, nloc, r);
      });
  return reduce.getResult(0);
}

/// Which dims of the input a Reduce* op reduces. Axes must be constant,
/// statically empty, or (with keepdims) implied by a static result shape:
/// a result extent of 1 means the dim is reduced, which is also correct
/// when the input extent happens to be 1.
FailureOr<SmallVector<bool>> getReducedDims(Value axes, RankedTensorType in,
                                            RankedTensorType out, bool keepDims,
                                            bool noop) {
  int64_t rank = in.getRank();
  std::optional<SmallVector<int64_t>> vals;
  auto axesType = dyn_cast<RankedTensorType>(axes.getType());
  if (isAbsent(axes) ||
      (axesType && axesType.hasStaticShape() && axesType.getNumElements() == 0))
    vals = SmallVector<int64_t>();
  else
    vals = g::getConstantInts(axes);
  if (vals) {
    if (vals->empty())
      return SmallVector<bool>(rank, !noop);
    SmallVector<bool> reduced(rank, false);
    for (int64_t a : *vals) {
      auto n = g::normalizeAxis(std::nullopt, a, rank);
      if (failed(n))
        return failure();
      reduced[*n] = true;
    }
    return reduced;
  }
  if (!keepDims || out.getRank() != rank)
    return failure();
  SmallVector<bool> reduced(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    if (out.isDynamicDim(i))
      return failure();
    reduced[i] = out.getDimSize(i) == 1;
  }
  return reduced;
}

template <typename Op, ReduceKind Kind>
struct ReduceLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(input.getType());
    auto outType = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!inType || !outType)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Type elt = inType.getElementType();
    if (!isa<FloatType, IntegerType>(elt))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Type origElt = getElementTypeOrSelf(op.getData().getType());
    bool isUnsigned = origElt.isUnsignedInteger() || origElt.isInteger(1);
    if (Kind != ReduceKind::Max && origElt.isInteger(1))
      return rewriter.notifyMatchFailure(op, "bool sum/mean");

    bool keepDims = op.getKeepdims() != 0;
    auto reduced = getReducedDims(op.getAxes(), inType, outType, keepDims,
                                  op.getNoopWithEmptyAxes() != 0);
    if (failed(reduced))
      return rewriter.notifyMatchFailure(
          op, "axes must be constant (or implied by a keepdims result)");
    SmallVector<int64_t> dims;
    for (auto [i, r] : llvm::enumerate(*reduced))
      if (r)
        dims.push_back(i);

    Value result = input;
    if (!dims.empty()) {
      result = createReduce(rewriter, loc, input, dims, Kind == ReduceKind::Max,
                            isUnsigned);
      if (Kind == ReduceKind::Mean)
        result = divideByCount(rewriter, loc, result, input, dims, isUnsigned);
      if (keepDims)
        result = expandReducedDims(rewriter, loc, result, inType, *reduced);
    }
    if (result.getType() != outType)
      result = tensor::CastOp::create(rewriter, loc, outType, result);
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value divideByCount(OpBuilder &b, Location loc, Value sum, Value input,
                             ArrayRef<int64_t> dims, bool isUnsigned) {
    auto type = cast<RankedTensorType>(sum.getType());
    Type elt = type.getElementType();
    Value count = createElementCount(b, loc, input, dims, elt);
    int64_t rank = type.getRank();
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value init = createEmptyFromDims(b, loc, sum, all, elt);
    AffineMap id = b.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, type, sum, init, ArrayRef<AffineMap>{id, id}, iters,
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 Value r;
                 if (isa<FloatType>(elt))
                   r = arith::DivFOp::create(nb, nloc, args[0], count);
                 else if (isUnsigned)
                   r = arith::DivUIOp::create(nb, nloc, args[0], count);
                 else
                   r = arith::DivSIOp::create(nb, nloc, args[0], count);
                 linalg::YieldOp::create(nb, nloc, r);
               })
        .getResult(0);
  }

  /// Reinserts the reduced dims as unit dims: each one joins the group of
  /// the next kept dim (or of the last kept dim when trailing).
  static Value expandReducedDims(OpBuilder &b, Location loc, Value v,
                                 RankedTensorType inType,
                                 ArrayRef<bool> reduced) {
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices pending;
    for (auto [i, r] : llvm::enumerate(reduced)) {
      shape.push_back(r ? 1 : inType.getDimSize(i));
      pending.push_back(i);
      if (!r) {
        groups.push_back(pending);
        pending.clear();
      }
    }
    if (!groups.empty())
      groups.back().append(pending.begin(), pending.end());
    auto type = RankedTensorType::get(shape, inType.getElementType());
    return tensor::ExpandShapeOp::create(b, loc, type, v, groups);
  }
};

/// Softmax (or LogSoftmax) along one axis.
template <typename Op, bool IsLog>
struct SoftmaxLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a ranked float tensor");
    int64_t rank = type.getRank();
    auto axisOr = g::normalizeAxis(std::nullopt, op.getAxis(), rank);
    if (failed(axisOr))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t axis = *axisOr;
    Type elt = type.getElementType();

    Value max = createReduce(rewriter, loc, x, {axis}, /*isMax=*/true,
                             /*isUnsigned=*/false);

    // sum(exp(x - max)) along the axis.
    SmallVector<int64_t> kept;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        kept.push_back(i);
    Value zero = createScalarConstant(rewriter, loc, elt, 0.0);
    Value acc = createFilled(rewriter, loc, x, kept, zero);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap dropAxis = getMapWithout(ctx, rank, {axis});
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters[axis] = utils::IteratorType::reduction;
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, acc.getType(), ValueRange{x, max}, acc,
            ArrayRef<AffineMap>{id, dropAxis, dropAxis}, iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value d = arith::SubFOp::create(b, l, a[0], a[1]);
              Value e = math::ExpOp::create(b, l, d);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, a[2], e).getResult());
            })
            .getResult(0);

    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value init = createEmptyFromDims(rewriter, loc, x, all, elt);
    iters[axis] = utils::IteratorType::parallel;
    Value result = linalg::GenericOp::create(
                       rewriter, loc, type, ValueRange{x, max, sum}, init,
                       ArrayRef<AffineMap>{id, dropAxis, dropAxis, id}, iters,
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                         Value r;
                         if (IsLog)
                           r = arith::SubFOp::create(
                               b, l, d, math::LogOp::create(b, l, a[2]));
                         else
                           r = arith::DivFOp::create(
                               b, l, math::ExpOp::create(b, l, d), a[2]);
                         linalg::YieldOp::create(b, l, r);
                       })
                       .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateReductionLoweringPatterns(GraphTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering<g::ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<g::ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<g::ReduceMaxOp, ReduceKind::Max>,
               SoftmaxLowering<g::SoftmaxOp, /*IsLog=*/false>,
               SoftmaxLowering<g::LogSoftmaxOp, /*IsLog=*/true>>(converter,
                                                                 ctx);
}

} // namespace kiln
