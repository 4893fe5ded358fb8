//===- Reduction.cpp - Reductions and softmax to linalg -------------------===//
//
// ReduceSum/Mean/Max become a linalg.reduce over the reduced dims (plus a
// division for the mean) and a tensor.expand_shape for keepdims. Softmax and
// LogSoftmax are the numerically stable three-step form: a max-reduce, a
// sum of exp(x - max), and an elementwise normalization (along the
// innermost dim, Softmax stores the exponentials first and scales them in
// place).
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

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

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

/// The highest value of `elt`: +inf for floats, the maximum integer
/// otherwise.
Value createHighest(OpBuilder &b, Location loc, Type elt, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(elt))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics())));
  unsigned w = elt.getIntOrFloatBitWidth();
  APInt v = isUnsigned ? APInt::getMaxValue(w) : APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elt, v));
}

Value createMax(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value createMin(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

/// The value a reduction of `kind` starts from.
Value createNeutral(OpBuilder &b, Location loc, Type elt, ReduceKind kind,
                    bool isUnsigned) {
  switch (kind) {
  case ReduceKind::Max:
    return createLowest(b, loc, elt, isUnsigned);
  case ReduceKind::Min:
    return createHighest(b, loc, elt, isUnsigned);
  case ReduceKind::Prod:
    return createScalarConstant(b, loc, elt, 1.0);
  default:
    return createScalarConstant(b, loc, elt, 0.0);
  }
}

/// `acc (+) f(x)` for one element of a reduction of `kind`: f squares for
/// L2 and SumSquare and takes |x| for L1; the rest combine x itself.
Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value acc,
              bool isUnsigned) {
  bool isFloat = isa<FloatType>(x.getType());
  auto add = [&](Value l, Value r) -> Value {
    return isFloat ? Value(arith::AddFOp::create(b, loc, l, r))
                   : Value(arith::AddIOp::create(b, loc, l, r));
  };
  auto mul = [&](Value l, Value r) -> Value {
    return isFloat ? Value(arith::MulFOp::create(b, loc, l, r))
                   : Value(arith::MulIOp::create(b, loc, l, r));
  };
  switch (kind) {
  case ReduceKind::Max:
    return createMax(b, loc, x, acc, isUnsigned);
  case ReduceKind::Min:
    return createMin(b, loc, x, acc, isUnsigned);
  case ReduceKind::Prod:
    return mul(x, acc);
  case ReduceKind::L1:
    if (isUnsigned)
      return add(x, acc);
    return add(isFloat ? Value(math::AbsFOp::create(b, loc, x))
                       : Value(math::AbsIOp::create(b, loc, x)),
               acc);
  case ReduceKind::L2:
  case ReduceKind::SumSquare:
    return add(mul(x, x), acc);
  default:
    return add(x, acc);
  }
}

/// Reduces `input` over `dims` (sorted) as `kind` combines elements (see
/// `combine`), starting from its neutral value. The result drops the
/// reduced dims.
Value createReduceOf(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> dims, ReduceKind kind, bool isUnsigned) {
  auto type = cast<RankedTensorType>(input.getType());
  Type elt = type.getElementType();
  Value init = createNeutral(b, loc, elt, kind, isUnsigned);
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!llvm::is_contained(dims, i))
      kept.push_back(i);
  Value acc = createFilled(b, loc, input, kept, init);
  auto reduce = linalg::ReduceOp::create(
      b, loc, input, acc, dims,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(
            nb, nloc, combine(nb, nloc, kind, args[0], args[1], isUnsigned));
      });
  return reduce.getResult(0);
}

/// Reduces `input` over `dims` (sorted) with max or add.
Value createReduce(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> dims, bool isMax, bool isUnsigned) {
  return createReduceOf(b, loc, input, dims,
                        isMax ? ReduceKind::Max : ReduceKind::Sum, isUnsigned);
}

/// An elementwise generic over same-shaped `inputs` (the first gives the
/// extents) computing `body` of their elements.
Value mapElementwise(
    OpBuilder &b, Location loc, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto type = cast<RankedTensorType>(inputs[0].getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value init =
      createEmptyFromDims(b, loc, inputs[0], all, type.getElementType());
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, inputs, init, maps, iters,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       body(nb, nloc, args.drop_back()));
             })
      .getResult(0);
}

