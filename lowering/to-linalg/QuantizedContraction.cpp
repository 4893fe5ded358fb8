//===- QuantizedContraction.cpp - Integer convs and matmuls to linalg -----===//
//
// QuantizedConv and QuantizedMatMul (made by kiln-fuse-quantized-
// contractions) become a product of unsigned 8-bit rows by a signed 8-bit
// weight packed for 8-bit dot-product instructions, then one elementwise
// epilogue:
//
//   A    [M, Kp]          u8 rows: the input itself (1x1 convs, matmuls) or
//                         its im2col gather, channels-last; an i8 input is
//                         moved to u8 by adding 128 (x ^ 0x80)
//   Wp   [Kp/4, Np, 4]    i8 constant: four consecutive k of a column next
//                         to each other, columns padded to 16, k to 4
//   acc  [M, Np]          i32: sum_k A[m, k] * W[k, n] (a linalg.generic
//                         over (m, n, k/4, k%4) that kiln-cpu-int8-dot-
//                         kernel turns into vpdpbusd register tiles)
//   y    [M, N]           act((acc + t[n]) * x_scale * w_scale[n] + B[n]),
//                         quantized when the op says so
//
// t[n] = -x_zero_point * sum_k W[k, n] is computed at compile time: the
// zero point folds into one add per output. Padding reads the zero point,
// the value 0.0 has. Everything is static (the fusion only makes static
// ops).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/PackedDot.h"
#include "lowering/to-linalg/Patterns.h"
#include "lowering/to-linalg/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// The weight as the kernel reads it, and the zero-point terms i32 [N].
struct QuantizedWeight {
  PackedWeight packed;
  Value terms;
};

/// Packs the K x N weight `w(k, n)` (see PackedDot.h).
QuantizedWeight packWeight(OpBuilder &b, Location loc, int64_t k, int64_t n,
                           llvm::function_ref<int8_t(int64_t, int64_t)> w,
                           int64_t xZeroPoint, StringRef name) {
  std::vector<int32_t> terms(n, 0);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t nn = 0; nn < n; ++nn)
      terms[nn] -= static_cast<int32_t>(xZeroPoint * w(kk, nn));
  QuantizedWeight q;
  q.packed = packDotWeight(
      b, loc, k, n, b.getI8Type(),
      [&](int64_t kk, int64_t nn) { return double(w(kk, nn)); }, name);
  auto termsType = RankedTensorType::get({n}, b.getI32Type());
  ArrayRef<char> termBytes(reinterpret_cast<const char *>(terms.data()),
                           terms.size() * sizeof(int32_t));
  q.terms = arith::ConstantOp::create(
      b, loc,
      cast<TypedAttr>(createConstantAttr(termsType, termBytes, "terms")));
  return q;
}

/// The epilogue's parameters.
struct Requantization {
  float xScale;
  ArrayRef<float> wScales;
  Value bias; // f32 [N] or null
  g::Activation act;
  ArrayRef<float> actParams;
  Type quantized; // null: f32 result
  bool quantizedSigned = false;
  float yScale = 1;
  int64_t yZeroPoint = 0;
};

template <typename OpT> Requantization getRequantization(OpT op, Value bias) {
  Requantization r{
      op.getXScale().convertToFloat(), op.getWScales(),
      isAbsent(bias) ? Value() : bias, *g::parseActivation(op.getActivation()),
      op.getActivationParams(),        Type()};
  if (std::optional<Type> q = op.getQuantizedType()) {
    r.quantized = IntegerType::get(op.getContext(), 8);
    r.quantizedSigned = !q->isUnsignedInteger();
    r.yScale = op.getYScale().convertToFloat();
    r.yZeroPoint = op.getYZeroPoint();
  }
  return r;
}

