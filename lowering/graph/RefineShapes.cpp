//===- RefineShapes.cpp - Tighten result types after folding --------------===//

#include "dialects/graph/GraphDialect.h"
#include "lowering/graph/Passes.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_REFINESHAPES
#include "lowering/graph/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// `candidate` if it has the same element type as `current` and every dim
/// static in `current` agrees, and it is strictly more static; else null.
static Type moreStatic(Type current, Type candidate) {
  auto cur = dyn_cast<ShapedType>(current);
  auto cand = dyn_cast<RankedTensorType>(candidate);
  if (!cur || !cand || cur.getElementType() != cand.getElementType() ||
      current == candidate)
    return {};
  if (!cur.hasRank())
    return cand;
  if (cur.getRank() != cand.getRank())
    return {};
  bool gained = false;
  for (auto [c, n] : llvm::zip(cur.getShape(), cand.getShape())) {
    if (!ShapedType::isDynamic(c) && c != n)
      return {};
    gained |= ShapedType::isDynamic(c) && !ShapedType::isDynamic(n);
  }
  return gained ? cand : Type();
}

/// One pass over the body in program order; returns true if a type changed.
static bool refineOnce(func::FuncOp fn) {
  bool changed = false;
  fn.walk([&](InferTypeOpInterface op) {
    if (!isa<graph::GraphDialect>(op->getDialect()))
      return;
    SmallVector<Type> inferred;
    if (failed(op.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)) ||
        inferred.size() != op->getNumResults())
      return;
    for (auto [result, type] : llvm::zip(op->getResults(), inferred))
      if (Type t = moreStatic(result.getType(), type)) {
        result.setType(t);
        changed = true;
      }
  });
  // Function results follow the values returned.
  auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
  SmallVector<Type> results(fn.getFunctionType().getResults());
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    if (Type t = moreStatic(results[i], v.getType())) {
      results[i] = t;
      changed = true;
    }
  fn.setFunctionType(
      FunctionType::get(fn.getContext(), fn.getArgumentTypes(), results));
  return changed;
}

struct RefineShapesPass : impl::RefineShapesBase<RefineShapesPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    RewritePatternSet patterns(&getContext());
    for (RegisteredOperationName name : getContext().getRegisteredOperations())
      if (isa<graph::GraphDialect>(name.getDialect()))
        name.getCanonicalizationPatterns(patterns, &getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Each round folds what the previous one made constant. A network whose
    // every block computes its reshapes from the previous block's shape
    // (Swin's window partitions) needs a round per block, so rounds go on to
    // the fixpoint; each one makes some type more static, which bounds them.
    for (;;) {
      (void)applyPatternsGreedily(fn, frozen);
      if (!refineOnce(fn))
        break;
    }
  }
};

} // namespace
} // namespace kiln
