//===- Pooling.cpp - MaxPool, AveragePool, GlobalAveragePool to linalg ----===//
//
// The input is padded (with the identity of the reduction; ceil_mode as
// extra end padding) and reduced over windows: 2-D float pooling uses
// linalg.pooling_nchw_max/sum, other ranks and integers a linalg.generic.
// AveragePool divides by a compile-time divisor tensor, since spatial dims
// are static. Only the batch dim may be dynamic.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace kiln::window;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// Reduces windows of `padded` ([N, C, S...]) into `init` ([N, C, O...]).
/// `named` builds the upstream 2-D op when one fits; otherwise a generic
/// with `combine` as the body.
template <typename NamedOp>
Value poolWindows(
    OpBuilder &b, Location loc, Value padded, Value init, const Window &w,
    bool useNamed,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(init.getType());
  size_t n = w.rank();
  if (useNamed && n == 2) {
    Value window =
        tensor::EmptyOp::create(b, loc, w.kernel, type.getElementType());
    return NamedOp::create(b, loc, TypeRange{type}, ValueRange{padded, window},
                           ValueRange{init}, b.getI64TensorAttr(w.strides),
                           b.getI64TensorAttr(w.dilations))
        .getResult(0);
  }
  MLIRContext *ctx = b.getContext();
  unsigned numLoops = 2 + 2 * n;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> inE = {d(0), d(1)}, outE = {d(0), d(1)};
  for (size_t i = 0; i < n; ++i) {
    inE.push_back(d(2 + i) * w.strides[i] + d(2 + n + i) * w.dilations[i]);
    outE.push_back(d(2 + i));
  }
  // The window operand only gives the reduction loops their extents.
  SmallVector<AffineExpr> winE;
  for (size_t i = 0; i < n; ++i)
    winE.push_back(d(2 + n + i));
  Value window = tensor::EmptyOp::create(b, loc, w.kernel, b.getI1Type());
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inE, ctx),
                                 AffineMap::get(numLoops, 0, winE, ctx),
                                 AffineMap::get(numLoops, 0, outE, ctx)};
  IteratorTypes iters(2 + n, utils::IteratorType::parallel);
  iters.append(n, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{padded, window}, ValueRange{init}, maps,
             iters,
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               linalg::YieldOp::create(nb, nl, combine(nb, nl, a[2], a[0]));
             })
      .getResult(0);
}

/// Shared matching of MaxPool/AveragePool: the window with end padding
/// grown for ceil_mode, or failure.
/// Dynamic image extents (the output's then computed at run time) are
/// taken without ceil_mode, whose last window may need end padding that
/// depends on them.
template <typename Op>
FailureOr<Window> matchPool(Op op, Value x, RankedTensorType yt,
                            ConversionPatternRewriter &rewriter) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || !yt || !staticChannels(xt) || !staticChannels(yt))
    return rewriter.notifyMatchFailure(op, "needs static channels");
  bool dynamicSpatial = !staticButBatch(xt) || !staticButBatch(yt);
  if (dynamicSpatial && op.getCeilMode() != 0)
    return rewriter.notifyMatchFailure(op,
                                       "ceil_mode needs static image extents");
  return getWindow(xt, op.getKernelShape(), op.getAutoPad(), op.getStrides(),
                   op.getDilations(), op.getPads());
}

/// Grows the end padding for ceil_mode windows (static extents only; with
/// dynamic ones matchPool refused ceil_mode, and no window runs past).
void padForStaticOutput(Window &w, RankedTensorType xt, RankedTensorType yt) {
  if (staticButBatch(xt) && staticButBatch(yt))
    padForOutput(w, xt.getShape().drop_front(2), yt.getShape().drop_front(2));
}

