//===- Einsum.cpp - kiln.graph Einsum to linalg ---------------------------===//
//
// One linalg.generic: a loop per label, the output's labels parallel and the
// others reductions; each input reads its dims through its labels (a
// broadcast extent-1 dim reads index 0) and the body adds the product of
// the inputs to the accumulator.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Einsum.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

struct EinsumLowering : OpConversionPattern<g::EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getOutput().getType()));
    if (!type || !isa<FloatType, IntegerType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a ranked numeric result");
    ValueRange inputs = adaptor.getInputs();
    SmallVector<int64_t> ranks;
    for (Value v : inputs) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return rewriter.notifyMatchFailure(op, "needs ranked inputs");
      ranks.push_back(t.getRank());
    }
    FailureOr<g::EinsumSpec> spec =
        g::parseEinsum(std::nullopt, op.getEquation(), ranks);
    if (failed(spec))
      return rewriter.notifyMatchFailure(op, "bad equation");
    auto extent = g::getEinsumExtents(std::nullopt, inputs, spec->inputs,
                                      spec->numLabels);
    if (failed(extent))
      return rewriter.notifyMatchFailure(op, "label extents differ");

    // Loop order: output labels, then the reduced ones.
    SmallVector<int64_t> loopOf(spec->numLabels, -1);
    unsigned numLoops = 0;
    for (unsigned l : spec->output)
      loopOf[l] = numLoops++;
    SmallVector<utils::IteratorType> iters(numLoops,
                                           utils::IteratorType::parallel);
    for (unsigned l = 0; l < spec->numLabels; ++l)
      if (loopOf[l] < 0) {
        loopOf[l] = numLoops++;
        iters.push_back(utils::IteratorType::reduction);
      }
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps;
    for (auto [v, dims] : llvm::zip(inputs, spec->inputs)) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<AffineExpr> exprs;
      for (auto [i, l] : llvm::enumerate(dims)) {
        bool broadcast = t.getDimSize(i) == 1 && (*extent)[l] != 1;
        exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(loopOf[l], ctx));
      }
      maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (unsigned l : spec->output)
      outExprs.push_back(getAffineDimExpr(loopOf[l], ctx));
    maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));

    Location loc = op.getLoc();
    SmallVector<Value> dyn;
    for (auto [i, l] : llvm::enumerate(spec->output)) {
      if (!type.isDynamicDim(i))
        continue;
      Value d;
      for (auto [v, dims] : llvm::zip(inputs, spec->inputs))
        for (auto [j, m] : llvm::enumerate(dims))
          if (!d && m == l &&
              cast<RankedTensorType>(v.getType()).getDimSize(j) != 1)
            d = tensor::DimOp::create(rewriter, loc, v, j);
      dyn.push_back(d);
    }
    Type elt = type.getElementType();
    bool isFloat = isa<FloatType>(elt);
    Value init = linalg::FillOp::create(
                     rewriter, loc, createScalarConstant(rewriter, loc, elt, 0),
                     ValueRange{tensor::EmptyOp::create(
                         rewriter, loc, type.getShape(), elt, dyn)})
                     .getResult(0);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, inputs, init, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value p = a[0];
              for (Value v : a.drop_front().drop_back())
                p = isFloat ? Value(arith::MulFOp::create(b, l, p, v))
                            : Value(arith::MulIOp::create(b, l, p, v));
              Value s = isFloat
                            ? Value(arith::AddFOp::create(b, l, a.back(), p))
                            : Value(arith::AddIOp::create(b, l, a.back(), p));
              linalg::YieldOp::create(b, l, s);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateEinsumLoweringPatterns(GraphTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<EinsumLowering>(converter, patterns.getContext());
}

} // namespace kiln
