//===- Conv.cpp - Conv to linalg
//-------------------------------------------===//
//
// The input is padded with tensor.pad (auto_pad resolved at compile time)
// and the window slides without bounds checks. 2-D ungrouped Conv uses
// linalg.conv_2d_nchw_fchw; other ranks and groups use a linalg.generic
// over (n, g, m, out..., c, k...). Ungrouped ConvTranspose is a GEMM of the
// weight taps with the input pixels followed by col2im; grouped ones a
// convolution over the zero-inserted input (ConvTranspose.cpp). Conv's batch
// and image extents may be dynamic (explicit pads).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/ConvUtils.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace kiln::window;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// Whether a depthwise convolution with channel multiplier `m` (each input
/// channel read by m output channels), `taps` filter taps and `strideArea`
/// (sh * sw) runs faster as the depthwise kernel over its input channels
/// repeated m times than as a grouped convolution (an m-row product per
/// channel, K = taps). The copy writes m * strideArea floats an output pixel
/// of a channel against its taps' multiply-adds; it pays while that is 4/9
/// of them or less (Zen 5, one thread, ms grouped / repeated: 5x5 m = 2 at
/// 110x110 5.51 / 0.56, stride 2 at 56x56 0.066 / 0.051; 3x3 m = 2 at 56x56
/// 0.081 / 0.048, m = 4 0.112 / 0.089; m = 8 at 14x14 0.023 / 0.025; stride
/// 2 m = 2 at 57x57 0.035 / 0.039, m = 4 0.040 / 0.060).
bool repeatPays(int64_t m, int64_t taps, int64_t strideArea) {
  return m == 1 || 9 * m * strideArea <= 4 * taps;
}

/// Grouped convolution as a linalg.generic. `input` is the padded input as
/// [N, G, Cg, S...], `weight` is [G, Mg, Cg, K...], `init` the accumulator
/// as [N, G, Mg, O...].
Value groupedConv(OpBuilder &b, Location loc, Value input, Value weight,
                  Value init, const Window &w, ArrayRef<int64_t> strides) {
  MLIRContext *ctx = b.getContext();
  size_t n = w.rank();
  unsigned numLoops = 4 + 2 * n;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr bN = d(0), bG = d(1), bM = d(2), bC = d(3 + n);
  SmallVector<AffineExpr> inE = {bN, bG, bC}, wE = {bG, bM, bC},
                          outE = {bN, bG, bM};
  for (size_t i = 0; i < n; ++i) {
    AffineExpr o = d(3 + i), k = d(4 + n + i);
    inE.push_back(o * strides[i] + k * w.dilations[i]);
    wE.push_back(k);
    outE.push_back(o);
  }
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inE, ctx),
                                 AffineMap::get(numLoops, 0, wE, ctx),
                                 AffineMap::get(numLoops, 0, outE, ctx)};
  IteratorTypes iters(3 + n, utils::IteratorType::parallel);
  iters.append(1 + n, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{input, weight},
             ValueRange{init}, maps, iters,
             [](OpBuilder &nb, Location nl, ValueRange a) {
               Value mul = arith::MulFOp::create(nb, nl, a[0], a[1]);
               linalg::YieldOp::create(
                   nb, nl,
                   arith::AddFOp::create(nb, nl, a[2], mul).getResult());
             })
      .getResult(0);
}

} // namespace

namespace conv {

/// `v` with dim `d` split into [groups, size / groups].
Value splitDim(OpBuilder &b, Location loc, Value v, int64_t d, int64_t groups) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  shape[d] /= groups;
  shape.insert(shape.begin() + d, groups);
  SmallVector<ReassociationIndices> re;
  for (int64_t i = 0; i < t.getRank(); ++i)
    re.push_back(i < d    ? ReassociationIndices{i}
                 : i == d ? ReassociationIndices{i, i + 1}
                          : ReassociationIndices{i + 1});
  return tensor::ExpandShapeOp::create(b, loc, t.clone(shape), v, re);
}

/// Inverse of splitDim.
Value mergeDims(OpBuilder &b, Location loc, Value v, int64_t d) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> re;
  for (int64_t i = 0; i < t.getRank() - 1; ++i)
    re.push_back(i < d    ? ReassociationIndices{i}
                 : i == d ? ReassociationIndices{i, i + 1}
                          : ReassociationIndices{i + 1});
  return tensor::CollapseShapeOp::create(b, loc, v, re);
}

