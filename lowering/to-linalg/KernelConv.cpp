//===- KernelConv.cpp - kiln_kernel channels-last window ops to linalg ----===//
//
// Channels-last convolutions map onto upstream named ops whose operands are
// already in the op's layout: linalg.conv_2d_nhwc_hwcf (which the CPU
// backend's im2col rewrite also handles) and
// linalg.depthwise_conv_2d_nhwc_hwc. The input is padded with tensor.pad;
// the bias, broadcast over [N, OH, OW], is the accumulator's initial value,
// and a fused activation is one elementwise op on the result. An input that
// is a DequantizeLinear of 8-bit values is padded (and, for a depthwise
// convolution with a constant filter, read) as 8-bit values. Channels-last
// max pooling maps onto linalg.pooling_nhwc_max.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "dialects/kernel/KernelOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/WindowUtils.h"

using namespace mlir;
using namespace kiln::window;
namespace k = kiln::kernel;

namespace kiln {
namespace {

/// `graphX` as a per-tensor DequantizeLinear of static 8-bit values to f32:
/// the converted 8-bit tensor, its scale and zero point (as read: 0..255
/// for u8).
struct TensorDequantize {
  Value q;
  RankedTensorType type;
  double scale;
  int64_t zeroPoint;
  bool isUnsigned;
};

std::optional<TensorDequantize>
matchTensorDequantize(ConversionPatternRewriter &rewriter, Value graphX) {
  auto dq = graphX.getDefiningOp<graph::DequantizeLinearOp>();
  if (!dq)
    return std::nullopt;
  std::optional<SmallVector<double>> scale =
      graph::getConstantFloats(dq.getXScale());
  std::optional<SmallVector<int64_t>> zero =
      graph::isNoValue(dq.getXZeroPoint())
          ? SmallVector<int64_t>{0}
          : graph::getConstantInts(dq.getXZeroPoint());
  Type qElt = getElementTypeOrSelf(dq.getX().getType());
  Value q = rewriter.getRemappedValue(dq.getX());
  auto qt = q ? dyn_cast<RankedTensorType>(q.getType()) : nullptr;
  if (!scale || scale->size() != 1 || !zero || zero->size() != 1 ||
      !qElt.isInteger(8) || !qt || !qt.hasStaticShape() ||
      !getElementTypeOrSelf(dq.getType()).isF32())
    return std::nullopt;
  bool isUnsigned = qElt.isUnsignedInteger();
  return TensorDequantize{q, qt, scale->front(),
                          isUnsigned ? (zero->front() & 0xff) : zero->front(),
                          isUnsigned};
}

/// The padded input when `graphX` is a per-tensor DequantizeLinear of
/// 8-bit values (a quantized model's depthwise convolution): the 8-bit
/// tensor is padded with its zero point, which dequantizes to the 0.0 of
/// the padding, and dequantized into the padded buffer, so that no float
/// copy is padded again. Null otherwise.
Value padDequantized(ConversionPatternRewriter &rewriter, Location loc,
                     Value graphX, ArrayRef<int64_t> pads) {
  std::optional<TensorDequantize> dq = matchTensorDequantize(rewriter, graphX);
  if (!dq || llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return {};
  Value q = dq->q;
  bool isUnsigned = dq->isUnsigned;
  int64_t zp = dq->zeroPoint;
  Value paddedQ = padNhwc(
      rewriter, loc, q, pads,
      createScalarConstant(rewriter, loc, rewriter.getI8Type(), (int8_t)zp));
  auto pt = cast<RankedTensorType>(paddedQ.getType());
  Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
  Value out = tensor::EmptyOp::create(rewriter, loc, pt.getShape(), f32);
  auto id = rewriter.getMultiDimIdentityMap(4);
  return linalg::GenericOp::create(
             rewriter, loc, out.getType(), paddedQ, out,
             ArrayRef<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [&](OpBuilder &b, Location l, ValueRange args) {
               Value v =
                   isUnsigned
                       ? arith::ExtUIOp::create(b, l, i32, args[0]).getResult()
                       : arith::ExtSIOp::create(b, l, i32, args[0]).getResult();
               v = arith::SubIOp::create(b, l, v,
                                         createScalarConstant(b, l, i32, zp));
               v = arith::SIToFPOp::create(b, l, f32, v);
               v = arith::MulFOp::create(
                   b, l, v, createScalarConstant(b, l, f32, dq->scale));
               linalg::YieldOp::create(b, l, v);
             })
      .getResult(0);
}

/// A depthwise convolution of a per-tensor DequantizeLinear of 8-bit values
/// with a constant filter reads the 8-bit values themselves: as i8 (a u8
/// input moves there by x ^ 0x80, its zero point by -128), padded with the
/// zero point, times filter * scale; the zero point's share, -zp * scale *
/// (sum of the taps), joins the bias (padded taps read the zero point and
/// add nothing). A quarter of the bytes per element read, and no
/// dequantized copy. The operands, or nullopt for other convolutions.
struct Int8DepthwiseOperands {
  Value input, filter, bias;
};

std::optional<Int8DepthwiseOperands>
getInt8DepthwiseOperands(ConversionPatternRewriter &rewriter, Location loc,
                         k::Conv2DNhwcOp op) {
  std::optional<ConstantData> w = getConstantData(op.getFilter());
  std::optional<ConstantData> b;
  if (op.getBias() && !(b = getConstantData(op.getBias())))
    return std::nullopt;
  if (!op.isDepthwise() || !w || !w->type.getElementType().isF32())
    return std::nullopt;
  std::optional<TensorDequantize> dq =
      matchTensorDequantize(rewriter, op.getInput());
  if (!dq)
    return std::nullopt;
  Value q = dq->q;
  RankedTensorType qt = dq->type;
  bool isUnsigned = dq->isUnsigned;
  // The zero point in the i8 domain.
  int64_t zp = isUnsigned ? dq->zeroPoint - 128 : dq->zeroPoint;
  double s = dq->scale;
  Type i8 = rewriter.getI8Type();
  if (isUnsigned) {
    Value out = tensor::EmptyOp::create(rewriter, loc, qt.getShape(), i8);
    auto id = rewriter.getMultiDimIdentityMap(4);
    q = linalg::GenericOp::create(
            rewriter, loc, out.getType(), q, out, ArrayRef<AffineMap>{id, id},
            SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  nb, l,
                  ValueRange{arith::XOrIOp::create(
                      nb, l, args[0], createScalarConstant(nb, l, i8, -128))});
            })
            .getResult(0);
  }
  q = padNhwc(rewriter, loc, q, op.getPads(),
              createScalarConstant(rewriter, loc, i8, zp));
  // [KH, KW, C] filter times the scale; bias - zp * scale * taps.
  int64_t c = w->type.getDimSize(2);
  std::vector<double> scaled(w->getNumElements()), bias(c, 0.0);
  for (int64_t i = 0; i < w->getNumElements(); ++i) {
    scaled[i] = w->getDouble(i) * s;
    bias[i % c] -= zp * scaled[i];
  }
  if (b)
    for (int64_t j = 0; j < c; ++j)
      bias[j] += b->getDouble(j);
  auto f32 = rewriter.getF32Type();
  Value filter = arith::ConstantOp::create(
      rewriter, loc,
      cast<TypedAttr>(createFloatConstantAttr(
          RankedTensorType::get(w->type.getShape(), f32), scaled, "dw_q")));
  Value biasValue = arith::ConstantOp::create(
      rewriter, loc,
      cast<TypedAttr>(createFloatConstantAttr(RankedTensorType::get({c}, f32),
                                              bias, "dw_q_bias")));
  return Int8DepthwiseOperands{q, filter, biasValue};
}

struct Conv2DNhwcLowering : OpConversionPattern<k::Conv2DNhwcOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(k::Conv2DNhwcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), w = adaptor.getFilter();
    auto xt = cast<RankedTensorType>(x.getType());
    auto yt = cast<RankedTensorType>(op.getType());
    if (!isa<FloatType>(xt.getElementType()) || !staticButBatch(xt) ||
        !staticButBatch(yt) ||
        !cast<RankedTensorType>(w.getType()).hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "needs float operands, a static filter and static non-batch "
              "dims");

