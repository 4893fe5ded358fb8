//===- Conv.cpp - Conv and ConvTranspose to linalg ------------------------===//
//
// The input is padded with tensor.pad (auto_pad resolved at compile time)
// and the window slides without bounds checks. 2-D ungrouped Conv uses
// linalg.conv_2d_nchw_fchw; other ranks, groups and ConvTranspose use a
// linalg.generic over (n, g, m, out..., c, k...). Only the batch dim may be
// dynamic.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln::window;
namespace g = kiln::graph;

namespace kiln {
namespace {

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

/// The ConvTranspose weight [G, Cg, Mg, K...] as a convolution weight
/// [G, Mg, Cg, K...], spatially flipped.
Value flipKernel(OpBuilder &b, Location loc, Value w) {
  auto t = cast<RankedTensorType>(w.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = t.getRank();
  SmallVector<int64_t> shape(t.getShape());
  std::swap(shape[1], shape[2]);
  SmallVector<AffineExpr> inE = {getAffineDimExpr(0, ctx),
                                 getAffineDimExpr(2, ctx),
                                 getAffineDimExpr(1, ctx)};
  for (int64_t i = 3; i < rank; ++i)
    inE.push_back((t.getDimSize(i) - 1) - getAffineDimExpr(i, ctx));
  auto type = t.clone(shape);
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, inE, ctx),
                                 b.getMultiDimIdentityMap(rank)};
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{w}, ValueRange{empty}, maps,
             IteratorTypes(rank, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nl, ValueRange a) {
               linalg::YieldOp::create(nb, nl, a[0]);
             })
      .getResult(0);
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
  if (w.rank() == 2 && group == channels && wt.getDimSize(0) == channels) {
    // Depthwise: drop the unit input-channel dim of the weight.
    Value w3 = tensor::CollapseShapeOp::create(
        b, loc, weight, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    return named(linalg::DepthwiseConv2DNchwChwOp(), input, w3, init);
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
               Value bias) {
  Value empty = emptyWithBatch(b, loc, type, x);
  if (isAbsent(bias))
    return fillTensor(b, loc, empty,
                      createScalarConstant(b, loc, type.getElementType(), 0.0));
  SmallVector<int64_t> dims = {0};
  for (int64_t i = 2; i < type.getRank(); ++i)
    dims.push_back(i);
  return linalg::BroadcastOp::create(b, loc, bias, empty, dims).getResult()[0];
}

/// Common checks of Conv/ConvTranspose operands.
LogicalResult checkConvTypes(RankedTensorType x, RankedTensorType w,
                             RankedTensorType y) {
  return success(x && w && y && isa<FloatType>(x.getElementType()) &&
                 staticButBatch(x) && staticButBatch(y) && w.hasStaticShape());
}

struct ConvLowering : OpConversionPattern<g::ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), w = adaptor.getW();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (failed(checkConvTypes(xt, wt, yt)))
      return rewriter.notifyMatchFailure(
          op, "needs float operands, a static weight and static non-batch "
              "dims");
    auto win = getWindow(xt, wt.getShape().drop_front(2), op.getAutoPad(),
                         op.getStrides(), op.getDilations(), op.getPads());
    if (failed(win))
      return rewriter.notifyMatchFailure(op, "invalid window attributes");
    Value zero = createScalarConstant(rewriter, loc, xt.getElementType(), 0.0);
    Value padded = padSpatial(rewriter, loc, x, win->lo, win->hi, zero);
    Value init = convInit(rewriter, loc, yt, x, adaptor.getB());
    rewriter.replaceOp(op, emitConv(rewriter, loc, padded, w, init, *win,
                                    win->strides, op.getGroup()));
    return success();
  }
};

