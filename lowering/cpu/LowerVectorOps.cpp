//===- LowerVectorOps.cpp - vector contractions to FMAs -------------------===//
//
// The register tiles of kiln-cpu-tile-and-vectorize are vector.contracts of
// mr x nr x kr. Lowering them to outer products gives one broadcast-FMA per
// accumulator row and K step, the shape a hand-written micro-kernel has;
// convert-vector-to-llvm's default (dot products) would reduce horizontally.
//
// The only multi-reductions are row tiles of reductions (innermost dim
// reduced): one horizontal vector.reduction per row, which the LLVM
// conversion may reassociate into a tree.
//
// Leading unit dims are not cast away: with those patterns in the set, an
// M = 1 register tile (1 x nr) rewrites broadcasts back and forth forever,
// and the transfer unit-dim patterns already leave 1-D transfers.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_LOWERVECTOROPS
#include "lowering/cpu/Passes.h.inc"

namespace {

struct LowerVectorOpsPass : impl::LowerVectorOpsBase<LowerVectorOpsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerReduction);
      // A transpose (a block of TransposeTiles.cpp, a transposed read) as
      // one shuffle of the flattened vector: element by element it took an
      // extract and an insert per element.
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::Shuffle1D);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorTransferDropUnitDimsPatterns(patterns);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      // Masked rows (RowTiling.cpp's maskedRowSizes): vector.mask around
      // transfers becomes masked transfers, then masked loads and stores.
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
      vector::populateVectorMaskOpLoweringPatterns(patterns);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    broadcastFromMemory();
  }

  /// Elements of a 1-D read that are only broadcast (a register tile's
  /// column of A, contiguous where A is an NCHW image read transposed) are
  /// loaded one by one, so that each broadcast reads memory: from one vector
  /// load LLVM took them apart with vbroadcastss and vshufps from registers,
  /// shuffles that share a port with the FMAs on AMD cores (a 1x1
  /// convolution 2048 -> 512 at 7x7 spent a fifth of its time right after
  /// them).
  void broadcastFromMemory() {
    SmallVector<vector::TransferReadOp> reads;
    getOperation().walk([&](vector::TransferReadOp read) {
      VectorType type = read.getVectorType();
      if (type.getRank() != 1 || read.getMask() ||
          !isa<MemRefType>(read.getBase().getType()) ||
          !read.getPermutationMap().isMinorIdentity() ||
          !read.getInBoundsValues()[0] || read->use_empty())
        return;
      for (Operation *user : read->getUsers()) {
        auto extract = dyn_cast<vector::ExtractOp>(user);
        if (!extract || extract.hasDynamicPosition() ||
            isa<VectorType>(extract.getType()) ||
            !llvm::all_of(extract->getUsers(), [](Operation *u) {
              return isa<vector::BroadcastOp>(u);
            }))
          return;
      }
      reads.push_back(read);
    });
    IRRewriter rewriter(&getContext());
    for (vector::TransferReadOp read : reads) {
      SmallVector<Operation *> users(read->getUsers());
      for (Operation *user : users) {
        auto extract = cast<vector::ExtractOp>(user);
        rewriter.setInsertionPoint(extract);
        SmallVector<Value> indices(read.getIndices());
        int64_t pos = extract.getStaticPosition()[0];
        if (pos != 0)
          indices.back() = arith::AddIOp::create(
              rewriter, extract.getLoc(), indices.back(),
              arith::ConstantIndexOp::create(rewriter, extract.getLoc(), pos));
        rewriter.replaceOpWithNewOp<memref::LoadOp>(extract, read.getBase(),
                                                    indices);
      }
      rewriter.eraseOp(read);
    }
  }
};

} // namespace
} // namespace kiln
