//===- FuseQuantizedContractions.cpp - QDQ contractions to integer ops ----===//
//
// A QDQ model (ONNX's format for quantized models, written by `kiln
// quantize` and ONNX Runtime's quantizer) computes
//
//   Conv(DequantizeLinear(xq), DequantizeLinear(wq), B)
//
// in float. On targets with an 8-bit dot-product instruction the product is
// exact and four or more times cheaper in integers, so the three ops become
// one kiln_graph.QuantizedConv (MatMul, FusedMatMul and Gemm one
// QuantizedMatMul); a QuantizeLinear that is the result's only user then
// joins it too, so that the contraction writes 8-bit values. Only what the
// integer kernels compute exactly is fused: per-tensor activation
// parameters, an int8 constant weight with zero zero points and per-tensor
// or per-output-channel scales, a constant f32 bias, static shapes and
// ungrouped 2-D convolutions. Everything else stays float.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/graph/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
#define GEN_PASS_DEF_FUSEQUANTIZEDCONTRACTIONS
#include "lowering/graph/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// Per-tensor parameters read from constants.
struct TensorParams {
  float scale;
  int64_t zeroPoint;
};

/// The scale and zero point of a per-tensor QuantizeLinear or
/// DequantizeLinear (one-element constants).
std::optional<TensorParams> getTensorParams(Value scale, Value zeroPoint) {
  std::optional<SmallVector<double>> s = g::getConstantFloats(scale);
  if (!s || s->size() != 1 || !((*s)[0] > 0))
    return std::nullopt;
  TensorParams p{static_cast<float>((*s)[0]), 0};
  if (!g::isNoValue(zeroPoint)) {
    std::optional<SmallVector<int64_t>> z = g::getConstantInts(zeroPoint);
    if (!z || z->size() != 1)
      return std::nullopt;
    p.zeroPoint = (*z)[0];
    // getConstantInts reads every integer as signed.
    if (getElementTypeOrSelf(zeroPoint.getType()).isUnsignedInteger(8))
      p.zeroPoint &= 0xff;
  }
  return p;
}

/// An 8-bit activation behind a per-tensor DequantizeLinear.
struct QuantizedInput {
  Value data;
  TensorParams params;
};

std::optional<QuantizedInput> matchInput(Value x) {
  auto dq = x.getDefiningOp<g::DequantizeLinearOp>();
  if (!dq)
    return std::nullopt;
  auto t = g::rankedOrNull(dq.getX());
  if (!t || !t.hasStaticShape() || !t.getElementType().isInteger(8))
    return std::nullopt;
  std::optional<TensorParams> p =
      getTensorParams(dq.getXScale(), dq.getXZeroPoint());
  if (!p)
    return std::nullopt;
  return QuantizedInput{dq.getX(), *p};
}

/// A constant int8 weight behind a DequantizeLinear with zero zero points
/// and scales per tensor or along `channelAxis` (`channels` of them).
struct QuantizedWeight {
  Value data;
  SmallVector<float> scales;
};

std::optional<QuantizedWeight> matchWeight(Value w, int64_t channelAxis) {
  auto dq = w.getDefiningOp<g::DequantizeLinearOp>();
  if (!dq || !dq.getX().getDefiningOp<g::ConstantOp>())
    return std::nullopt;
  auto t = g::rankedOrNull(dq.getX());
  if (!t || !t.hasStaticShape() || !t.getElementType().isSignlessInteger(8))
    return std::nullopt;
  // Per-channel scales of more than 64 channels are resource blobs.
  std::optional<ConstantData> scaleData = getConstantData(dq.getXScale());
  if (!scaleData || !isa<FloatType>(scaleData->type.getElementType()) ||
      scaleData->getNumElements() == 0)
    return std::nullopt;
  std::vector<double> scales = scaleData->getDoubles();
  if (scales.size() > 1) {
    auto st = g::rankedOrNull(dq.getXScale());
    int64_t axis = dq.getAxis() < 0 ? dq.getAxis() + t.getRank() : dq.getAxis();
    if (!st || st.getRank() != 1 || axis != channelAxis ||
        (int64_t)scales.size() != t.getDimSize(channelAxis))
      return std::nullopt;
  }
  if (!g::isNoValue(dq.getXZeroPoint())) {
    std::optional<ConstantData> z = getConstantData(dq.getXZeroPoint());
    if (!z || llvm::any_of(z->getDoubles(), [](double v) { return v != 0; }))
      return std::nullopt;
  }
  QuantizedWeight q{dq.getX(), {}};
  for (double v : scales) {
    if (!(v > 0))
      return std::nullopt;
    q.scales.push_back(static_cast<float>(v));
  }
  return q;
}

