//===- FoldBatchNorm.cpp - Fold inference BatchNormalization --------------===//
//
// With constant statistics, inference BatchNormalization is y = x * s + t per
// channel, s = scale / sqrt(var + eps) and t = B - mean * s. After a Conv,
// ConvTranspose or Gemm with a constant weight whose result has no other use,
// s scales the weight's output channels and the bias becomes b * s + t, so the
// normalization disappears. Elsewhere it becomes Mul and Add by precomputed
// constants, so no sqrt or division is left for run time. Mul and Add by
// per-channel constants after such a producer fold the same way. Values are
// computed in double and rounded once to the element type.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "lowering/graph/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "lowering/graph/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// Per-channel y = x * scale + shift.
struct Affine {
  std::vector<double> scale, shift;
};

static bool isFloatTensor(Type t) {
  return isa<FloatType>(getElementTypeOrSelf(t)) && isa<RankedTensorType>(t);
}

/// The weight and optional bias of a producer, rewritten so that its output
/// channel `c` is multiplied by scale[c] and then shifted by shift[c].
struct FoldedParams {
  ElementsAttr weight, bias;
};

/// `channelOf(i)` is the output channel that weight element `i` feeds.
/// `bias` is null for an absent bias; `biasScale` multiplies it first (Gemm's
/// beta).
static std::optional<FoldedParams>
foldIntoWeights(Value weight, Value bias, double biasScale, const Affine &bn,
                llvm::function_ref<int64_t(int64_t)> channelOf) {
  std::optional<ConstantData> w = getConstantData(weight);
  if (!w || !isa<FloatType>(w->type.getElementType()))
    return std::nullopt;
  int64_t channels = bn.scale.size();
  std::vector<double> b(channels, 0.0);
  RankedTensorType biasType =
      RankedTensorType::get({channels}, w->type.getElementType());
  ElementsAttr biasAttr;
  if (!isa<NoneType>(bias.getType())) {
    std::optional<ConstantData> bd = getConstantData(bias);
    if (!bd || !isa<FloatType>(bd->type.getElementType()))
      return std::nullopt;
    if (bd->getNumElements() == channels) {
      b = bd->getDoubles();
    } else if (bd->getNumElements() == 1) {
      b.assign(channels, bd->getDouble(0));
    } else {
      return std::nullopt;
    }
    biasType = RankedTensorType::get({channels}, bd->type.getElementType());
    matchPattern(bias, m_Constant(&biasAttr));
  }
  std::vector<double> wv(w->getNumElements());
  for (int64_t i = 0, e = wv.size(); i < e; ++i)
    wv[i] = w->getDouble(i) * bn.scale[channelOf(i)];
  for (int64_t c = 0; c < channels; ++c)
    b[c] = b[c] * biasScale * bn.scale[c] + bn.shift[c];
  ElementsAttr weightAttr;
  matchPattern(weight, m_Constant(&weightAttr));
  return FoldedParams{
      createFloatConstantAttr(w->type, wv, deriveBlobName(weightAttr, "bn")),
      createFloatConstantAttr(biasType, b, deriveBlobName(biasAttr, "bn"))};
}

