//===- CollapseElementwiseDims.cpp - Long rows for elementwise loops ------===//
//
// Elementwise ops vectorize along their innermost loop (RowTiling), one row
// per vector register. In NCHW that loop is the image width: 7 or 14 at the
// end of a CNN, shorter than a 16-lane register, so such ops ran as scalar
// loops (a SiLU over 1152x7x7 took 11 times as long as over the same count
// of elements in one row). Dims that every operand reads contiguously are
// merged into one loop here, on tensors, so the row is H*W (or all of the
// tensor) long: `x[c, h, w] * s[c]` becomes `x[c, hw] * s[c]`, a plain
// `sigmoid(x) * x` one loop.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_COLLAPSEELEMENTWISEDIMS
#include "lowering/cpu/Passes.h.inc"

namespace {

constexpr int64_t kMinKeptWidth = 16;

/// The elementwise user of an NCHW convolution is applied per output block
/// when kiln-cpu-conv-to-im2col blocks it, which needs it in the
/// convolution's shape; a depthwise convolution's vector kernel computes it
/// in that shape too, for images at least kMinKeptWidth wide. (Grouped
/// convolutions take other paths: their users are collapsed like any
/// other.)
bool readsBlockableConvolution(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperands(), [](Value v) {
    if (v.getDefiningOp<linalg::Conv2DNchwFchwOp>())
      return true;
    // Rows shorter than a 512-bit vector would run as scalar loops where
    // the kernel cannot take the op (7 and 14 pixels wide).
    auto depthwise = v.getDefiningOp<linalg::DepthwiseConv2DNchwChwOp>();
    return depthwise &&
           cast<ShapedType>(v.getType()).getDimSize(3) >= kMinKeptWidth;
  });
}

/// The maximal runs of adjacent loops that every operand reads contiguously,
/// or nothing when no run has two loops.
SmallVector<ReassociationIndices> collapsibleDims(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic.hasPureTensorSemantics() || op.getNumLoops() < 2 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      readsBlockableConvolution(op) ||
      llvm::any_of(op.getIndexingMapsArray(), [](AffineMap m) {
        // Upstream's contiguity check reads every result as a loop dim, so
        // broadcasts of a size-1 dim (a constant 0 result) are left alone.
        return !m.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return {};
  // A graph output is bufferized in place only when its producer writes the
  // output buffer itself, not through a reshape.
  if (llvm::any_of(op->getUsers(), [](Operation *user) {
        return isa<bufferization::MaterializeInDestinationOp>(user);
      }))
    return {};
  // Bodies that read their loop indices would see the merged index.
  bool indexes = false;
  op.getBlock()->walk([&](linalg::IndexOp) { indexes = true; });
  if (indexes)
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<ReassociationIndices> groups = {{0}};
  bool merged = false;
  for (int64_t d = 1, e = op.getNumLoops(); d < e; ++d) {
    ReassociationIndices longer = groups.back();
    longer.push_back(d);
    if (linalg::areDimSequencesPreserved(maps, {longer})) {
      groups.back() = longer;
      merged = true;
    } else {
      groups.push_back({d});
    }
  }
  if (!merged)
    return {};
  // collapseOpIterationDims takes the runs of more than one loop.
  SmallVector<ReassociationIndices> runs;
  for (ReassociationIndices &g : groups)
    if (g.size() > 1)
      runs.push_back(g);
  return runs;
}

struct CollapseElementwiseDimsPass
    : impl::CollapseElementwiseDimsBase<CollapseElementwiseDimsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(patterns, collapsibleDims);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
