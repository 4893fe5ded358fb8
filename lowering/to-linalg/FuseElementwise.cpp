//===- FuseElementwise.cpp - Elementwise chains into one loop nest --------===//
//
// Upstream's elementwise fusion, with a control function that refuses the
// fusions that recompute work: a producer is fused only when its consumer
// reads each of its elements exactly once (the consumer's indexing map for
// it is a permutation of all consumer loops). Fusing `gelu(x)` into the
// matmul that reads it would evaluate erf N times per element and turn the
// named contraction into a generic that the register kernels cannot take.
//
//===----------------------------------------------------------------------===//

#include "lowering/to-linalg/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "lowering/to-linalg/Passes.h.inc"

namespace {

bool hasOneUseProducer(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

bool fusesWithoutRecompute(OpOperand *fused) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  return hasOneUseProducer(fused) && consumer &&
         consumer.getMatchingIndexingMap(fused).isPermutation();
}

/// Reshapes move only through elementwise ops: folding one into a
/// contraction would give it extra loops and turn a named matmul into a
/// generic.
bool movesReshape(OpOperand *fused) {
  auto elementwise = [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return !linalgOp || linalg::isElementwise(linalgOp);
  };
  return hasOneUseProducer(fused) &&
         elementwise(fused->get().getDefiningOp()) &&
         elementwise(fused->getOwner());
}

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecompute);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, movesReshape);
    linalg::populateConstantFoldLinalgOperations(patterns, hasOneUseProducer);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, &getContext());
    linalg::GenericOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    getContext()
        .getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
