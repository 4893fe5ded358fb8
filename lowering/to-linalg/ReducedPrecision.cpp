//===- ReducedPrecision.cpp - bf16/f16 convs and matmuls to linalg --------===//
//
// Channels-last convolutions and matrix products that kiln-reduce-precision
// marked with a compute type (dialects/graph/ComputeType.h) become the
// packed product of PackedDot.h with the weight rounded to that type at
// compile time, then one elementwise epilogue (bias, activation):
//
//   bf16   rows rounded to bf16 [M, Kp], weight [Kp/2, Np, 2] bf16: pairs of
//          k per f32 lane, the form of vdpbf16ps
//   f16    rows rounded to f16 precision but kept in f32 [M, K], weight
//          [K, Np, 1] f16 widened as it is loaded: x86 has no f16 product
//          into f32, and an f32 row element broadcasts straight from memory
//
// Both sum exact products in f32. The rows of a convolution are its input
// (1x1, stride 1) or its im2col gather, rounded before the gather so each
// element is converted once.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ComputeType.h"
#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/PackedDot.h"
#include "lowering/to-linalg/Patterns.h"
#include "lowering/to-linalg/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;
namespace k = kiln::kernel;

namespace kiln {
namespace {

/// The rows' element type for compute type `ct`: bf16 itself; f32 for f16.
Type getRowType(Type ct) {
  return ct.isBF16() ? ct : Float32Type::get(ct.getContext());
}

/// `x` (f32) with the permutation `perm`, rounded to `ct`.
Value roundRows(OpBuilder &b, Location loc, Value x, Type ct,
                ArrayRef<int64_t> perm) {
  if (ct.isBF16())
    return mapAndPermute(b, loc, x, ct, perm);
  return mapAndPermute(b, loc, x, getRowType(ct), perm,
                       [&](OpBuilder &nb, Location nl, Value v) -> Value {
                         Value r = arith::TruncFOp::create(nb, nl, ct, v);
                         return arith::ExtFOp::create(nb, nl, v.getType(), r);
                       });
}

/// act(acc + bias) ([M, N] f32, bias [N] or absent) as one generic: the dot
/// kernel applies it to its accumulators.
Value buildEpilogue(OpBuilder &b, Location loc, Value acc, Value bias,
                    g::Activation act, ArrayRef<float> params) {
  MLIRContext *ctx = b.getContext();
  auto t = cast<RankedTensorType>(acc.getType());
  AffineExpr em, en;
  bindDims(ctx, em, en);
  AffineMap rowCol = AffineMap::get(2, 0, {em, en}, ctx),
            col = AffineMap::get(2, 0, {en}, ctx);
  SmallVector<Value> ins = {acc};
  SmallVector<AffineMap> maps = {rowCol};
  if (!isAbsent(bias)) {
    ins.push_back(bias);
    maps.push_back(col);
  }
  maps.push_back(rowCol);
  Value out = tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType());
  utils::IteratorType par = utils::IteratorType::parallel;
  return linalg::GenericOp::create(
             b, loc, t, ins, out, maps, ArrayRef<utils::IteratorType>{par, par},
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = args[0];
               if (args.size() > 2)
                 v = arith::AddFOp::create(nb, nl, v, args[1]);
               v = buildActivation(nb, nl, act, params, v);
               linalg::YieldOp::create(nb, nl, ValueRange{v});
             })
      .getResult(0);
}

/// rows ([M, K] of the row type) times the K x N weight `w`, then the
/// epilogue: [M, N] f32.
Value buildReducedProduct(OpBuilder &b, Location loc, Value rows, int64_t k,
                          int64_t n, Type ct,
                          llvm::function_ref<double(int64_t, int64_t)> w,
                          Value bias, g::Activation act, ArrayRef<float> params,
                          StringRef name) {
  PackedWeight packed = packDotWeight(b, loc, k, n, ct, w, name);
  rows = padColumns(b, loc, rows, packed.kPadded);
  Value acc = takeColumns(b, loc, buildDotProduct(b, loc, rows, packed), n);
  return buildEpilogue(b, loc, acc, bias, act, params);
}

