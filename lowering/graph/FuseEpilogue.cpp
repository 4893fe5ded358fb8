//===- FuseEpilogue.cpp - Activations and biases into contractions --------===//
//
// A Conv followed by an activation becomes a FusedConv; a MatMul followed by
// an Add of a bias along its last dim, an activation, or both, becomes a
// FusedMatMul. Code generation then applies the epilogue to each block of
// the contraction's result while it is in cache, instead of in another pass
// over memory. Besides the ONNX activation ops, two decomposed forms that
// exporters emit are recognized:
//
//   HardSwish:  x * Clip(x + 3, 0, 6) / 6,  x * HardSigmoid(x; 1/6, 1/2)
//   Swish/SiLU: x * Sigmoid(x)
//   exact GELU: x * (Erf(x / sqrt(2)) + 1) * 0.5  (either product order)
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Activation.h"
#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/graph/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
#define GEN_PASS_DEF_FUSEEPILOGUE
#include "lowering/graph/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// An activation applied to a value: what it is and the op producing its
/// result.
struct ActivationMatch {
  g::Activation act;
  SmallVector<float> params;
  Operation *root;
};

/// The single value of a one-element float constant.
std::optional<double> scalarConstant(Value v) {
  if (!v || g::isNoValue(v))
    return std::nullopt;
  std::optional<SmallVector<double>> values = g::getConstantFloats(v);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

bool isConstant(Value v, double want) {
  std::optional<double> c = scalarConstant(v);
  return c && std::abs(*c - want) <= 1e-6 * std::max(1.0, std::abs(want));
}

/// The operand of binary `op` other than `x`, or null if `x` is neither.
Value otherOperand(Operation *op, Value x) {
  if (op->getNumOperands() != 2)
    return {};
  if (op->getOperand(0) == x)
    return op->getOperand(1);
  if (op->getOperand(1) == x && isa<g::AddOp, g::MulOp>(op))
    return op->getOperand(0);
  return {};
}

/// The only user of `v`, if it has exactly one use.
Operation *soleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

std::optional<ActivationMatch> matchSingleOp(Operation *user) {
  SmallVector<float> none;
  if (isa<g::ReluOp>(user))
    return ActivationMatch{g::Activation::Relu, none, user};
  if (isa<g::SigmoidOp>(user))
    return ActivationMatch{g::Activation::Sigmoid, none, user};
  if (isa<g::TanhOp>(user))
    return ActivationMatch{g::Activation::Tanh, none, user};
  if (isa<g::HardSwishOp>(user))
    return ActivationMatch{g::Activation::HardSwish, none, user};
  if (auto gelu = dyn_cast<g::GeluOp>(user)) {
    if (gelu.getApproximate() != "none")
      return std::nullopt;
    return ActivationMatch{g::Activation::Gelu, none, user};
  }
  if (auto leaky = dyn_cast<g::LeakyReluOp>(user))
    return ActivationMatch{
        g::Activation::LeakyRelu, {leaky.getAlpha().convertToFloat()}, user};
  if (auto hs = dyn_cast<g::HardSigmoidOp>(user))
    return ActivationMatch{
        g::Activation::HardSigmoid,
        {hs.getAlpha().convertToFloat(), hs.getBeta().convertToFloat()},
        user};
  if (auto clip = dyn_cast<g::ClipOp>(user)) {
    float lo = -INFINITY, hi = INFINITY;
    if (!g::isNoValue(clip.getMin())) {
      std::optional<double> c = scalarConstant(clip.getMin());
      if (!c)
        return std::nullopt;
      lo = *c;
    }
    if (!g::isNoValue(clip.getMax())) {
      std::optional<double> c = scalarConstant(clip.getMax());
      if (!c)
        return std::nullopt;
      hi = *c;
    }
    return ActivationMatch{g::Activation::Clip, {lo, hi}, user};
  }
  return std::nullopt;
}

/// x * Clip(x + 3, 0, 6) / 6 (or * 1/6), or x * HardSigmoid(x; 1/6, 1/2),
/// where `inner` is the user of x that is not the product.
std::optional<ActivationMatch> matchHardSwish(Value x, Operation *inner,
                                              Operation *product) {
  if (!isa<g::MulOp>(product))
    return std::nullopt;
  if (auto hs = dyn_cast<g::HardSigmoidOp>(inner)) {
    if (std::abs(hs.getAlpha().convertToDouble() - 1.0 / 6.0) > 1e-6 ||
        std::abs(hs.getBeta().convertToDouble() - 0.5) > 1e-6)
      return std::nullopt;
    if (otherOperand(product, x) != hs.getResult())
      return std::nullopt;
    return ActivationMatch{g::Activation::HardSwish, {}, product};
  }
  if (!isa<g::AddOp>(inner) || !isConstant(otherOperand(inner, x), 3.0))
    return std::nullopt;
  auto clip = dyn_cast_or_null<g::ClipOp>(soleUser(inner->getResult(0)));
  if (!clip || !isConstant(clip.getMin(), 0.0) ||
      !isConstant(clip.getMax(), 6.0) ||
      otherOperand(product, x) != clip.getResult())
    return std::nullopt;
  Operation *scale = soleUser(product->getResult(0));
  if (!scale)
    return std::nullopt;
  Value by = otherOperand(scale, product->getResult(0));
  if ((isa<g::DivOp>(scale) && isConstant(by, 6.0)) ||
      (isa<g::MulOp>(scale) && isConstant(by, 1.0 / 6.0)))
    return ActivationMatch{g::Activation::HardSwish, {}, scale};
  return std::nullopt;
}

/// x * Sigmoid(x) (SiLU), where `inner` is the Sigmoid.
std::optional<ActivationMatch> matchSwish(Value x, Operation *inner,
                                          Operation *product) {
  auto sig = dyn_cast<g::SigmoidOp>(inner);
  if (!sig || !isa<g::MulOp>(product) || !sig.getResult().hasOneUse() ||
      otherOperand(product, x) != sig.getResult())
    return std::nullopt;
  return ActivationMatch{g::Activation::Swish, {}, product};
}

/// x * (Erf(x / sqrt 2) + 1) * 0.5, multiplied in either order; `scaled` is
/// the user of x that feeds Erf.
std::optional<ActivationMatch> matchGelu(Value x, Operation *scaled,
                                         Operation *other) {
  Value by = otherOperand(scaled, x);
  if (!((isa<g::DivOp>(scaled) && isConstant(by, M_SQRT2)) ||
        (isa<g::MulOp>(scaled) && isConstant(by, M_SQRT1_2))))
    return std::nullopt;
  auto erf = dyn_cast_or_null<g::ErfOp>(soleUser(scaled->getResult(0)));
  if (!erf)
    return std::nullopt;
  Operation *plusOne = soleUser(erf.getResult());
  if (!plusOne || !isa<g::AddOp>(plusOne) ||
      !isConstant(otherOperand(plusOne, erf.getResult()), 1.0))
    return std::nullopt;
  Value gate = plusOne->getResult(0);
  Operation *gateUser = soleUser(gate);
  if (!gateUser || !isa<g::MulOp>(gateUser))
    return std::nullopt;
  // (x * gate) * 0.5
  if (other == gateUser && otherOperand(gateUser, gate) == x) {
    Operation *half = soleUser(gateUser->getResult(0));
    if (half && isa<g::MulOp>(half) &&
        isConstant(otherOperand(half, gateUser->getResult(0)), 0.5))
      return ActivationMatch{g::Activation::Gelu, {}, half};
    return std::nullopt;
  }
  // (x * 0.5) * gate
  if (isa<g::MulOp>(other) && isConstant(otherOperand(other, x), 0.5) &&
      otherOperand(gateUser, gate) == other->getResult(0))
    return ActivationMatch{g::Activation::Gelu, {}, gateUser};
  return std::nullopt;
}

/// The activation applied to `x`, when every user of `x` belongs to it and
/// its result has the type of `x`.
std::optional<ActivationMatch> matchActivation(Value x) {
  SmallVector<Operation *> users(x.getUsers());
  std::optional<ActivationMatch> m;
  if (users.size() == 1) {
    m = matchSingleOp(users[0]);
  } else if (users.size() == 2 && users[0] != users[1]) {
    for (int i = 0; i < 2 && !m; ++i) {
      m = matchHardSwish(x, users[i], users[1 - i]);
      if (!m)
        m = matchSwish(x, users[i], users[1 - i]);
      if (!m)
        m = matchGelu(x, users[i], users[1 - i]);
    }
  }
  if (m && m->root->getResult(0).getType() != x.getType())
    return std::nullopt;
  return m;
}

NamedAttribute activationAttr(Builder &b, g::Activation act) {
  return b.getNamedAttr("activation",
                        b.getStringAttr(g::getActivationName(act)));
}

NamedAttribute paramsAttr(Builder &b, ArrayRef<float> params) {
  return b.getNamedAttr("activation_params", b.getDenseF32ArrayAttr(params));
}

/// Conv + activation -> FusedConv.
struct FuseConvActivation : OpRewritePattern<g::ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::ConvOp conv,
                                PatternRewriter &rewriter) const override {
    std::optional<ActivationMatch> m = matchActivation(conv.getResult());
    if (!m)
      return rewriter.notifyMatchFailure(conv, "no activation follows");
    SmallVector<NamedAttribute> attrs(conv->getAttrs());
    attrs.push_back(activationAttr(rewriter, m->act));
    attrs.push_back(paramsAttr(rewriter, m->params));
    rewriter.setInsertionPoint(m->root);
    auto fused = g::FusedConvOp::create(rewriter, conv.getLoc(), conv.getType(),
                                        conv->getOperands(), attrs);
    rewriter.replaceOp(m->root, fused.getResult());
    return success();
  }
};

