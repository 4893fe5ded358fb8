//===- HoistAccumulator.cpp - register-tile accumulators across K ---------===//
//
// A vectorized register tile reads C, accumulates over its K loop and
// writes C back; kept in memory, every K step would store and reload the
// accumulator. Upstream's hoisting refuses transfers on subviews (they might
// alias); here the loop is the contraction kernel's own K loop over a
// linalg op whose init cannot alias its inputs, so only the loop's own
// accesses need checking.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

namespace kiln {

void cpu::hoistAccumulator(RewriterBase &rewriter, scf::ForOp loop) {
  // The vectorizer materializes its constants inside the loop.
  moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
  vector::TransferWriteOp write;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<vector::TransferReadOp, vector::ContractionOp>(op) ||
        isMemoryEffectFree(&op))
      continue;
    if (write || !isa<vector::TransferWriteOp>(op))
      return;
    write = cast<vector::TransferWriteOp>(op);
  }
  if (!write || !loop.isDefinedOutsideOfLoop(write.getBase()) ||
      !llvm::all_of(write.getIndices(),
                    [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }))
    return;
  vector::TransferReadOp read;
  for (auto r : loop.getBody()->getOps<vector::TransferReadOp>())
    if (r.getBase() == write.getBase() &&
        llvm::all_of_zip(
            r.getIndices(), write.getIndices(),
            [](Value a, Value b) { return isEqualConstantIntOrValue(a, b); }) &&
        r.getVectorType() == write.getVectorType() &&
        r.getPermutationMap() == write.getPermutationMap() && !r.getMask() &&
        !write.getMask())
      read = r;
  if (!read || !loop.isDefinedOutsideOfLoop(read.getPadding()))
    return;
  rewriter.moveOpBefore(read, loop);
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, read.getResult(), /*replaceInitOperandUsesInLoop=*/true,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{write.getValueToStore()};
      });
  if (failed(grown))
    return;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  rewriter.moveOpAfter(write, newLoop);
  rewriter.modifyOpInPlace(write, [&] {
    write.getValueToStoreMutable().assign(newLoop.getResults().back());
  });
}

} // namespace kiln