/// Folded parameters when `producer` is a Conv, ConvTranspose or Gemm whose
/// output channels are `bn`'s channels.
static std::optional<FoldedParams> foldIntoProducer(Operation *producer,
                                                    const Affine &bn) {
  int64_t channels = bn.scale.size();
  auto weightShape = [](Value w) -> ArrayRef<int64_t> {
    auto t = dyn_cast<RankedTensorType>(w.getType());
    return t && t.hasStaticShape() ? t.getShape() : ArrayRef<int64_t>();
  };
  if (auto conv = dyn_cast<g::ConvOp>(producer)) {
    // W is [Cout, Cin/group, k...].
    ArrayRef<int64_t> shape = weightShape(conv.getW());
    if (shape.size() < 2 || shape[0] != channels)
      return std::nullopt;
    int64_t perChannel = ShapedType::getNumElements(shape) / channels;
    return foldIntoWeights(conv.getW(), conv.getB(), 1.0, bn,
                           [&](int64_t i) { return i / perChannel; });
  }
  if (auto deconv = dyn_cast<g::ConvTransposeOp>(producer)) {
    // W is [Cin, Cout/group, k...]; input channel ci of group ci / (Cin/group)
    // feeds output channels group * Cout/group + j.
    ArrayRef<int64_t> shape = weightShape(deconv.getW());
    int64_t group = deconv.getGroup();
    if (shape.size() < 2 || group <= 0 || shape[0] % group != 0 ||
        shape[1] * group != channels)
      return std::nullopt;
    int64_t kernel = ShapedType::getNumElements(shape.drop_front(2));
    int64_t inPerGroup = shape[0] / group, outPerGroup = shape[1];
    return foldIntoWeights(deconv.getW(), deconv.getB(), 1.0, bn,
                           [&](int64_t i) {
                             int64_t ci = i / (outPerGroup * kernel);
                             int64_t j = (i / kernel) % outPerGroup;
                             return (ci / inPerGroup) * outPerGroup + j;
                           });
  }
  if (auto gemm = dyn_cast<g::GemmOp>(producer)) {
    // Y[M, N] = alpha * A' B' + beta * C; B is [K, N], or [N, K] if transB.
    ArrayRef<int64_t> shape = weightShape(gemm.getB());
    bool transB = gemm.getTransB() != 0;
    if (shape.size() != 2 || shape[transB ? 0 : 1] != channels)
      return std::nullopt;
    // A per-column C folds; one varying along M would need a [M, N] bias.
    if (auto c = dyn_cast<RankedTensorType>(gemm.getC().getType()))
      if (c.getRank() > 1 && llvm::any_of(c.getShape().drop_back(),
                                          [](int64_t d) { return d != 1; }))
        return std::nullopt;
    int64_t k = shape[1];
    double beta = gemm.getBeta().convertToDouble();
    return foldIntoWeights(gemm.getB(), gemm.getC(), beta, bn, [&](int64_t i) {
      return transB ? i / k : i % channels;
    });
  }
  return std::nullopt;
}

/// Gives `producer` the folded weight and bias (Gemm's beta is folded in)
/// and replaces `op`, the affine map after it, with its result.
static void replaceWithFolded(PatternRewriter &rewriter, Operation *op,
                              Operation *producer, const FoldedParams &folded) {
  rewriter.setInsertionPoint(producer);
  Location loc = producer->getLoc();
  Value w = g::ConstantOp::create(rewriter, loc, folded.weight);
  Value b = g::ConstantOp::create(rewriter, loc, folded.bias);
  rewriter.modifyOpInPlace(producer, [&] {
    producer->setOperand(1, w);
    producer->setOperand(2, b);
    if (auto gemm = dyn_cast<g::GemmOp>(producer))
      gemm.setBeta(APFloat(1.0f));
    producer->getResult(0).setType(op->getResult(0).getType());
  });
  rewriter.replaceOp(op, producer->getResults());
}

struct FoldBatchNormPattern : OpRewritePattern<g::BatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::BatchNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getTrainingMode() != 0)
      return rewriter.notifyMatchFailure(op, "training mode");
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!xType || xType.getRank() < 2 || !isFloatTensor(xType) ||
        !isFloatTensor(op.getType()))
      return rewriter.notifyMatchFailure(op, "needs a float tensor, rank >= 2");
    std::optional<ConstantData> params[4];
    Value operands[] = {op.getScale(), op.getB(), op.getInputMean(),
                        op.getInputVar()};
    for (auto [data, v] : llvm::zip(params, operands)) {
      data = getConstantData(v);
      if (!data || !isa<FloatType>(data->type.getElementType()))
        return rewriter.notifyMatchFailure(op, "parameters are not constant");
    }
    int64_t channels = params[0]->getNumElements();
    int64_t xChannels = xType.getDimSize(1);
    if (llvm::any_of(
            params, [&](auto &p) { return p->getNumElements() != channels; }) ||
        (!ShapedType::isDynamic(xChannels) && xChannels != channels))
      return rewriter.notifyMatchFailure(op, "parameters must have C elements");

    double eps = op.getEpsilon().convertToDouble();
    Affine bn{std::vector<double>(channels), std::vector<double>(channels)};
    for (int64_t c = 0; c < channels; ++c) {
      double s =
          params[0]->getDouble(c) / std::sqrt(params[3]->getDouble(c) + eps);
      bn.scale[c] = s;
      bn.shift[c] = params[1]->getDouble(c) - params[2]->getDouble(c) * s;
    }

    Operation *producer = op.getX().getDefiningOp();
    if (producer && op.getX().hasOneUse() &&
        isa<g::ConvOp, g::ConvTransposeOp, g::GemmOp>(producer)) {
      if (std::optional<FoldedParams> folded = foldIntoProducer(producer, bn)) {
        replaceWithFolded(rewriter, op, producer, *folded);
        return success();
      }
    }

    // x * s + t with s and t shaped [C, 1, ...] to broadcast over NCHW.
    SmallVector<int64_t> shape(xType.getRank() - 1, 1);
    shape[0] = channels;
    auto paramType = RankedTensorType::get(shape, xType.getElementType());
    Location loc = op.getLoc();
    Value s = g::ConstantOp::create(
        rewriter, loc,
        createFloatConstantAttr(paramType, bn.scale, "bn_scale"));
    Value t = g::ConstantOp::create(
        rewriter, loc,
        createFloatConstantAttr(paramType, bn.shift, "bn_shift"));
    Value mul = g::MulOp::create(rewriter, loc, op.getType(), op.getX(), s);
    rewriter.replaceOpWithNewOp<g::AddOp>(op, op.getType(), mul, t);
    return success();
  }
};

