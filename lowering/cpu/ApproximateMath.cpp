//===- ApproximateMath.cpp - Inline polynomial math for f32 ---------------===//
//
// Transcendentals otherwise become libm calls (erff, expf, tanhf), which
// LLVM cannot vectorize and which dominate GELU and softmax. Upstream's
// polynomial approximations are plain arithmetic on f32 scalars or vectors,
// so loops over them vectorize like any elementwise loop.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "lowering/cpu/Passes.h.inc"

namespace {

/// erf(x) for f32 as x P(x^2) / Q(x^2) on x clamped to [-4, 4] (erf(4)
/// rounds to 1), P of degree 6 and Q of degree 5, fitted for the least
/// maximum error on [0, 4]: 2.9e-7 from a float64 erf with FMA evaluation
/// (upstream's 2.4e-7), one division and no interval selection. Upstream's
/// picks the coefficients of three intervals with 18 blends a vector, and
/// its temporaries spilled in GELU epilogues (456 stack accesses per 6 x 16
/// register tile): a 64 -> 256 1x1 convolution with GELU at 112x112 took
/// 10.4 ms against 4.8 ms without the GELU.
struct RationalErf : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    static constexpr float p[] = {
        1.128379225730896f,      0.1847107857465744f,    0.054332636296749115f,
        0.0038395444862544537f,  0.0003826918255072087f, 4.780520157510182e-06f,
        -1.3666724640870598e-08f};
    static constexpr float q[] = {1.0f,
                                  0.49702921509742737f,
                                  0.11382647603750229f,
                                  0.01545354537665844f,
                                  0.0013095815666019917f,
                                  6.400908023351803e-05f};
    Location loc = op.getLoc();
    auto constant = [&](float v) -> Value {
      Attribute attr = rewriter.getF32FloatAttr(v);
      if (auto shaped = dyn_cast<ShapedType>(type))
        attr = SplatElementsAttr::get(shaped, attr);
      return arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(attr));
    };
    Value x = arith::MaximumFOp::create(
        rewriter, loc,
        arith::MinimumFOp::create(rewriter, loc, op.getOperand(), constant(4)),
        constant(-4));
    Value s = arith::MulFOp::create(rewriter, loc, x, x);
    auto horner = [&](ArrayRef<float> c) {
      Value acc = constant(c.back());
      for (float v : llvm::reverse(c.drop_back()))
        acc = math::FmaOp::create(rewriter, loc, acc, s, constant(v));
      return acc;
    };
    Value num = arith::MulFOp::create(rewriter, loc, x, horner(p));
    Value r = arith::DivFOp::create(rewriter, loc, num, horner(q));
    // |erf| <= 1 however the last bits round.
    r = arith::MaximumFOp::create(
        rewriter, loc, arith::MinimumFOp::create(rewriter, loc, r, constant(1)),
        constant(-1));
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RationalErf>(&getContext());
    // Functions whose approximations hold to a few ulp over the whole
    // range (including the saturated tails and special values).
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      return llvm::StringSwitch<bool>(name)
          .Cases({"exp", "expm1", "tanh"}, true)
          .Cases({"log", "log1p", "log2"}, true)
          .Default(false);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