    Value padded, bias = adaptor.getBias();
    if (std::optional<Int8DepthwiseOperands> q =
            getInt8DepthwiseOperands(rewriter, loc, op)) {
      padded = q->input;
      w = q->filter;
      bias = q->bias;
    } else {
      padded = padDequantized(rewriter, loc, op.getInput(), op.getPads());
    }
    if (!padded)
      padded = padNhwc(rewriter, loc, x, op.getPads());
    Value empty = emptyWithBatch(rewriter, loc, yt, x);
    Value init;
    if (bias)
      init = linalg::BroadcastOp::create(rewriter, loc, bias, empty,
                                         ArrayRef<int64_t>{0, 1, 2})
                 .getResult()[0];
    else
      init = fillTensor(
          rewriter, loc, empty,
          createScalarConstant(rewriter, loc, yt.getElementType(), 0.0));

    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    Value result;
    if (op.isDepthwise())
      result = linalg::DepthwiseConv2DNhwcHwcOp::create(
                   rewriter, loc, TypeRange{yt}, ValueRange{padded, w},
                   ValueRange{init}, strides, dilations)
                   .getResult(0);
    else
      result = linalg::Conv2DNhwcHwcfOp::create(
                   rewriter, loc, TypeRange{yt}, ValueRange{padded, w},
                   ValueRange{init}, strides, dilations)
                   .getResult(0);
    if (std::optional<StringRef> name = op.getActivation())
      result = applyEpilogue(
          rewriter, loc, result, Value(), *graph::parseActivation(*name),
          op.getActivationParams().value_or(ArrayRef<float>()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Channels-last max pooling: padded with the element type's lowest value
/// (which also seeds the result), then linalg's NHWC max pooling (unsigned
/// for u8).
struct MaxPool2DNhwcLowering : OpConversionPattern<k::MaxPool2DNhwcOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(k::MaxPool2DNhwcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    auto yt =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    if (!xt.hasStaticShape() || !yt.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Type elt = xt.getElementType();
    bool isUnsigned =
        getElementTypeOrSelf(op.getInput().getType()).isUnsignedInteger();
    Value lowest = createLowestValue(rewriter, loc, elt, isUnsigned);
    Value padded = padNhwc(rewriter, loc, x, op.getPads(), lowest);
    Value init = fillTensor(
        rewriter, loc,
        tensor::EmptyOp::create(rewriter, loc, yt.getShape(), elt), lowest);
    Value window = tensor::EmptyOp::create(rewriter, loc, op.getKernel(), elt);
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    Value result;
    if (isUnsigned)
      result = linalg::PoolingNhwcMaxUnsignedOp::create(
                   rewriter, loc, TypeRange{yt}, ValueRange{padded, window},
                   ValueRange{init}, strides, dilations)
                   .getResult(0);
    else
      result = linalg::PoolingNhwcMaxOp::create(
                   rewriter, loc, TypeRange{yt}, ValueRange{padded, window},
                   ValueRange{init}, strides, dilations)
                   .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateKernelConvLoweringPatterns(GraphTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<Conv2DNhwcLowering, MaxPool2DNhwcLowering>(
      converter, patterns.getContext());
}

} // namespace kiln
