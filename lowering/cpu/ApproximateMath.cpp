//===- ApproximateMath.cpp - Inline polynomial math for f32 ---------------===//
//
// Transcendentals otherwise become libm calls (erff, expf, tanhf), which
// LLVM cannot vectorize and which dominate GELU and softmax. Upstream's
// polynomial approximations are plain arithmetic on f32 scalars or vectors,
// so loops over them vectorize like any elementwise loop.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "lowering/cpu/Passes.h.inc"

namespace {

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Functions whose approximations hold to a few ulp over the whole
    // range (including the saturated tails and special values).
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      return llvm::StringSwitch<bool>(name)
          .Cases({"erf", "exp", "expm1", "tanh"}, true)
          .Cases({"log", "log1p", "log2"}, true)
          .Default(false);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