/// True for an absent bias or a constant f32 one of `n` entries.
bool isFusableBias(Value b, int64_t n) {
  if (g::isNoValue(b))
    return true;
  auto t = g::rankedOrNull(b);
  return t && t.getRank() == 1 && t.getDimSize(0) == n &&
         t.getElementType().isF32() && getConstantData(b);
}

template <typename ConvOpT>
struct FuseQuantizedConv : OpRewritePattern<ConvOpT> {
  using OpRewritePattern<ConvOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOpT op,
                                PatternRewriter &rewriter) const override {
    auto yt = dyn_cast<RankedTensorType>(op.getType());
    if (!yt || !yt.getElementType().isF32() || op.getGroup() != 1)
      return failure();
    std::optional<QuantizedInput> x = matchInput(op.getX());
    std::optional<QuantizedWeight> w = matchWeight(op.getW(), 0);
    if (!x || !w)
      return failure();
    auto xt = cast<RankedTensorType>(x->data.getType());
    auto wt = cast<RankedTensorType>(w->data.getType());
    if (xt.getRank() != 4 || wt.getRank() != 4 ||
        !isFusableBias(op.getB(), wt.getDimSize(0)))
      return failure();
    g::WindowParams window{op.getAutoPad(), wt.getShape().drop_front(2),
                           op.getStrides(), op.getDilations(), op.getPads()};
    FailureOr<SmallVector<int64_t>> pads =
        g::resolvePads(std::nullopt, xt.getShape().drop_front(2), window);
    if (failed(pads))
      return failure();
    auto orOnes = [](std::optional<ArrayRef<int64_t>> v) {
      return v ? SmallVector<int64_t>(*v) : SmallVector<int64_t>{1, 1};
    };
    StringRef activation;
    ArrayRef<float> params;
    if constexpr (std::is_same_v<ConvOpT, g::FusedConvOp>) {
      activation = op.getActivation();
      params = op.getActivationParams();
    }
    g::QuantizedConvOp::Properties props;
    props.setXScale(rewriter.getF32FloatAttr(x->params.scale));
    props.setXZeroPoint(rewriter.getI64IntegerAttr(x->params.zeroPoint));
    props.setWScales(rewriter.getDenseF32ArrayAttr(w->scales));
    props.setStrides(rewriter.getDenseI64ArrayAttr(orOnes(op.getStrides())));
    props.setDilations(
        rewriter.getDenseI64ArrayAttr(orOnes(op.getDilations())));
    props.setPads(rewriter.getDenseI64ArrayAttr(*pads));
    props.setActivation(rewriter.getStringAttr(activation));
    props.setActivationParams(rewriter.getDenseF32ArrayAttr(params));
    props.setYScale(rewriter.getF32FloatAttr(1.0f));
    props.setYZeroPoint(rewriter.getI64IntegerAttr(0));
    props.setChannelsLast(rewriter.getBoolAttr(false));
    // The integer op must stand for exactly the float one's result.
    SmallVector<Value> operands = {x->data, w->data, op.getB()};
    SmallVector<Type> types;
    if (failed(g::QuantizedConvOp::inferReturnTypes(
            rewriter.getContext(), op.getLoc(),
            g::QuantizedConvOp::Adaptor(operands, nullptr, props), types)) ||
        types.front() != op.getType())
      return failure();
    rewriter.replaceOpWithNewOp<g::QuantizedConvOp>(op, types, operands, props);
    return success();
  }
};