/// MatMul + Add(bias along the last dim) -> FusedMatMul; MatMul or a
/// FusedMatMul without activation, + activation -> FusedMatMul with it.
struct FuseMatMulEpilogue : RewritePattern {
  FuseMatMulEpilogue(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    Value a, b, bias;
    if (auto mm = dyn_cast<g::MatMulOp>(op)) {
      a = mm.getA();
      b = mm.getB();
    } else if (auto fused = dyn_cast<g::FusedMatMulOp>(op)) {
      if (!fused.getActivation().empty())
        return failure();
      a = fused.getA();
      b = fused.getB();
      bias = fused.getBias();
    } else {
      return failure();
    }
    Value y = op->getResult(0);
    auto yt = dyn_cast<RankedTensorType>(y.getType());
    if (!yt || !isa<FloatType>(yt.getElementType()) || yt.getRank() < 1)
      return failure();
    Location loc = op->getLoc();
    auto noBias = [&] {
      return g::NoValueOp::create(rewriter, loc, rewriter.getNoneType());
    };

    // A bias first, when there is none yet.
    if (!bias || g::isNoValue(bias)) {
      Operation *add = soleUser(y);
      if (add && isa<g::AddOp>(add) && add->getResult(0).getType() == yt) {
        Value c = otherOperand(add, y);
        auto ct = c ? dyn_cast<RankedTensorType>(c.getType()) : nullptr;
        if (ct && ct.getRank() == 1 &&
            ct.getDimSize(0) == yt.getShape().back() &&
            ct.getElementType() == yt.getElementType() && getConstantData(c)) {
          rewriter.setInsertionPoint(add);
          auto fused =
              g::FusedMatMulOp::create(rewriter, loc, yt, ValueRange{a, b, c},
                                       ArrayRef<NamedAttribute>{});
          rewriter.replaceOp(add, fused.getResult());
          return success();
        }
      }
    }
    std::optional<ActivationMatch> m = matchActivation(y);
    if (!m)
      return failure();
    rewriter.setInsertionPoint(m->root);
    if (!bias)
      bias = noBias();
    auto fused = g::FusedMatMulOp::create(
        rewriter, loc, yt, ValueRange{a, b, bias},
        ArrayRef<NamedAttribute>{activationAttr(rewriter, m->act),
                                 paramsAttr(rewriter, m->params)});
    rewriter.replaceOp(m->root, fused.getResult());
    return success();
  }
};

struct FuseEpiloguePass : impl::FuseEpilogueBase<FuseEpiloguePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseEpiloguePatterns(patterns);
    // An optimization: whatever did not converge is still correct IR.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void populateFuseEpiloguePatterns(RewritePatternSet &patterns) {
  patterns.add<FuseConvActivation, FuseMatMulEpilogue>(patterns.getContext());
}

} // namespace kiln