struct MaxPoolLowering : OpConversionPattern<g::MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    auto win = matchPool(op, x, yt, rewriter);
    if (failed(win))
      return failure();
    auto xt = cast<RankedTensorType>(x.getType());
    padForStaticOutput(*win, xt, yt);
    Type elt = xt.getElementType();
    bool isFloat = isa<FloatType>(elt);
    bool isUnsigned =
        getElementTypeOrSelf(op.getX().getType()).isUnsignedInteger();
    // The identity of max pads the input and seeds the accumulator.
    Value lowest = createLowestValue(rewriter, loc, elt, isUnsigned);
    Value padded = padSpatial(rewriter, loc, x, win->lo, win->hi, lowest);
    Value init = fillTensor(
        rewriter, loc, emptyWindowResult(rewriter, loc, yt, x, *win), lowest);
    Value result = poolWindows<linalg::PoolingNchwMaxOp>(
        rewriter, loc, padded, init, *win, isFloat,
        [&](OpBuilder &b, Location l, Value acc, Value v) -> Value {
          if (isFloat)
            return arith::MaximumFOp::create(b, l, acc, v);
          if (isUnsigned)
            return arith::MaxUIOp::create(b, l, acc, v);
          return arith::MaxSIOp::create(b, l, acc, v);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Elements of the window starting at `start` (stride `d`, `k` taps) that
/// fall in [first, last).
int64_t countInRange(int64_t start, int64_t k, int64_t d, int64_t first,
                     int64_t last) {
  int64_t c = 0;
  for (int64_t j = 0; j < k; ++j)
    c += start + j * d >= first && start + j * d < last;
  return c;
}

/// AveragePool's divisor per output position: the window taps inside the
/// input, or inside the explicitly padded input with count_include_pad (of
/// the window before padForOutput). Windows are separable, so it is a
/// product of per-dim counts.
Value staticDivisors(OpBuilder &b, Location loc, FloatType ft, const Window &w,
                     ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                     bool includePad) {
  size_t n = w.rank();
  SmallVector<SmallVector<int64_t>> counts(n);
  for (size_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < out[i]; ++o) {
      int64_t start = o * w.strides[i] - w.lo[i];
      int64_t first = includePad ? -w.lo[i] : 0;
      int64_t last = includePad ? in[i] + w.hi[i] : in[i];
      counts[i].push_back(
          countInRange(start, w.kernel[i], w.dilations[i], first, last));
    }
  int64_t total = 1;
  for (int64_t e : out)
    total *= e;
  SmallVector<APFloat> divisors;
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t c = 1, rest = flat;
    for (size_t i = n; i-- > 0;) {
      c *= counts[i][rest % out[i]];
      rest /= out[i];
    }
    APFloat v(double(std::max<int64_t>(c, 1)));
    bool lost;
    v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    divisors.push_back(v);
  }
  auto divType = RankedTensorType::get(out, ft);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(divType, divisors));
}

struct AveragePoolLowering : OpConversionPattern<g::AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::AveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    auto win = matchPool(op, x, yt, rewriter);
    if (failed(win))
      return failure();
    auto xt = cast<RankedTensorType>(x.getType());
    auto ft = dyn_cast<FloatType>(xt.getElementType());
    if (!ft)
      return rewriter.notifyMatchFailure(op, "needs a float input");
    ArrayRef<int64_t> in = xt.getShape().drop_front(2);
    ArrayRef<int64_t> out = yt.getShape().drop_front(2);
    bool includePad = op.getCountIncludePad() != 0;
    bool dynamicSpatial = !staticButBatch(xt) || !staticButBatch(yt);
    bool hasPads = llvm::any_of(win->lo, [](int64_t v) { return v != 0; }) ||
                   llvm::any_of(win->hi, [](int64_t v) { return v != 0; });
    // With dynamic extents every window lies inside the (padded) input: one
    // divisor, the window size, where the padding counts or there is none.
    if (dynamicSpatial && hasPads && !includePad)
      return rewriter.notifyMatchFailure(
          op, "padding without count_include_pad needs static image extents");
    Value div;
    if (dynamicSpatial) {
      int64_t size = 1;
      for (int64_t k : win->kernel)
        size *= k;
      div = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, ft),
                                 rewriter.getFloatAttr(ft, double(size))));
    } else {
      div = staticDivisors(rewriter, loc, ft, *win, in, out, includePad);
      padForOutput(*win, in, out);
    }
    Value zero = createScalarConstant(rewriter, loc, ft, 0.0);
    Value padded = padSpatial(rewriter, loc, x, win->lo, win->hi, zero);
    Value empty = emptyWindowResult(rewriter, loc, yt, x, *win);
    Value sum = poolWindows<linalg::PoolingNchwSumOp>(
        rewriter, loc, padded, fillTensor(rewriter, loc, empty, zero), *win,
        true, [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
          return arith::AddFOp::create(b, l, acc, v);
        });
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = yt.getRank();
    SmallVector<AffineExpr> divE; // one divisor per position, or one
    for (int64_t i = 2; i < rank && !dynamicSpatial; ++i)
      divE.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, divE, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, yt, ValueRange{sum, div}, ValueRange{empty}, maps,
            IteratorTypes(rank, utils::IteratorType::parallel),
            [](OpBuilder &b, Location l, ValueRange a) {
              linalg::YieldOp::create(
                  b, l, arith::DivFOp::create(b, l, a[0], a[1]).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Mean over all spatial dims, keeping them as unit dims.
/// Reduces the spatial dims of x [N, C, S...] into [N, C], starting from
/// `init` and combining with max (`isMax`) or add.
Value reduceSpatial(OpBuilder &b, Location loc, Value x, Value init,
                    bool isMax) {
  auto xt = cast<RankedTensorType>(x.getType());
  // The spatial dims as one: a row of H * W contiguous elements reduces in
  // vectors, where rows of W (7 at the end of a classifier) stayed scalar
  // loops (EfficientNet-B0's final 1280 x 7 x 7 mean took 252 us).
  if (xt.getRank() > 3) {
    SmallVector<ReassociationIndices> groups{{0}, {1}, {}};
    for (int64_t i = 2; i < xt.getRank(); ++i)
      groups[2].push_back(i);
    x = tensor::CollapseShapeOp::create(b, loc, x, groups);
    xt = cast<RankedTensorType>(x.getType());
  }
  MLIRContext *ctx = b.getContext();
  Type elt = xt.getElementType();
  int64_t rank = xt.getRank();
  auto type = RankedTensorType::get(xt.getShape().take_front(2), elt);
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < 2; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, x, i));
  Value acc = fillTensor(
      b, loc, tensor::EmptyOp::create(b, loc, type.getShape(), elt, dyn), init);
  AffineMap nc = AffineMap::get(
      rank, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx);
  IteratorTypes iters(2, utils::IteratorType::parallel);
  iters.append(rank - 2, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{x}, ValueRange{acc},
             SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank), nc}, iters,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value r =
                   isMax ? Value(arith::MaximumFOp::create(nb, l, a[1], a[0]))
                         : Value(arith::AddFOp::create(nb, l, a[1], a[0]));
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