/// MatMul(A, B), FusedMatMul(A, B, Bias) and Gemm(A, B, C) with transA = 0,
/// alpha = beta = 1 and a 1-D C.
struct MatMulParts {
  Value a, b, bias;
  bool transB = false;
  StringRef activation;
  ArrayRef<float> params;
};

std::optional<MatMulParts> getMatMulParts(Operation *op) {
  if (auto m = dyn_cast<g::MatMulOp>(op))
    return MatMulParts{m.getA(), m.getB(), Value(), false, "", {}};
  if (auto m = dyn_cast<g::FusedMatMulOp>(op))
    return MatMulParts{m.getA(), m.getB(),          m.getBias(),
                       false,    m.getActivation(), m.getActivationParams()};
  auto gemm = dyn_cast<g::GemmOp>(op);
  if (!gemm || gemm.getTransA() || gemm.getAlpha().convertToFloat() != 1.0f ||
      gemm.getBeta().convertToFloat() != 1.0f)
    return std::nullopt;
  return MatMulParts{gemm.getA(),           gemm.getB(), gemm.getC(),
                     gemm.getTransB() != 0, "",          {}};
}

/// The constant `w` ([N, K]) transposed to [K, N].
Value transposeWeight(PatternRewriter &rewriter, Location loc, Value w) {
  std::optional<ConstantData> data = getConstantData(w);
  if (!data)
    return {};
  int64_t n = data->type.getDimSize(0), k = data->type.getDimSize(1);
  std::vector<char> bytes(n * k);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j)
      bytes[j * n + i] = *data->getElement(i * k + j);
  auto type = RankedTensorType::get({k, n}, data->type.getElementType());
  ElementsAttr attr = createConstantAttr(
      type, bytes,
      deriveBlobName(
          cast<ElementsAttr>(w.getDefiningOp<g::ConstantOp>().getValue()),
          "t"));
  return g::ConstantOp::create(rewriter, loc, type, attr);
}

struct FuseQuantizedMatMul : RewritePattern {
  FuseQuantizedMatMul(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<g::MatMulOp, g::FusedMatMulOp, g::GemmOp>(op))
      return failure();
    std::optional<MatMulParts> parts = getMatMulParts(op);
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!parts || !yt || !yt.getElementType().isF32())
      return failure();
    std::optional<QuantizedInput> x = matchInput(parts->a);
    std::optional<QuantizedWeight> w =
        matchWeight(parts->b, parts->transB ? 0 : 1);
    if (!x || !w || cast<RankedTensorType>(w->data.getType()).getRank() != 2)
      return failure();
    auto xt = cast<RankedTensorType>(x->data.getType());
    if (isa<g::GemmOp>(op) && xt.getRank() != 2)
      return failure();
    // The integer op must stand for exactly the float one's result; checked
    // before anything is created.
    ArrayRef<int64_t> ws = cast<RankedTensorType>(w->data.getType()).getShape();
    int64_t k = ws[parts->transB ? 1 : 0], n = ws[parts->transB ? 0 : 1];
    SmallVector<int64_t> shape(xt.getShape());
    if (shape.empty() || shape.back() != k)
      return failure();
    shape.back() = n;
    if (yt != RankedTensorType::get(shape, yt.getElementType()) ||
        !isFusableBias(parts->bias, n))
      return failure();
    Value weight = w->data;
    if (parts->transB &&
        !(weight = transposeWeight(rewriter, op->getLoc(), weight)))
      return failure();
    Value bias = parts->bias;
    if (g::isNoValue(bias))
      bias =
          g::NoValueOp::create(rewriter, op->getLoc(), rewriter.getNoneType());
    rewriter.replaceOpWithNewOp<g::QuantizedMatMulOp>(
        op, yt, x->data, weight, bias,
        rewriter.getF32FloatAttr(x->params.scale),
        rewriter.getI64IntegerAttr(x->params.zeroPoint),
        rewriter.getDenseF32ArrayAttr(w->scales),
        rewriter.getStringAttr(parts->activation),
        rewriter.getDenseF32ArrayAttr(parts->params), TypeAttr(),
        rewriter.getF32FloatAttr(1.0f), rewriter.getI64IntegerAttr(0));
    return success();
  }
};

