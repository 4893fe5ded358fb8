//===- ControlFlow.cpp - kiln.graph If to scf.if, Scan to scf.for ---------===//
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

/// Scan as an scf.for over the trip count: states and scan-output
/// accumulators are loop-carried; each step slices the scan inputs (from the
/// end for direction 1), runs the body, and inserts its output slices.
struct ScanLowering : OpConversionPattern<g::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t numScans = op.getNumScanInputs();
    ValueRange inputs = adaptor.getInputs();
    int64_t numStates = inputs.size() - numScans;
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "unsupported result types");
    ArrayRef<int64_t> inAxes = op.getScanInputAxes(),
                      inDirs = op.getScanInputDirections(),
                      outAxes = op.getScanOutputAxes(),
                      outDirs = op.getScanOutputDirections();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value trips =
        tensor::DimOp::create(rewriter, loc, inputs[numStates], inAxes[0]);
    SmallVector<Value> inits(inputs.take_front(numStates));
    for (int64_t i = 0; i < numStates; ++i)
      if (inits[i].getType() != types[i])
        inits[i] = tensor::CastOp::create(rewriter, loc, types[i], inits[i]);
    for (Type t : ArrayRef(types).drop_front(numStates)) {
      auto rt = cast<RankedTensorType>(t);
      SmallVector<Value> dyn;
      for (int64_t d = 0; d < rt.getRank(); ++d)
        if (rt.isDynamicDim(d))
          dyn.push_back(trips); // only the scan axis can be unknown here
      inits.push_back(tensor::EmptyOp::create(rewriter, loc, rt, dyn));
    }
    if (llvm::any_of(ArrayRef(types).drop_front(numStates), [](Type t) {
          return llvm::count_if(cast<RankedTensorType>(t).getShape(),
                                ShapedType::isDynamic) > 1;
        }))
      return rewriter.notifyMatchFailure(op, "scan outputs with dynamic "
                                             "slice dims");
    auto loop = scf::ForOp::create(rewriter, loc, zero, trips, one, inits);
    Block *loopBody = loop.getBody();
    rewriter.setInsertionPointToStart(loopBody);
    Value t = loop.getInductionVar();
    Value last = arith::SubIOp::create(rewriter, loc, trips, one);
    Value back = arith::SubIOp::create(rewriter, loc, last, t);
    auto slice = [&](Value source, int64_t axis, Value at,
                     ArrayRef<int64_t> sliceShape) {
      auto rt = cast<RankedTensorType>(source.getType());
      SmallVector<OpFoldResult> offsets(rt.getRank(), rewriter.getIndexAttr(0)),
          sizes, strides(rt.getRank(), rewriter.getIndexAttr(1));
      for (int64_t d = 0; d < rt.getRank(); ++d)
        sizes.push_back(d == axis
                            ? OpFoldResult(rewriter.getIndexAttr(1))
                            : tensor::getMixedSize(rewriter, loc, source, d));
      offsets[axis] = at;
      return std::make_tuple(offsets, sizes, strides);
    };
    SmallVector<Value> args(loop.getRegionIterArgs().take_front(numStates));
    for (int64_t j = 0; j < numScans; ++j) {
      Value in = inputs[numStates + j];
      auto rt = cast<RankedTensorType>(in.getType());
      SmallVector<int64_t> shape(rt.getShape());
      shape.erase(shape.begin() + inAxes[j]);
      auto [offsets, sizes, strides] =
          slice(in, inAxes[j], inDirs[j] ? back : t, shape);
      auto sliceType = RankedTensorType::get(shape, rt.getElementType());
      Value s = tensor::ExtractSliceOp::create(rewriter, loc, sliceType, in,
                                               offsets, sizes, strides);
      Type want = op.getBody().getArgument(numStates + j).getType();
      if (auto converted = getTypeConverter()->convertType(want))
        if (converted != s.getType())
          s = tensor::CastOp::create(rewriter, loc, converted, s);
      args.push_back(s);
    }
    for (auto [i, a] : llvm::enumerate(args))
      if (Type want = getTypeConverter()->convertType(
              op.getBody().getArgument(i).getType());
          want && want != a.getType())
        args[i] = tensor::CastOp::create(rewriter, loc, want, a);
    Block &body = op.getBody().front();
    auto yield = cast<g::YieldOp>(body.getTerminator());
    rewriter.mergeBlocks(&body, loopBody, args);
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next;
    for (int64_t i = 0; i < numStates; ++i) {
      Value v = yield.getValues()[i];
      if (v.getType() != types[i])
        v = tensor::CastOp::create(rewriter, loc, types[i], v);
      next.push_back(v);
    }
    for (int64_t k = 0; k < (int64_t)outAxes.size(); ++k) {
      Value acc = loop.getRegionIterArgs()[numStates + k];
      Value v = yield.getValues()[numStates + k];
      auto [offsets, sizes, strides] =
          slice(acc, outAxes[k], outDirs[k] ? back : t, {});
      next.push_back(tensor::InsertSliceOp::create(rewriter, loc, v, acc,
                                                   offsets, sizes, strides));
    }
    scf::YieldOp::create(rewriter, loc, next);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

} // namespace

void populateControlFlowLoweringPatterns(GraphTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<IfLowering, ScanLowering, YieldLowering>(converter,
                                                        patterns.getContext());
}

} // namespace kiln
