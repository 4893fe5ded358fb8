//===- KernelConv.cpp - kiln_kernel.conv_2d_nhwc to linalg ----------------===//
//
// Channels-last convolutions map onto upstream named ops whose operands are
// already in the op's layout: linalg.conv_2d_nhwc_hwcf (which the CPU
// backend's im2col rewrite also handles) and
// linalg.depthwise_conv_2d_nhwc_hwc. The input is padded with tensor.pad;
// the bias, broadcast over [N, OH, OW], is the accumulator's initial value,
// and a fused activation is one elementwise op on the result.
//
//===----------------------------------------------------------------------===//

#include "dialects/kernel/KernelOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/WindowUtils.h"

using namespace mlir;
using namespace kiln::window;
namespace k = kiln::kernel;

namespace kiln {
namespace {

/// `x` [N, H, W, C] padded with `pads` [top, left, bottom, right].
Value padNhwc(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> pads) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return x;
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(t.getShape());
  SmallVector<OpFoldResult> low, high;
  for (int64_t d = 0; d < 4; ++d) {
    bool spatial = d == 1 || d == 2;
    int64_t lo = spatial ? pads[d - 1] : 0, hi = spatial ? pads[d + 1] : 0;
    if (spatial)
      shape[d] += lo + hi;
    low.push_back(b.getIndexAttr(lo));
    high.push_back(b.getIndexAttr(hi));
  }
  Value zero = createScalarConstant(b, loc, t.getElementType(), 0.0);
  return tensor::PadOp::create(b, loc, t.clone(shape), x, low, high, zero);
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

    Value padded = padNhwc(rewriter, loc, x, op.getPads());
    Value empty = emptyWithBatch(rewriter, loc, yt, x);
    Value init;
    if (Value bias = adaptor.getBias())
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

} // namespace

void populateKernelConvLoweringPatterns(GraphTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<Conv2DNhwcLowering>(converter, patterns.getContext());
}

} // namespace kiln