/// Per-channel values of constant `c` broadcast against `y` (channels in dim
/// 1): one value per channel, or one for all, with every other dim 1.
static std::optional<std::vector<double>> channelValues(Value c, Value y,
                                                        int64_t channels) {
  auto ct = dyn_cast<RankedTensorType>(c.getType());
  auto yt = dyn_cast<RankedTensorType>(y.getType());
  if (!ct || !yt || !ct.hasStaticShape() || ct.getRank() > yt.getRank() ||
      yt.getRank() < 2)
    return std::nullopt;
  int64_t channelDim = 1 - (yt.getRank() - ct.getRank());
  for (int64_t d = 0; d < ct.getRank(); ++d)
    if (ct.getDimSize(d) != 1 &&
        (d != channelDim || ct.getDimSize(d) != channels))
      return std::nullopt;
  std::optional<ConstantData> data = getConstantData(c);
  if (!data || !isa<FloatType>(data->type.getElementType()))
    return std::nullopt;
  std::vector<double> values = data->getDoubles();
  if (values.size() == 1)
    values.assign(channels, values[0]);
  return values;
}

/// Mul or Add of a Conv/ConvTranspose/Gemm result by per-channel (or scalar)
/// constants is the affine map x * s or x + t: it folds like a
/// BatchNormalization. PaddleOCR's learnable scales after each Conv are such
/// Muls and Adds.
template <typename OpT> struct FoldAffineIntoProducer : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    for (int i = 0; i < 2; ++i) {
      Value y = op->getOperand(i), c = op->getOperand(1 - i);
      Operation *producer = y.getDefiningOp();
      if (!producer || !y.hasOneUse() || y.getType() != op.getType() ||
          !isFloatTensor(y.getType()) ||
          !isa<g::ConvOp, g::ConvTransposeOp, g::GemmOp>(producer))
        continue;
      int64_t channels = cast<RankedTensorType>(y.getType()).getDimSize(1);
      if (ShapedType::isDynamic(channels))
        continue;
      std::optional<std::vector<double>> values = channelValues(c, y, channels);
      if (!values)
        continue;
      Affine affine{std::vector<double>(channels, 1.0),
                    std::vector<double>(channels, 0.0)};
      (std::is_same_v<OpT, g::MulOp> ? affine.scale : affine.shift) = *values;
      std::optional<FoldedParams> folded = foldIntoProducer(producer, affine);
      if (!folded)
        continue;
      replaceWithFolded(rewriter, op, producer, *folded);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a per-channel affine map");
  }
};

struct FoldBatchNormPass : impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldBatchNormPatterns(patterns);
    // An optimization: whatever did not converge is still correct IR.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void populateFoldBatchNormPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldBatchNormPattern, FoldAffineIntoProducer<g::MulOp>,
               FoldAffineIntoProducer<g::AddOp>>(patterns.getContext());
}

} // namespace kiln