struct ReducedConv2DNhwcLowering : OpConversionPattern<k::Conv2DNhwcOp> {
  ReducedConv2DNhwcLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(k::Conv2DNhwcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type ct = g::getComputeType(op);
    std::optional<ConstantData> w = getConstantData(op.getFilter());
    auto xt = cast<RankedTensorType>(adaptor.getInput().getType());
    auto yt = cast<RankedTensorType>(op.getType());
    if (!ct || op.isDepthwise() || !w || !xt.hasStaticShape() ||
        !yt.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not a reduced-precision conv");
    Location loc = op.getLoc();
    ArrayRef<int64_t> ws = w->type.getShape(); // [KH, KW, C, F]
    int64_t kh = ws[0], kw = ws[1], c = ws[2], f = ws[3];
    int64_t oh = yt.getDimSize(1), ow = yt.getDimSize(2);
    Value x = roundRows(rewriter, loc, adaptor.getInput(), ct, {0, 1, 2, 3});
    x = window::padNhwc(rewriter, loc, x, op.getPads());
    Value rows = buildConvRows(rewriter, loc, x, kh, kw, op.getStrides(),
                               op.getDilations(), oh, ow);
    // k = (ky * KW + kx) * C + c: the HWCF filter is already [K, F].
    Value y = buildReducedProduct(
        rewriter, loc, rows, kh * kw * c, f, ct,
        [&](int64_t kk, int64_t ff) { return w->getDouble(kk * f + ff); },
        adaptor.getBias(), *g::parseActivation(op.getActivation().value_or("")),
        op.getActivationParams().value_or(ArrayRef<float>()), "conv_dot");
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, yt, y, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    return success();
  }
};

/// MatMul, FusedMatMul and Gemm (transA = 0, beta = 1, C absent or [N]) with
/// a constant 2-D weight; the leading dims of A are rows.
template <typename OpT>
struct ReducedMatMulLowering : OpConversionPattern<OpT> {
  ReducedMatMulLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern<OpT>(converter, ctx, /*benefit=*/2) {}
  using OpAdaptor = typename OpT::Adaptor;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type ct = g::getComputeType(op);
    Value a = adaptor.getA();
    std::optional<ConstantData> w = getConstantData(op.getB());
    auto at = cast<RankedTensorType>(a.getType());
    auto yt = dyn_cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!ct || !w || w->type.getRank() != 2 || !at.hasStaticShape() || !yt ||
        !yt.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not a reduced-precision matmul");
    Location loc = op.getLoc();
    bool transB = false;
    double alpha = 1.0;
    Value bias;
    g::Activation act = g::Activation::None;
    ArrayRef<float> params;
    if constexpr (std::is_same_v<OpT, g::GemmOp>) {
      transB = op.getTransB() != 0;
      alpha = op.getAlpha().convertToDouble();
      bias = adaptor.getC();
    } else if constexpr (std::is_same_v<OpT, g::FusedMatMulOp>) {
      bias = adaptor.getBias();
      act = *g::parseActivation(op.getActivation());
      params = op.getActivationParams();
    }
    int64_t k = w->type.getDimSize(transB ? 1 : 0),
            n = w->type.getDimSize(transB ? 0 : 1);
    Value rows = toRows(rewriter, loc, a);
    rows = roundRows(rewriter, loc, rows, ct, {0, 1});
    Value y = buildReducedProduct(
        rewriter, loc, rows, k, n, ct,
        [&](int64_t kk, int64_t nn) {
          return alpha * w->getDouble(transB ? nn * k + kk : kk * n + nn);
        },
        bias, act, params, "matmul_dot");
    rewriter.replaceOp(op, fromRows(rewriter, loc, y, yt));
    return success();
  }
};

} // namespace

void populateReducedPrecisionPatterns(GraphTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<ReducedConv2DNhwcLowering, ReducedMatMulLowering<g::MatMulOp>,
               ReducedMatMulLowering<g::FusedMatMulOp>,
               ReducedMatMulLowering<g::GemmOp>>(converter,
                                                 patterns.getContext());
}

} // namespace kiln