/// `a` (u8 [M, Kp]) times the packed weight, then the epilogue: [M, N].
Value buildProduct(OpBuilder &b, Location loc, Value a,
                   const QuantizedWeight &w, int64_t n,
                   const Requantization &r) {
  MLIRContext *ctx = b.getContext();
  int64_t m = cast<RankedTensorType>(a.getType()).getDimSize(0);
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  utils::IteratorType par = utils::IteratorType::parallel;
  Value acc = buildDotProduct(b, loc, a, w.packed);

  // y[m, n] = act((acc + t) * x_scale * w_scale + B), then quantized.
  SmallVector<double> scales;
  for (int64_t j = 0; j < n; ++j)
    scales.push_back(double(r.xScale) *
                     r.wScales[r.wScales.size() == 1 ? 0 : j]);
  auto scaleType = RankedTensorType::get({n}, f32);
  Value scaleConst = arith::ConstantOp::create(
      b, loc,
      cast<TypedAttr>(createFloatConstantAttr(scaleType, scales, "scales")));
  acc = takeColumns(b, loc, acc, n);
  SmallVector<Value> ins = {acc, w.terms, scaleConst};
  AffineExpr em, en;
  bindDims(ctx, em, en);
  AffineMap rowCol = AffineMap::get(2, 0, {em, en}, ctx),
            col = AffineMap::get(2, 0, {en}, ctx);
  SmallVector<AffineMap> epilogueMaps = {rowCol, col, col};
  if (r.bias) {
    ins.push_back(r.bias);
    epilogueMaps.push_back(col);
  }
  epilogueMaps.push_back(rowCol);
  Type outElt = r.quantized ? r.quantized : f32;
  Value out = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{m, n}, outElt);
  return linalg::GenericOp::create(
             b, loc, out.getType(), ins, out, epilogueMaps,
             ArrayRef<utils::IteratorType>{par, par},
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value s = arith::AddIOp::create(nb, nl, args[0], args[1]);
               Value v = arith::SIToFPOp::create(nb, nl, f32, s);
               v = arith::MulFOp::create(nb, nl, v, args[2]);
               if (r.bias)
                 v = arith::AddFOp::create(nb, nl, v, args[3]);
               v = buildActivation(nb, nl, r.act, r.actParams, v);
               if (r.quantized) {
                 auto cf = [&](double c) {
                   return createScalarConstant(nb, nl, f32, c);
                 };
                 v = arith::DivFOp::create(nb, nl, v, cf(r.yScale));
                 v = math::RoundEvenOp::create(nb, nl, v);
                 v = arith::AddFOp::create(nb, nl, v, cf(r.yZeroPoint));
                 v = arith::MaximumFOp::create(
                     nb, nl, v, cf(r.quantizedSigned ? -128 : 0));
                 v = arith::MinimumFOp::create(
                     nb, nl, v, cf(r.quantizedSigned ? 127 : 255));
                 v = arith::FPToSIOp::create(nb, nl, i32, v);
                 v = arith::TruncIOp::create(nb, nl, r.quantized, v);
               }
               linalg::YieldOp::create(nb, nl, ValueRange{v});
             })
      .getResult(0);
}

/// `x` with each element moved to u8 (x ^ 0x80 for an i8 input) and its
/// dims permuted by `perm`. Returns `x` when there is nothing to do.
Value toUnsigned(OpBuilder &b, Location loc, Value x, bool isSigned,
                 ArrayRef<int64_t> perm) {
  Type elt = cast<RankedTensorType>(x.getType()).getElementType();
  if (!isSigned)
    return mapAndPermute(b, loc, x, elt, perm);
  return mapAndPermute(
      b, loc, x, elt, perm, [](OpBuilder &nb, Location nl, Value v) -> Value {
        return arith::XOrIOp::create(
            nb, nl, v, createScalarConstant(nb, nl, v.getType(), -128));
      });
}

/// What both lowerings read first: the static input, the constant weight,
/// and the zero point of the input once moved to u8.
struct ContractionOperands {
  RankedTensorType xType;
  ConstantData weight;
  bool isSigned;
  int64_t xZero;
};

template <typename OpT>
FailureOr<ContractionOperands>
getContractionOperands(OpT op, Value x, ConversionPatternRewriter &rewriter) {
  auto xt = cast<RankedTensorType>(x.getType());
  std::optional<ConstantData> w = getConstantData(op.getW());
  if (!xt.hasStaticShape() || !w)
    return rewriter.notifyMatchFailure(op, "needs static shapes and a "
                                           "constant weight");
  bool isSigned =
      !getElementTypeOrSelf(op.getX().getType()).isUnsignedInteger();
  return ContractionOperands{
      xt, *w, isSigned, (int64_t)op.getXZeroPoint() + (isSigned ? 128 : 0)};
}