/// ConvTranspose as a stride-1 convolution over the input with stride-1
/// zeros inserted between elements and padded by (K-1)*d - pad, using the
/// spatially flipped kernel with its channel dims swapped.
struct ConvTransposeLowering : OpConversionPattern<g::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), w = adaptor.getW();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (failed(checkConvTypes(xt, wt, yt)))
      return rewriter.notifyMatchFailure(
          op, "needs float operands, a static weight and static non-batch "
              "dims");
    size_t n = xt.getRank() - 2;
    Window win;
    win.kernel.assign(wt.getShape().begin() + 2, wt.getShape().end());
    win.strides = orOnes(op.getStrides(), n);
    win.dilations = orOnes(op.getDilations(), n);
    StringRef autoPad = op.getAutoPad();
    SmallVector<int64_t> outPad(n, 0);
    if (auto p = op.getOutputPadding())
      outPad.assign(p->begin(), p->end());

    // Begin padding of the output, from which the buffer offset follows.
    SmallVector<int64_t> begin(n, 0);
    for (size_t i = 0; i < n; ++i) {
      int64_t in = xt.getDimSize(i + 2), s = win.strides[i];
      int64_t full =
          s * (in - 1) + outPad[i] + (win.kernel[i] - 1) * win.dilations[i] + 1;
      if (op.getOutputShape() || autoPad == "SAME_UPPER" ||
          autoPad == "SAME_LOWER") {
        // Floor division: a negative total (output_shape beyond the full
        // extent) pads at the end, as in the ONNX reference.
        int64_t total = full - yt.getDimSize(i + 2);
        int64_t half = llvm::divideFloorSigned(total, 2);
        begin[i] = autoPad == "SAME_UPPER" ? half : total - half;
      } else if (autoPad == "NOTSET" && op.getPads()) {
        begin[i] = (*op.getPads())[i];
      }
    }

    // Buffer of extent O + (K-1)*d holding x[i] at lo + i*s, zeros elsewhere.
    Type elt = xt.getElementType();
    SmallVector<int64_t> bufShape(xt.getShape().take_front(2));
    SmallVector<OpFoldResult> srcOff(2, rewriter.getIndexAttr(0)), srcSize,
        dstOff = srcOff, dstStride;
    srcSize.push_back(tensor::getMixedSize(rewriter, loc, x, 0));
    srcSize.push_back(rewriter.getIndexAttr(xt.getDimSize(1)));
    dstStride.assign(2, rewriter.getIndexAttr(1));
    for (size_t i = 0; i < n; ++i) {
      int64_t in = xt.getDimSize(i + 2), s = win.strides[i];
      int64_t span = (win.kernel[i] - 1) * win.dilations[i];
      int64_t len = yt.getDimSize(i + 2) + span;
      int64_t lo = span - begin[i];
      int64_t i0 = lo < 0 ? (-lo + s - 1) / s : 0;
      int64_t i1 = std::min(in, (len - 1 - lo) / s + 1);
      if (len - 1 - lo < 0 || i1 <= i0)
        return rewriter.notifyMatchFailure(op, "output sees no input");
      bufShape.push_back(len);
      srcOff.push_back(rewriter.getIndexAttr(i0));
      srcSize.push_back(rewriter.getIndexAttr(i1 - i0));
      dstOff.push_back(rewriter.getIndexAttr(lo + i0 * s));
      dstStride.push_back(rewriter.getIndexAttr(s));
    }
    SmallVector<OpFoldResult> ones(xt.getRank(), rewriter.getIndexAttr(1));
    Value src =
        tensor::ExtractSliceOp::create(rewriter, loc, x, srcOff, srcSize, ones);
    Value zero = createScalarConstant(rewriter, loc, elt, 0.0);
    Value buf =
        fillTensor(rewriter, loc,
                   emptyWithBatch(rewriter, loc, xt.clone(bufShape), x), zero);
    buf = tensor::InsertSliceOp::create(rewriter, loc, src, buf, dstOff,
                                        srcSize, dstStride);

    int64_t group = op.getGroup();
    Value init = convInit(rewriter, loc, yt, x, adaptor.getB());
    Value wf = mergeDims(
        rewriter, loc,
        flipKernel(rewriter, loc, splitDim(rewriter, loc, w, 0, group)), 0);
    rewriter.replaceOp(op, emitConv(rewriter, loc, buf, wf, init, win,
                                    SmallVector<int64_t>(n, 1), group));
    return success();
  }
};

} // namespace

void populateConvPoolLoweringPatterns(GraphTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<ConvLowering, ConvTransposeLowering>(converter,
                                                    patterns.getContext());
  populatePoolingLoweringPatterns(converter, patterns);
}

} // namespace kiln