struct GlobalAveragePoolLowering : OpConversionPattern<g::GlobalAveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::GlobalAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!xt || !yt || !isa<FloatType>(xt.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a ranked float input");
    MLIRContext *ctx = rewriter.getContext();
    Type elt = xt.getElementType();
    int64_t rank = xt.getRank();

    // Sum into [N, C].
    Value sum = reduceSpatial(rewriter, loc, x,
                              createScalarConstant(rewriter, loc, elt, 0.0),
                              /*isMax=*/false);
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < 2; ++i)
      if (xt.isDynamicDim(i))
        dyn.push_back(tensor::DimOp::create(rewriter, loc, x, i));
    AffineMap nc = AffineMap::get(
        rank, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx);

    // Element count, at run time when a spatial dim is dynamic.
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t i = 2; i < rank; ++i)
      count = arith::MulIOp::create(rewriter, loc, count,
                                    tensor::DimOp::create(rewriter, loc, x, i));
    count =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), count);
    count = arith::SIToFPOp::create(rewriter, loc, elt, count);

    Value empty =
        tensor::EmptyOp::create(rewriter, loc, yt.getShape(), elt, dyn);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, yt, ValueRange{sum}, ValueRange{empty},
            SmallVector<AffineMap>{nc, rewriter.getMultiDimIdentityMap(rank)},
            IteratorTypes(rank, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange a) {
              linalg::YieldOp::create(
                  b, l, arith::DivFOp::create(b, l, a[0], count).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The maximum over the spatial dims into [N, C], then [N, C, 1, ...].
struct GlobalMaxPoolLowering : OpConversionPattern<g::GlobalMaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::GlobalMaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!xt || !yt || xt.getRank() < 3 || !isa<FloatType>(xt.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a ranked float input");
    auto elt = cast<FloatType>(xt.getElementType());
    int64_t rank = xt.getRank();
    Value lowest = createLowestValue(rewriter, loc, elt, /*isUnsigned=*/false);
    Value max = reduceSpatial(rewriter, loc, x, lowest, /*isMax=*/true);
    SmallVector<ReassociationIndices> groups{{0}, {}};
    for (int64_t i = 1; i < rank; ++i)
      groups[1].push_back(i);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, yt, max, groups);
    return success();
  }
};

} // namespace

void populatePoolingLoweringPatterns(GraphTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<MaxPoolLowering, AveragePoolLowering, GlobalAveragePoolLowering,
               GlobalMaxPoolLowering>(converter, patterns.getContext());
}

} // namespace kiln