struct QuantizedConvLowering : OpConversionPattern<g::QuantizedConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(g::QuantizedConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<ContractionOperands> operands =
        getContractionOperands(op, adaptor.getX(), rewriter);
    if (failed(operands))
      return failure();
    bool last = op.getChannelsLast(), isSigned = operands->isSigned;
    int64_t xZero = operands->xZero;
    const ConstantData &wd = operands->weight;
    ArrayRef<int64_t> ws = wd.type.getShape();
    int64_t f = ws[0], c = ws[1], kh = ws[2], kw = ws[3];
    ArrayRef<int64_t> st = op.getStrides(), dil = op.getDilations(),
                      pads = op.getPads();

    // u8 NHWC, padded with the zero point.
    SmallVector<int64_t> toNhwc = last ? SmallVector<int64_t>{0, 1, 2, 3}
                                       : SmallVector<int64_t>{0, 2, 3, 1};
    Value x = toUnsigned(rewriter, loc, adaptor.getX(), isSigned, toNhwc);
    auto nhwc = cast<RankedTensorType>(x.getType());
    int64_t n = nhwc.getDimSize(0);
    x = window::padNhwc(rewriter, loc, x, pads,
                        createScalarConstant(rewriter, loc,
                                             rewriter.getI8Type(),
                                             (int8_t)(uint8_t)xZero));
    auto yt = cast<RankedTensorType>(op.getType());
    int64_t oh = yt.getDimSize(last ? 1 : 2), ow = yt.getDimSize(last ? 2 : 3);
    int64_t k = kh * kw * c;

    Value a = buildConvRows(rewriter, loc, x, kh, kw, st, dil, oh, ow);
    QuantizedWeight packed = packWeight(
        rewriter, loc, k, f,
        [&](int64_t kk, int64_t ff) {
          int64_t ci = kk % c, kx = (kk / c) % kw, ky = kk / (c * kw);
          return (int8_t)*wd.getElement(((ff * c + ci) * kh + ky) * kw + kx);
        },
        xZero, "conv_vnni");
    a = padColumns(rewriter, loc, a, packed.packed.kPadded);
    Value y = buildProduct(rewriter, loc, a, packed, f,
                           getRequantization(op, adaptor.getB()));
    auto elt = cast<RankedTensorType>(y.getType()).getElementType();
    y = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({n, oh, ow, f}, elt), y,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    if (!last)
      y = toUnsigned(rewriter, loc, y, /*isSigned=*/false, {0, 3, 1, 2});
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct QuantizedMatMulLowering : OpConversionPattern<g::QuantizedMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(g::QuantizedMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<ContractionOperands> operands =
        getContractionOperands(op, adaptor.getX(), rewriter);
    if (failed(operands))
      return failure();
    RankedTensorType xt = operands->xType;
    bool isSigned = operands->isSigned;
    int64_t xZero = operands->xZero;
    const ConstantData &wd = operands->weight;
    int64_t k = wd.type.getDimSize(0), n = wd.type.getDimSize(1);
    // Rows [M, K]: leading dims collapsed (a vector is one row).
    Value a = toRows(
        rewriter, loc,
        toUnsigned(rewriter, loc, adaptor.getX(), isSigned,
                   llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank()))));
    QuantizedWeight packed = packWeight(
        rewriter, loc, k, n,
        [&](int64_t kk, int64_t nn) {
          return (int8_t)*wd.getElement(kk * n + nn);
        },
        xZero, "matmul_vnni");
    a = padColumns(rewriter, loc, a, packed.packed.kPadded);
    Value y = buildProduct(rewriter, loc, a, packed, n,
                           getRequantization(op, adaptor.getB()));
    rewriter.replaceOp(
        op, fromRows(rewriter, loc, y,
                     cast<RankedTensorType>(
                         getTypeConverter()->convertType(op.getType()))));
    return success();
  }
};

} // namespace

void populateQuantizedContractionPatterns(GraphTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<QuantizedConvLowering, QuantizedMatMulLowering>(
      converter, patterns.getContext());
}

} // namespace kiln
