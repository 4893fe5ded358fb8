//===- HoistAccumulator.cpp - accumulators kept in registers over loops -===//
//
// A vectorized register tile reads C, accumulates over its K loop and
// writes C back; kept in memory, every K step would store and reload the
// accumulator. Upstream's hoisting refuses transfers on subviews (they might
// alias); here the loop is the contraction kernel's own K loop over a
// linalg op whose init cannot alias its inputs, so only the loop's own
// accesses need checking.
//
// A row reduction's loop then carries the lanes of its row vector rather
// than the reduced element: a horizontal reduction a row vector (with
// AVX2, maximumf's is a dozen branchy scalar steps) made softmax's row
// maximum and sum a third of its time each (ViT-B/16's 197-wide rows).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

namespace kiln {

scf::ForOp cpu::hoistAccumulator(RewriterBase &rewriter, scf::ForOp loop) {
  // The vectorizer materializes its constants inside the loop.
  moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
  vector::TransferWriteOp write;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<vector::TransferReadOp, vector::ContractionOp>(op) ||
        isMemoryEffectFree(&op))
      continue;
    if (write || !isa<vector::TransferWriteOp>(op))
      return nullptr;
    write = cast<vector::TransferWriteOp>(op);
  }
  if (!write || !loop.isDefinedOutsideOfLoop(write.getBase()) ||
      !llvm::all_of(write.getIndices(),
                    [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }))
    return nullptr;
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
    return nullptr;
  rewriter.moveOpBefore(read, loop);
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, read.getResult(), /*replaceInitOperandUsesInLoop=*/true,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{write.getValueToStore()};
      });
  if (failed(grown))
    return nullptr;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  rewriter.moveOpAfter(write, newLoop);
  rewriter.modifyOpInPlace(write, [&] {
    write.getValueToStoreMutable().assign(newLoop.getResults().back());
  });
  return newLoop;
}

/// The element that `kind` leaves unchanged, as a splat of `type`.
static Value neutralSplat(OpBuilder &b, Location loc,
                          vector::CombiningKind kind, VectorType type) {
  Type elt = type.getElementType();
  TypedAttr value;
  using K = vector::CombiningKind;
  if (auto f = dyn_cast<FloatType>(elt)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case K::ADD:
      value = b.getFloatAttr(f, APFloat::getZero(sem, /*Negative=*/true));
      break;
    case K::MUL:
      value = b.getFloatAttr(f, APFloat::getOne(sem));
      break;
    case K::MAXIMUMF:
    case K::MAXNUMF:
      value = b.getFloatAttr(f, APFloat::getInf(sem, /*Negative=*/true));
      break;
    case K::MINIMUMF:
    case K::MINNUMF:
      value = b.getFloatAttr(f, APFloat::getInf(sem));
      break;
    default:
      return nullptr;
    }
  } else if (auto i = dyn_cast<IntegerType>(elt)) {
    unsigned w = i.getWidth();
    APInt v;
    switch (kind) {
    case K::ADD:
    case K::OR:
    case K::XOR:
    case K::MAXUI:
      v = APInt::getZero(w);
      break;
    case K::MUL:
      v = APInt(w, 1);
      break;
    case K::AND:
    case K::MINUI:
      v = APInt::getAllOnes(w);
      break;
    case K::MAXSI:
      v = APInt::getSignedMinValue(w);
      break;
    case K::MINSI:
      v = APInt::getSignedMaxValue(w);
      break;
    default:
      return nullptr;
    }
    value = b.getIntegerAttr(elt, v);
  } else {
    return nullptr;
  }
  return arith::ConstantOp::create(b, loc, type,
                                   DenseElementsAttr::get(type, value));
}

scf::ForOp cpu::accumulateLanes(RewriterBase &rewriter, scf::ForOp loop) {
  if (!loop || loop.getNumRegionIterArgs() != 1)
    return loop;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto reduce =
      yield.getOperand(0).getDefiningOp<vector::MultiDimReductionOp>();
  BlockArgument acc = loop.getRegionIterArgs()[0];
  if (!reduce || reduce.getAcc() != acc || !reduce->hasOneUse() ||
      reduce->getParentOp() != loop.getOperation() || !acc.hasOneUse())
    return loop;
  VectorType type = reduce.getSourceVectorType();
  Location loc = reduce.getLoc();
  rewriter.setInsertionPoint(loop);
  Value neutral = neutralSplat(rewriter, loc, reduce.getKind(), type);
  if (!neutral)
    return loop;
  Value init = loop.getInitArgs()[0];
  // The lanes travel as the iter_arg: one elementwise combine per row
  // vector, one horizontal reduction after the loop.
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, neutral, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> lanes) {
        return SmallVector<Value>{vector::makeArithReduction(
            b, l, reduce.getKind(), reduce.getSource(), lanes[0])};
      });
  if (failed(replaced))
    return loop;
  auto grown = cast<scf::ForOp>(replaced->getOperation());
  rewriter.setInsertionPointAfter(grown);
  auto total = vector::MultiDimReductionOp::create(
      rewriter, loc, grown.getResults()[1], init, reduce.getReductionMask(),
      reduce.getKind());
  rewriter.replaceAllUsesWith(grown.getResults()[0], total.getResult());
  // The old accumulator is dead now: the loop passes its init through.
  auto newYield = cast<scf::YieldOp>(grown.getBody()->getTerminator());
  Operation *oldReduce = newYield.getOperand(0).getDefiningOp();
  rewriter.modifyOpInPlace(
      newYield, [&] { newYield.setOperand(0, grown.getRegionIterArgs()[0]); });
  if (oldReduce && oldReduce->use_empty())
    rewriter.eraseOp(oldReduce);
  return grown;
}

} // namespace kiln