/// log(sum(exp(x))) over `dims`, as m + log(sum(exp(x - m))) with m the
/// maximum, so that large inputs do not overflow.
Value createLogSumExp(OpBuilder &b, Location loc, Value input,
                      ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Type elt = type.getElementType();
  Value max = createReduce(b, loc, input, dims, /*isMax=*/true, false);
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(dims, i))
      kept.push_back(i);
  Value acc =
      createFilled(b, loc, input, kept, createScalarConstant(b, loc, elt, 0));
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap keptMap = getMapWithout(b.getContext(), rank, dims);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  for (int64_t d : dims)
    iters[d] = utils::IteratorType::reduction;
  Value sum =
      linalg::GenericOp::create(
          b, loc, acc.getType(), ValueRange{input, max}, acc,
          ArrayRef<AffineMap>{id, keptMap, keptMap}, iters,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            // A row of -inf has max -inf: shift by 0 instead of NaN.
            Value finite =
                arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ONE, a[1],
                                      createLowest(nb, l, elt, false));
            Value shift = arith::SelectOp::create(
                nb, l, finite, a[1], createScalarConstant(nb, l, elt, 0));
            Value e = math::ExpOp::create(
                nb, l, arith::SubFOp::create(nb, l, a[0], shift));
            linalg::YieldOp::create(
                nb, l, arith::AddFOp::create(nb, l, a[2], e).getResult());
          })
          .getResult(0);
  return mapElementwise(
      b, loc, {sum, max}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value finite =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ONE, a[1],
                                  createLowest(nb, l, elt, false));
        Value shift = arith::SelectOp::create(
            nb, l, finite, a[1], createScalarConstant(nb, l, elt, 0));
        return arith::AddFOp::create(nb, l, math::LogOp::create(nb, l, a[0]),
                                     shift)
            .getResult();
      });
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

/// Reinserts the reduced dims as unit dims: each one joins the group of
/// the next kept dim (or of the last kept dim when trailing).
Value expandReducedDims(OpBuilder &b, Location loc, Value v,
                        RankedTensorType inType, ArrayRef<bool> reduced) {
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
    if (Kind != ReduceKind::Max && Kind != ReduceKind::Min &&
        origElt.isInteger(1))
      return rewriter.notifyMatchFailure(op, "bool sum/mean");
    bool needsFloat = Kind == ReduceKind::L2 || Kind == ReduceKind::LogSum ||
                      Kind == ReduceKind::LogSumExp;
    if (needsFloat && !isa<FloatType>(elt))
      return rewriter.notifyMatchFailure(op, "needs a float input");

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
      if (Kind == ReduceKind::LogSumExp)
        result = createLogSumExp(rewriter, loc, input, dims);
      else
        result = createReduceOf(rewriter, loc, input, dims, Kind, isUnsigned);
      if (Kind == ReduceKind::Mean)
        result = divideByCount(rewriter, loc, result, input, dims, isUnsigned);
      if (Kind == ReduceKind::L2 || Kind == ReduceKind::LogSum)
        result = mapElementwise(
            rewriter, loc, result,
            [&](OpBuilder &b, Location l, ValueRange a) -> Value {
              if (Kind == ReduceKind::L2)
                return math::SqrtOp::create(b, l, a[0]);
              return math::LogOp::create(b, l, a[0]);
            });
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
};

