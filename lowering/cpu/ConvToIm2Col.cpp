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

/// Rewrites a static NCHW convolution as
///
///   cols[n, c, kh, kw, oh, ow] = x[n, c, oh*sh + kh*dh, ow*sw + kw*dw]
///   out[n, f, (oh, ow)] += w[f, (c, kh, kw)] * cols[n, (c, kh, kw), (oh, ow)]
///
/// Unlike upstream's rewrite, the gather keeps OH and OW as loops, so its
/// innermost loop walks an input row (contiguous at stride 1) with no
/// division or remainder per element; the collapses into the matmul view
/// are free. Batch 1 gives a named linalg.matmul.
LogicalResult rewriteNchwInIm2Col(RewriterBase &rewriter,
                                  linalg::Conv2DNchwFchwOp conv) {
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value out = conv.getOutputs()[0];
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  auto ot = dyn_cast<RankedTensorType>(out.getType());
  if (!xt || !wt || !ot || !xt.hasStaticShape() || !wt.hasStaticShape() ||
      !ot.hasStaticShape())
    return failure();
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  int64_t n = ot.getDimSize(0), f = ot.getDimSize(1);
  int64_t c = wt.getDimSize(1), kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  int64_t oh = ot.getDimSize(2), ow = ot.getDimSize(3);
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type elt = ot.getElementType();

  SmallVector<AffineExpr> d(6);
  bindDimsList(ctx, MutableArrayRef<AffineExpr>(d));
  AffineMap gatherMap =
      AffineMap::get(6, 0,
                     {d[0], d[1], d[4] * strides[0] + d[2] * dilations[0],
                      d[5] * strides[1] + d[3] * dilations[1]},
                     ctx);
  auto colsType = RankedTensorType::get({n, c, kh, kw, oh, ow}, elt);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, colsType.getShape(), elt);
  SmallVector<utils::IteratorType> parallel(6, utils::IteratorType::parallel);
  Value cols =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{colsType}, ValueRange{x}, ValueRange{empty},
          ArrayRef<AffineMap>{gatherMap,
                              AffineMap::getMultiDimIdentityMap(6, ctx)},
          parallel,
          [](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(b, l, args[0]);
          })
          .getResult(0);

  Value w2 = tensor::CollapseShapeOp::create(
      rewriter, loc, w, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  Operation *contraction;
  Value result;
  if (n == 1) {
    Value cols2 = tensor::CollapseShapeOp::create(
        rewriter, loc, cols,
        SmallVector<ReassociationIndices>{{0, 1, 2, 3}, {4, 5}});
    SmallVector<ReassociationIndices> outRe = {{0, 1}, {2, 3}};
    Value out2 = tensor::CollapseShapeOp::create(rewriter, loc, out, outRe);
    contraction =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{out2.getType()},
                                 ValueRange{w2, cols2}, ValueRange{out2});
    result = tensor::ExpandShapeOp::create(rewriter, loc, ot,
                                           contraction->getResult(0), outRe);
  } else {
    Value cols3 = tensor::CollapseShapeOp::create(
        rewriter, loc, cols,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    SmallVector<ReassociationIndices> outRe = {{0}, {1}, {2, 3}};
    Value out3 = tensor::CollapseShapeOp::create(rewriter, loc, out, outRe);
    // (n, f, p, k)
    SmallVector<AffineExpr> e(4);
    bindDimsList(ctx, MutableArrayRef<AffineExpr>(e));
    SmallVector<AffineMap> maps = {
        AffineMap::get(4, 0, {e[1], e[3]}, ctx),
        AffineMap::get(4, 0, {e[0], e[3], e[2]}, ctx),
        AffineMap::get(4, 0, {e[0], e[1], e[2]}, ctx)};
    SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    contraction = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out3.getType()}, ValueRange{w2, cols3},
        ValueRange{out3}, maps, iters,
        [](OpBuilder &b, Location l, ValueRange args) {
          Value p = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, arith::AddFOp::create(b, l, args[2], p).getResult());
        });
    result = tensor::ExpandShapeOp::create(rewriter, loc, ot,
                                           contraction->getResult(0), outRe);
  }
  // A schedule chosen for the convolution is the contraction's schedule.
  if (Attribute schedule = conv->getAttr(kScheduleAttrName))
    contraction->setAttr(kScheduleAttrName, schedule);
  rewriter.replaceOp(conv, result);
  return success();
}

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
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
        if (!isa<FloatType>(
                getElementTypeOrSelf(conv.getOutputs()[0].getType())) ||
            failed(rewriteNchwInIm2Col(rewriter, conv)))
          (void)linalg::rewriteInIm2Col(rewriter, conv);
      } else
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
