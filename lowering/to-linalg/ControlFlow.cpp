//===- ControlFlow.cpp - kiln.graph If to scf.if --------------------------===//
//
// If becomes scf.if on the element of `cond`, with the branch regions moved
// over; each kiln_graph.Yield becomes scf.yield, casting values whose type is
// more static than the If's result.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

struct IfLowering : OpConversionPattern<g::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto condType = dyn_cast<RankedTensorType>(adaptor.getCond().getType());
    if (!condType)
      return rewriter.notifyMatchFailure(op, "needs a ranked cond");
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "unsupported result types");
    Location loc = op.getLoc();
    SmallVector<Value> zeros(condType.getRank(),
                             arith::ConstantIndexOp::create(rewriter, loc, 0));
    Value cond =
        tensor::ExtractOp::create(rewriter, loc, adaptor.getCond(), zeros);
    auto ifOp = scf::IfOp::create(rewriter, loc, types, cond,
                                  /*withElseRegion=*/true);
    for (auto [from, to] :
         {std::pair{&op.getThenBranch(), &ifOp.getThenRegion()},
          std::pair{&op.getElseBranch(), &ifOp.getElseRegion()}}) {
      while (!to->empty())
        rewriter.eraseBlock(&to->front());
      rewriter.inlineRegionBefore(*from, *to, to->end());
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct YieldLowering : OpConversionPattern<g::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto parent = dyn_cast<scf::IfOp>(op->getParentOp());
    if (!parent)
      return rewriter.notifyMatchFailure(op, "needs its If lowered first");
    SmallVector<Value> values;
    for (auto [v, type] :
         llvm::zip(adaptor.getValues(), parent.getResultTypes())) {
      Value x = v;
      if (x.getType() != type)
        x = tensor::CastOp::create(rewriter, op.getLoc(), type, x);
      values.push_back(x);
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, values);
    return success();
  }
};

} // namespace

void populateControlFlowLoweringPatterns(GraphTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<IfLowering, YieldLowering>(converter, patterns.getContext());
}

} // namespace kiln
