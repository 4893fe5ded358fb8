//===- ExpandShapeToReinterpretCast.cpp - Dynamic expands as casts --------===//

#include "lowering/bufferization/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_EXPANDSHAPETOREINTERPRETCAST
#include "lowering/bufferization/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// More than one dynamic dim in some reassociation group of `op`.
bool hasAmbiguousGroup(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  for (const ReassociationIndices &group : op.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t d) { return type.isDynamicDim(d); }) >
        1)
      return true;
  return false;
}

struct ExpandShapeToReinterpretCastPass
    : impl::ExpandShapeToReinterpretCastBase<ExpandShapeToReinterpretCastPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](memref::ExpandShapeOp op) {
      MemRefType src = op.getSrcType(), dst = op.getResultType();
      if (!src.getLayout().isIdentity() || !dst.getLayout().isIdentity() ||
          !hasAmbiguousGroup(op))
        return;
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
      SmallVector<OpFoldResult> strides(sizes.size());
      // Row-major strides of the output shape, innermost first; static
      // where the extents after a dim are (as the identity layout says).
      auto asValue = [&](OpFoldResult v) -> Value {
        if (auto a = dyn_cast<Attribute>(v))
          return arith::ConstantIndexOp::create(rewriter, loc,
                                                cast<IntegerAttr>(a).getInt());
        return cast<Value>(v);
      };
      OpFoldResult stride = rewriter.getIndexAttr(1);
      for (int64_t d = sizes.size() - 1; d >= 0; --d) {
        strides[d] = stride;
        std::optional<int64_t> a = getConstantIntValue(stride),
                               b = getConstantIntValue(sizes[d]);
        if (a && b)
          stride = rewriter.getIndexAttr(*a * *b);
        else
          stride = arith::MulIOp::create(rewriter, loc, asValue(stride),
                                         asValue(sizes[d]))
                       .getResult();
      }
      rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
          op, dst, op.getSrc(), rewriter.getIndexAttr(0), sizes, strides);
    });
  }
};

} // namespace
} // namespace kiln