/// The int64 index of the first (or, with select_last_index, the last)
/// maximum or minimum along `axis`, as one generic reducing value and
/// index together. The result drops `axis`.
Value createArgReduce(OpBuilder &b, Location loc, Value x, int64_t axis,
                      bool isMax, bool last, bool isUnsigned) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Type elt = type.getElementType();
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      kept.push_back(i);
  Value val = createFilled(b, loc, x, kept,
                           isMax ? createLowest(b, loc, elt, isUnsigned)
                                 : createHighest(b, loc, elt, isUnsigned));
  Value idx = createFilled(b, loc, x, kept,
                           createScalarConstant(b, loc, b.getI64Type(), 0));
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap keptMap = getMapWithout(b.getContext(), rank, {axis});
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[axis] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{val.getType(), idx.getType()}, ValueRange{x},
      ValueRange{val, idx}, ArrayRef<AffineMap>{id, keptMap, keptMap}, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value i = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axis));
        Value better;
        if (isa<FloatType>(elt)) {
          using P = arith::CmpFPredicate;
          P p = isMax ? (last ? P::OGE : P::OGT) : (last ? P::OLE : P::OLT);
          better = arith::CmpFOp::create(nb, l, p, a[0], a[1]);
        } else {
          using P = arith::CmpIPredicate;
          P p = isMax ? (last ? (isUnsigned ? P::uge : P::sge)
                              : (isUnsigned ? P::ugt : P::sgt))
                      : (last ? (isUnsigned ? P::ule : P::sle)
                              : (isUnsigned ? P::ult : P::slt));
          better = arith::CmpIOp::create(nb, l, p, a[0], a[1]);
        }
        // The first element always counts, so that an axis of -inf (or
        // the integer minimum) still yields index 0.
        Value first = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::eq, i,
            createScalarConstant(nb, l, nb.getI64Type(), 0));
        better = arith::OrIOp::create(nb, l, better, first);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, better, a[0], a[1]),
                       arith::SelectOp::create(nb, l, better, i, a[2])});
      });
  return generic.getResult(1);
}

