//===- ConvToIm2Col.cpp - 2-D convolutions as contractions ----------------===//
//
// One well-tiled contraction kernel then serves matmuls and convolutions;
// the im2col gather costs O(C*KH*KW*OH*OW) copies against
// O(F*C*KH*KW*OH*OW) FMAs. Runs on tensors (the rewrite creates tensors).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_CONVTOIM2COL
#include "lowering/cpu/Passes.h.inc"

namespace {

struct ConvToIm2ColPass : impl::ConvToIm2ColBase<ConvToIm2ColPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> convs;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp>(op))
        convs.push_back(op);
    });
    if (convs.empty())
      return;
    for (Operation *op : convs) {
      rewriter.setInsertionPoint(op);
      // Forms the upstream rewrite rejects (dynamic shapes, say) stay
      // direct convolutions.
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        (void)linalg::rewriteInIm2Col(rewriter, conv);
      else
        (void)linalg::rewriteInIm2Col(rewriter,
                                      cast<linalg::Conv2DNhwcHwcfOp>(op));
    }
    // With batch 1 the contraction is a matmul with a unit batch dim;
    // dropped and specialized it gets the named-op register kernel. A
    // single output channel stays an M = 1 matmul: as a matrix-vector
    // generic it would reduce down a strided column of the im2col buffer.
    linalg::ControlDropUnitDims control;
    control.controlFn = [](Operation *op) -> SmallVector<unsigned> {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || !linalg::isaContractionOpInterface(generic))
        return {};
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(generic);
      if (failed(dims))
        return {};
      SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
      SmallVector<unsigned> droppable;
      for (unsigned d = 0; d < ranges.size(); ++d)
        droppable.push_back(d);
      // Keep one M and one N dim even when they are unit.
      for (const SmallVector<unsigned, 2> &group : {dims->m, dims->n})
        if (!group.empty() &&
            llvm::all_of(group, [&](unsigned d) { return ranges[d] == 1; }))
          llvm::erase(droppable, group.back());
      return droppable;
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldUnitExtentDimsPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    SmallVector<linalg::GenericOp> contractions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (linalg::isaContractionOpInterface(op))
        contractions.push_back(op);
    });
    for (linalg::GenericOp op : contractions) {
      rewriter.setInsertionPoint(op);
      (void)linalg::specializeGenericOp(rewriter, op);
    }
  }
};

} // namespace
} // namespace kiln
