//===- ShareConcatPrefixes.cpp - Concats built on earlier concats ---------===//
//
// DenseNet-style blocks concatenate every earlier feature map again in each
// layer: Concat(f0, f1), Concat(f0, f1, f2), ... Lowered as they are, each
// concat copies all of its inputs, so a block of n layers copies O(n^2)
// feature maps (and emits a copy kernel for each). Where a concat's leading
// inputs are exactly those of an earlier concat along the same axis, it
// takes that concat instead: Concat(Concat(f0, f1), f2). The chain then
// bufferizes in place, each concat a leading slice of the next, so every
// feature map is written once, by its producer.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/graph/Passes.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
#define GEN_PASS_DEF_SHARECONCATPREFIXES
#include "lowering/graph/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// The earlier concat (before `op` in its block) along the same axis whose
/// inputs are the longest proper leading run of `op`'s, of two inputs or
/// more; null if none.
g::ConcatOp longestPrefix(g::ConcatOp op) {
  OperandRange inputs = op.getInputs();
  g::ConcatOp best;
  size_t bestSize = 1;
  for (Operation *user : inputs.front().getUsers()) {
    auto prefix = dyn_cast<g::ConcatOp>(user);
    if (!prefix || prefix == op || prefix.getAxis() != op.getAxis() ||
        prefix->getBlock() != op->getBlock() || !prefix->isBeforeInBlock(op))
      continue;
    OperandRange lead = prefix.getInputs();
    if (lead.size() <= bestSize || lead.size() >= inputs.size() ||
        !llvm::equal(lead, inputs.take_front(lead.size())))
      continue;
    best = prefix;
    bestSize = lead.size();
  }
  return best;
}

struct ShareConcatPrefixesPass
    : impl::ShareConcatPrefixesBase<ShareConcatPrefixesPass> {
  void runOnOperation() override {
    SmallVector<g::ConcatOp> concats;
    getOperation().walk([&](g::ConcatOp op) { concats.push_back(op); });
    // Last first, so that every candidate prefix still has its own inputs.
    for (g::ConcatOp op : llvm::reverse(concats)) {
      if (op.getInputs().size() < 3)
        continue;
      g::ConcatOp prefix = longestPrefix(op);
      if (!prefix)
        continue;
      SmallVector<Value> inputs{prefix.getResult()};
      llvm::append_range(inputs,
                         op.getInputs().drop_front(prefix.getInputs().size()));
      op.getInputsMutable().assign(inputs);
    }
  }
};

} // namespace
} // namespace kiln