template <typename Op, bool IsMax>
struct ArgReduceLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(x.getType());
    auto outType = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!inType || !outType || inType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    if (!isa<FloatType, IntegerType>(inType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto axis = g::normalizeAxis(std::nullopt, op.getAxis(), inType.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Type origElt = getElementTypeOrSelf(op.getData().getType());
    Location loc = op.getLoc();
    Value result = createArgReduce(
        rewriter, loc, x, *axis, IsMax, op.getSelectLastIndex() != 0,
        origElt.isUnsignedInteger() || origElt.isInteger(1));
    if (op.getKeepdims() != 0) {
      SmallVector<bool> reduced(inType.getRank(), false);
      reduced[*axis] = true;
      result = expandReducedDims(
          rewriter, loc, result,
          RankedTensorType::get(inType.getShape(), rewriter.getI64Type()),
          reduced);
    }
    if (result.getType() != outType)
      result = tensor::CastOp::create(rewriter, loc, outType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// 1 where the element is the first maximum along the axis, else 0.
struct HardmaxLowering : OpConversionPattern<g::HardmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::HardmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs a ranked tensor");
    auto axis = g::normalizeAxis(std::nullopt, op.getAxis(), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    Value argmax = createArgReduce(rewriter, loc, x, *axis, /*isMax=*/true,
                                   /*last=*/false, /*isUnsigned=*/false);
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Type elt = type.getElementType();
    Value init = createEmptyFromDims(rewriter, loc, x, all, elt);
    AffineMap keptMap = getMapWithout(rewriter.getContext(), rank, {*axis});
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, ValueRange{argmax}, init,
            ArrayRef<AffineMap>{keptMap, rewriter.getMultiDimIdentityMap(rank)},
            iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value i = arith::IndexCastOp::create(
                  b, l, b.getI64Type(), linalg::IndexOp::create(b, l, *axis));
              Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                i, a[0]);
              linalg::YieldOp::create(
                  b, l,
                  arith::SelectOp::create(b, l, hit,
                                          createScalarConstant(b, l, elt, 1),
                                          createScalarConstant(b, l, elt, 0))
                      .getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
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
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    // Softmax along the innermost dim: exp(x - max) once, into the result,
    // which the sum reads and the scaling then updates in place. Row by row
    // (kiln-cpu-fuse-row-chains) each row stays in L1 through the steps;
    // computing the exponentials again in the last step took a third of the
    // time.
    bool once = !IsLog && axis == rank - 1;
    Value exps;
    if (once) {
      iters[axis] = utils::IteratorType::parallel;
      exps = linalg::GenericOp::create(
                 rewriter, loc, type, ValueRange{x, max},
                 createEmptyFromDims(rewriter, loc, x, all, elt),
                 ArrayRef<AffineMap>{id, dropAxis, id}, iters,
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                   linalg::YieldOp::create(
                       b, l, math::ExpOp::create(b, l, d).getResult());
                 })
                 .getResult(0);
      iters[axis] = utils::IteratorType::reduction;
    }
    Value sum =
        once
            ? linalg::GenericOp::create(
                  rewriter, loc, acc.getType(), ValueRange{exps}, acc,
                  ArrayRef<AffineMap>{id, dropAxis}, iters,
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    linalg::YieldOp::create(
                        b, l,
                        arith::AddFOp::create(b, l, a[1], a[0]).getResult());
                  })
                  .getResult(0)
            : linalg::GenericOp::create(
                  rewriter, loc, acc.getType(), ValueRange{x, max}, acc,
                  ArrayRef<AffineMap>{id, dropAxis, dropAxis}, iters,
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                    Value e = math::ExpOp::create(b, l, d);
                    linalg::YieldOp::create(
                        b, l, arith::AddFOp::create(b, l, a[2], e).getResult());
                  })
                  .getResult(0);

    // Once a row: log(sum), or 1 / sum, which the elements then multiply
    // by (a division an element took a third of the last pass's time).
    AffineMap rowId = rewriter.getMultiDimIdentityMap(rank - 1);
    SmallVector<utils::IteratorType> rowIters(rank - 1,
                                              utils::IteratorType::parallel);
    Value perRow =
        linalg::GenericOp::create(
            rewriter, loc, acc.getType(), ValueRange{sum},
            createEmptyFromDims(rewriter, loc, x, kept, elt),
            ArrayRef<AffineMap>{rowId, rowId}, rowIters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value r;
              if (IsLog)
                r = math::LogOp::create(b, l, a[0]);
              else
                r = arith::DivFOp::create(
                    b, l, createScalarConstant(b, l, elt, 1.0), a[0]);
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);

    iters[axis] = utils::IteratorType::parallel;
    if (once) {
      Value scaled =
          linalg::GenericOp::create(
              rewriter, loc, type, ValueRange{perRow}, exps,
              ArrayRef<AffineMap>{dropAxis, id}, iters,
              [&](OpBuilder &b, Location l, ValueRange a) {
                linalg::YieldOp::create(
                    b, l, arith::MulFOp::create(b, l, a[1], a[0]).getResult());
              })
              .getResult(0);
      rewriter.replaceOp(op, scaled);
      return success();
    }
    Value init = createEmptyFromDims(rewriter, loc, x, all, elt);
    Value result = linalg::GenericOp::create(
                       rewriter, loc, type, ValueRange{x, max, perRow}, init,
                       ArrayRef<AffineMap>{id, dropAxis, dropAxis, id}, iters,
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                         Value r;
                         if (IsLog)
                           r = arith::SubFOp::create(b, l, d, a[2]);
                         else
                           r = arith::MulFOp::create(
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
               ReduceLowering<g::ReduceMinOp, ReduceKind::Min>,
               ReduceLowering<g::ReduceProdOp, ReduceKind::Prod>,
               ReduceLowering<g::ReduceL1Op, ReduceKind::L1>,
               ReduceLowering<g::ReduceL2Op, ReduceKind::L2>,
               ReduceLowering<g::ReduceLogSumOp, ReduceKind::LogSum>,
               ReduceLowering<g::ReduceLogSumExpOp, ReduceKind::LogSumExp>,
               ReduceLowering<g::ReduceSumSquareOp, ReduceKind::SumSquare>,
               ArgReduceLowering<g::ArgMaxOp, /*IsMax=*/true>,
               ArgReduceLowering<g::ArgMinOp, /*IsMax=*/false>, HardmaxLowering,
               SoftmaxLowering<g::SoftmaxOp, /*IsLog=*/false>,
               SoftmaxLowering<g::LogSoftmaxOp, /*IsLog=*/true>>(converter,
                                                                 ctx);
}

} // namespace kiln
