//===- UnshareInitializers.cpp - One initializer per destination ----------===//
//
// CSE merges equal initializers: every bias-free 64-channel 56x56
// convolution of a ResNet starts from the same zero fill, every 3x3
// convolution's padded input from the same zero-filled buffer, and equal
// bias vectors give one broadcast. One-shot bufferization then keeps the
// shared value intact and copies it into a new buffer for each op that
// writes into it: a full pass over the buffer, plus the initializer's own
// pass, where a fill or broadcast written in place costs only the latter.
// Recomputing the initializer for each destination is never more work than
// the copy it replaces, and lets later passes fuse it into its user.
//
//===----------------------------------------------------------------------===//

#include "lowering/bufferization/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_UNSHAREINITIALIZERS
#include "lowering/bufferization/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// A fill or broadcast on tensors: cheap to recompute, reads no buffer that
/// could change in between.
bool isInitializer(Operation *op) {
  if (!isa<linalg::FillOp, linalg::BroadcastOp>(op) || op->getNumResults() != 1)
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return linalgOp.hasPureTensorSemantics() &&
         llvm::all_of(linalgOp.getDpsInputs(), [](Value v) {
           return !isa<TensorType>(v.getType()) ||
                  v.getDefiningOp<arith::ConstantOp>();
         });
}

/// An initializer's result, or a reshape of one (a product's init is often
/// the collapsed bias broadcast).
bool isInitializerValue(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
    return isInitializerValue(def->getOperand(0));
  return isInitializer(def);
}

/// A copy of the ops computing `v` (an initializer value) before `before`.
Value cloneChain(OpBuilder &b, Value v, Operation *before) {
  Operation *def = v.getDefiningOp();
  IRMapping map;
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
    map.map(def->getOperand(0), cloneChain(b, def->getOperand(0), before));
  b.setInsertionPoint(before);
  return b.clone(*def, map)->getResult(0);
}

struct UnshareInitializersPass
    : impl::UnshareInitializersBase<UnshareInitializersPass> {
  void runOnOperation() override {
    SmallVector<Value> shared;
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() == 1 && isInitializerValue(op->getResult(0)) &&
          !op->getResult(0).hasOneUse() && !op->getResult(0).use_empty())
        shared.push_back(op->getResult(0));
    });
    OpBuilder b(&getContext());
    SmallVector<Operation *> maybeDead;
    for (Value v : shared) {
      SmallVector<OpOperand *> destinations;
      for (OpOperand &use : v.getUses()) {
        auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (dps && dps.isDpsInit(&use))
          destinations.push_back(&use);
      }
      for (OpOperand *use : destinations)
        use->set(cloneChain(b, v, use->getOwner()));
      maybeDead.push_back(v.getDefiningOp());
    }
    // The original chains, where no use is left (later ones first: they
    // use the earlier).
    llvm::SmallPtrSet<Operation *, 8> erased;
    for (Operation *op : llvm::reverse(maybeDead))
      while (op && !erased.contains(op) && op->use_empty()) {
        Operation *src = isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)
                             ? op->getOperand(0).getDefiningOp()
                             : nullptr;
        erased.insert(op);
        op->erase();
        op = src;
      }
  }
};

} // namespace
} // namespace kiln
