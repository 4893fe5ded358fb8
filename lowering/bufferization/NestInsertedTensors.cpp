//===- NestInsertedTensors.cpp - Build an inserted tensor in its slot -----===//
//
// A concat is a chain of tensor.insert_slice ops into a tensor.empty.
// Empty-tensor elimination builds each inserted producer's result in its
// slot, and an inserted concat in its slot too where the outer destination
// comes first, but it rewrites one use of an empty at a time: when the
// outermost concat goes into the model's output buffer, the inner ones stay
// in slots of the empty it started from, a buffer of their own that is then
// copied. Here, after that elimination, a tensor inserted into a slice of
// another, built by inserts into a tensor.empty, gets that slice instead
// (outer inserts first, so that a chain of concats nests into one buffer),
// and a slot of an empty that holds the inner tensor becomes that slot of
// the outer destination. Undefined contents stay undefined, so this is always
// correct; bufferization then finds the inner inserts in place and the
// outer insert a no-op.
//
//===----------------------------------------------------------------------===//

#include "lowering/bufferization/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_NESTINSERTEDTENSORS
#include "lowering/bufferization/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// The operand an insert_slice chain ending in `v` starts from: the
/// destination of its first insert (null if `v` is no insert).
OpOperand *chainStart(Value v) {
  OpOperand *start = nullptr;
  while (auto insert = v.getDefiningOp<tensor::InsertSliceOp>()) {
    start = &insert.getDestMutable();
    v = insert.getDest();
  }
  return start;
}

/// The value an insert_slice chain ending in `v` starts from.
Value chainRoot(Value v) {
  OpOperand *start = chainStart(v);
  return start ? start->get() : v;
}

/// Whether `v` is available before `op`, in `op`'s block.
bool availableBefore(Value v, Operation *op) {
  if (Operation *def = v.getDefiningOp())
    return def->getBlock() == op->getBlock() && def->isBeforeInBlock(op);
  return cast<BlockArgument>(v).getOwner() == op->getBlock();
}

bool isPlainInsert(tensor::InsertSliceOp op) {
  return op.getSourceType().getRank() == op.getDestType().getRank() &&
         llvm::all_of(op.getStaticStrides(),
                      [](int64_t s) { return s == 1; }) &&
         !llvm::any_of(op.getStaticOffsets(), ShapedType::isDynamic);
}

struct NestInsertedTensorsPass
    : impl::NestInsertedTensorsBase<NestInsertedTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::InsertSliceOp> inserts;
    getOperation().walk([&](tensor::InsertSliceOp op) {
      if (isPlainInsert(op))
        inserts.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (tensor::InsertSliceOp op : llvm::reverse(inserts)) {
      // Only the chain's use of an empty changes: CSE may have given the
      // same empty to other ops as their destination.
      OpOperand *start = chainStart(op.getSource());
      if (!start)
        continue;
      Value outer = chainRoot(op.getDest());
      // The inner chain starts from an empty: it gets its slot instead.
      if (auto empty = start->get().getDefiningOp<tensor::EmptyOp>()) {
        if (empty.getType() != op.getSourceType() ||
            !empty.getType().hasStaticShape() ||
            !availableBefore(outer, start->getOwner()))
          continue;
        rewriter.setInsertionPoint(start->getOwner());
        Value slot = tensor::ExtractSliceOp::create(
            rewriter, empty.getLoc(), empty.getType(), outer,
            op.getMixedOffsets(), op.getMixedSizes(), op.getMixedStrides());
        rewriter.modifyOpInPlace(start->getOwner(), [&] { start->set(slot); });
        continue;
      }
      // The inner chain starts from this very slot of an empty that stands
      // for the outer destination (empty-tensor elimination put the outer
      // chain into the output buffer and left the inner one on the empty):
      // the slot is taken from the outer destination.
      auto slot = start->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slot || !slot.getSource().getDefiningOp<tensor::EmptyOp>() ||
          slot.getSource() == outer ||
          slot.getSource().getType() != outer.getType() ||
          slot.getMixedOffsets() != op.getMixedOffsets() ||
          slot.getMixedSizes() != op.getMixedSizes() ||
          slot.getMixedStrides() != op.getMixedStrides() ||
          !availableBefore(outer, slot))
        continue;
      rewriter.modifyOpInPlace(slot,
                               [&] { slot.getSourceMutable().set(outer); });
    }
  }
};

} // namespace
} // namespace kiln