/// QuantizeLinear(contraction) with per-tensor parameters, the
/// contraction's only user: the contraction writes the 8-bit result.
template <typename OpT>
struct FoldQuantizeLinear : OpRewritePattern<g::QuantizeLinearOp> {
  using OpRewritePattern<g::QuantizeLinearOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(g::QuantizeLinearOp q,
                                PatternRewriter &rewriter) const override {
    auto op = q.getX().getDefiningOp<OpT>();
    if (!op || op.getQuantizedType() || !op->hasOneUse() ||
        q.getSaturate() != 1)
      return failure();
    auto qt = dyn_cast<RankedTensorType>(q.getType());
    std::optional<TensorParams> p =
        getTensorParams(q.getYScale(), q.getYZeroPoint());
    if (!qt || !p || !qt.getElementType().isInteger(8))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setQuantizedTypeAttr(TypeAttr::get(qt.getElementType()));
      op.setYScaleAttr(rewriter.getF32FloatAttr(p->scale));
      op.setYZeroPointAttr(rewriter.getI64IntegerAttr(p->zeroPoint));
      op.getY().setType(qt);
    });
    rewriter.replaceOp(q, op.getY());
    return success();
  }
};

/// DequantizeLinear of a constant (the weights the integer ops did not
/// take: depthwise and grouped convolutions): folded once here rather than
/// computed on every run.
struct FoldConstantDequantize : OpRewritePattern<g::DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::DequantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    std::optional<ConstantData> x = getConstantData(op.getX());
    std::optional<ConstantData> s = getConstantData(op.getXScale());
    if (!type || !type.getElementType().isF32() || !x || !s ||
        !x->type.getElementType().isInteger(8) || x->getNumElements() == 0)
      return failure();
    std::optional<ConstantData> z;
    if (!g::isNoValue(op.getXZeroPoint()) &&
        !(z = getConstantData(op.getXZeroPoint())))
      return failure();
    int64_t rank = x->type.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    int64_t params = s->getNumElements();
    if (params > 1 &&
        (axis < 0 || axis >= rank || x->type.getDimSize(axis) != params ||
         (z && z->getNumElements() != params)))
      return failure();
    // Elements between consecutive steps of the axis.
    int64_t inner = 1;
    for (int64_t d = axis + 1; params > 1 && d < rank; ++d)
      inner *= x->type.getDimSize(d);
    std::vector<double> values(x->getNumElements());
    for (int64_t i = 0, n = values.size(); i < n; ++i) {
      int64_t p = params > 1 ? (i / inner) % params : 0;
      double zp = z ? z->getDouble(z->getNumElements() > 1 ? p : 0) : 0;
      values[i] = (x->getDouble(i) - zp) * s->getDouble(p);
    }
    ElementsAttr attr = createFloatConstantAttr(
        type, values,
        deriveBlobName(cast<ElementsAttr>(
                           op.getX().getDefiningOp<g::ConstantOp>().getValue()),
                       "dq"));
    rewriter.replaceOpWithNewOp<g::ConstantOp>(op, type, attr);
    return success();
  }
};

struct FuseQuantizedContractionsPass
    : impl::FuseQuantizedContractionsBase<FuseQuantizedContractionsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns
        .add<FuseQuantizedConv<g::ConvOp>, FuseQuantizedConv<g::FusedConvOp>,
             FuseQuantizedMatMul, FoldQuantizeLinear<g::QuantizedConvOp>,
             FoldQuantizeLinear<g::QuantizedMatMulOp>>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    RewritePatternSet folds(ctx);
    folds.add<FoldConstantDequantize>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(folds))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