/// Convolution of the padded `input` [N, C, S...] with `weight`
/// [M, C / group, K...] accumulating into `init` [N, M, O...]: an upstream
/// named op where one fits, else the grouped generic.
Value emitConv(OpBuilder &b, Location loc, Value input, Value weight,
               Value init, const Window &w, ArrayRef<int64_t> strides,
               int64_t group) {
  auto stridesAttr = b.getI64TensorAttr(strides);
  auto dilationsAttr = b.getI64TensorAttr(w.dilations);
  auto named = [&](auto tag, Value in, Value wt, Value acc) {
    using OpTy = decltype(tag);
    return OpTy::create(b, loc, TypeRange{acc.getType()}, ValueRange{in, wt},
                        ValueRange{acc}, stridesAttr, dilationsAttr)
        .getResult(0);
  };
  auto wt = cast<RankedTensorType>(weight.getType());
  int64_t channels = cast<RankedTensorType>(input.getType()).getDimSize(1);
  if (group == 1 && w.rank() == 1)
    return named(linalg::Conv1DNcwFcwOp(), input, weight, init);
  if (group == 1 && w.rank() == 2)
    return named(linalg::Conv2DNchwFchwOp(), input, weight, init);
  if (group == 1 && w.rank() == 3)
    return named(linalg::Conv3DNcdhwFcdhwOp(), input, weight, init);
  int64_t outChannels = wt.getDimSize(0);
  if (w.rank() == 2 && group == channels && !ShapedType::isDynamic(channels) &&
      outChannels % channels == 0 &&
      repeatPays(outChannels / channels, wt.getDimSize(2) * wt.getDimSize(3),
                 strides[0] * strides[1])) {
    // Depthwise: drop the unit input-channel dim of the weight. With a
    // channel multiplier m (output channel f reads input channel f / m),
    // each input channel is repeated m times first, so the depthwise kernel
    // runs it.
    Value w3 = tensor::CollapseShapeOp::create(
        b, loc, weight, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    Value in = input;
    if (int64_t m = outChannels / channels; m > 1) {
      auto it = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
      sizes.insert(sizes.begin() + 2, b.getIndexAttr(m));
      Value empty = tensor::EmptyOp::create(b, loc, sizes, it.getElementType());
      Value repeated =
          linalg::BroadcastOp::create(b, loc, input, empty, {2}).getResult()[0];
      in = tensor::CollapseShapeOp::create(
          b, loc, repeated,
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    }
    return named(linalg::DepthwiseConv2DNchwChwOp(), in, w3, init);
  }
  Value in = splitDim(b, loc, input, 1, group);
  Value wg = splitDim(b, loc, weight, 0, group);
  Value acc = splitDim(b, loc, init, 1, group);
  Value conv = w.rank() == 2 ? named(linalg::Conv2DNgchwGfchwOp(), in, wg, acc)
                             : groupedConv(b, loc, in, wg, acc, w, strides);
  return mergeDims(b, loc, conv, 1);
}

/// The accumulator of a convolution: the bias broadcast over [N, M, O...],
/// or zeros.
Value convInit(OpBuilder &b, Location loc, RankedTensorType type, Value x,
               Value bias, const Window *win) {
  Value empty = win ? emptyWindowResult(b, loc, type, x, *win)
                    : emptyWithBatch(b, loc, type, x);
  if (isAbsent(bias))
    return fillTensor(b, loc, empty,
                      createScalarConstant(b, loc, type.getElementType(), 0.0));
  SmallVector<int64_t> dims = {0};
  for (int64_t i = 2; i < type.getRank(); ++i)
    dims.push_back(i);
  return linalg::BroadcastOp::create(b, loc, bias, empty, dims).getResult()[0];
}

/// Common checks of Conv/ConvTranspose operands; `dynamicSpatial`: the
/// image extents may be dynamic too (Conv, whose output extents follow from
/// the input's at run time).
LogicalResult checkConvTypes(RankedTensorType x, RankedTensorType w,
                             RankedTensorType y, bool dynamicSpatial) {
  auto ok = [&](RankedTensorType t) {
    return dynamicSpatial ? staticChannels(t) : staticButBatch(t);
  };
  return success(x && w && y &&
                 isa<FloatType, IntegerType>(x.getElementType()) && ok(x) &&
                 ok(y) && w.hasStaticShape());
}

} // namespace conv

namespace {
using namespace conv;

/// The activation of a FusedConv; nothing for a plain Conv.
Value applyConvEpilogue(OpBuilder &, Location, g::ConvOp, Value y) { return y; }
Value applyConvEpilogue(OpBuilder &b, Location loc, g::FusedConvOp op,
                        Value y) {
  return applyEpilogue(b, loc, y, Value(),
                       *g::parseActivation(op.getActivation()),
                       op.getActivationParams());
}

/// Conv, and FusedConv as Conv plus its activation.
template <typename OpT> struct ConvLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), w = adaptor.getW();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    // Channels computed at run time (a Reshape before the Conv) are the
    // weight's.
    if (xt && wt && xt.getRank() >= 2 && wt.hasStaticShape()) {
      SmallVector<int64_t> known(xt.getRank(), ShapedType::kDynamic);
      known[1] = wt.getDimSize(1) * op.getGroup();
      x = refineDims(rewriter, loc, x, known);
      xt = cast<RankedTensorType>(x.getType());
    }
    if (failed(checkConvTypes(xt, wt, yt, /*dynamicSpatial=*/true)))
      return rewriter.notifyMatchFailure(
          op, "needs float operands, a static weight and static channels");
    auto win = getWindow(xt, wt.getShape().drop_front(2), op.getAutoPad(),
                         op.getStrides(), op.getDilations(), op.getPads());
    if (failed(win))
      return rewriter.notifyMatchFailure(op, "invalid window attributes");
    Value zero = createScalarConstant(rewriter, loc, xt.getElementType(), 0.0);
    Value padded = padSpatial(rewriter, loc, x, win->lo, win->hi, zero);
    Value init = convInit(rewriter, loc, yt, x, adaptor.getB(), &*win);
    Value y = emitConv(rewriter, loc, padded, w, init, *win, win->strides,
                       op.getGroup());
    rewriter.replaceOp(op, applyConvEpilogue(rewriter, loc, op, y));
    return success();
  }
};

} // namespace

void populateConvPoolLoweringPatterns(GraphTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<ConvLowering<g::ConvOp>, ConvLowering<g::FusedConvOp>>(
      converter, patterns.getContext());
  populateConvTransposeLoweringPatterns(converter, patterns);
  populatePoolingLoweringPatterns(converter, patterns);
}

} // namespace kiln
