//===- ControlFlow.cpp - If to scf.if, Scan and Loop to scf loops ---------===//
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
#include "mlir/IR/Matchers.h"

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

/// The one element of a scalar tensor.
static Value element(OpBuilder &b, Location loc, Value t) {
  auto rt = cast<RankedTensorType>(t.getType());
  SmallVector<Value> zeros(rt.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, t, zeros);
}

/// Loop as an scf.while over (iteration, condition, values) when no scan
/// output needs the trip count up front; with scan outputs (which the body
/// must not end early: its condition is the input's or constant true, as the
/// importer's static count assumed), as an scf.for over min-trip counts
/// filling one slice of each accumulator per step.
struct LoopLowering : OpConversionPattern<g::LoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::LoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "unsupported result types");
    int64_t numValues = adaptor.getInits().size();
    int64_t numScans = (int64_t)types.size() - numValues;
    Block &body = op.getBody().front();
    auto yield = cast<g::YieldOp>(body.getTerminator());
    bool hasMax = !isa<NoneType>(adaptor.getMaxTripCount().getType());
    bool hasCond = !isa<NoneType>(adaptor.getCond().getType());
    Value maxTrips =
        hasMax ? arith::IndexCastOp::create(
                     rewriter, loc, rewriter.getIndexType(),
                     element(rewriter, loc, adaptor.getMaxTripCount()))
                     .getResult()
               : Value();
    Value condInit = hasCond ? element(rewriter, loc, adaptor.getCond())
                             : arith::ConstantIntOp::create(
                                   rewriter, loc, rewriter.getI1Type(), 1)
                                   .getResult();
    SmallVector<Value> inits;
    for (auto [v, t] : llvm::zip(adaptor.getInits(), types))
      inits.push_back(
          v.getType() == t ? v : tensor::CastOp::create(rewriter, loc, t, v));
    auto scalarTensor = [&](OpBuilder &b, Value v) {
      return tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
    };
    auto castTo = [&](OpBuilder &b, Value v, Type t) -> Value {
      return v.getType() == t ? v : tensor::CastOp::create(b, loc, t, v);
    };
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);

    if (numScans == 0) {
      SmallVector<Type> carried = {rewriter.getIndexType(),
                                   rewriter.getI1Type()};
      carried.append(types.begin(), types.end());
      SmallVector<Value> start = {zero, condInit};
      start.append(inits);
      auto loop = scf::WhileOp::create(rewriter, loc, carried, start);
      SmallVector<Location> locs(carried.size(), loc);
      Block *before =
          rewriter.createBlock(&loop.getBefore(), {}, carried, locs);
      Value go = before->getArgument(1);
      if (hasMax)
        go = arith::AndIOp::create(
            rewriter, loc, go,
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                  before->getArgument(0), maxTrips));
      scf::ConditionOp::create(rewriter, loc, go, before->getArguments());
      Block *after = rewriter.createBlock(&loop.getAfter(), {}, carried, locs);
      Value iter = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(), after->getArgument(0));
      SmallVector<Value> args = {scalarTensor(rewriter, iter),
                                 scalarTensor(rewriter, after->getArgument(1))};
      for (int64_t i = 0; i < numValues; ++i)
        args.push_back(castTo(rewriter, after->getArgument(2 + i),
                              body.getArgument(2 + i).getType()));
      rewriter.mergeBlocks(&body, after, args);
      rewriter.setInsertionPoint(yield);
      SmallVector<Value> next = {
          arith::AddIOp::create(rewriter, loc, after->getArgument(0), one),
          element(rewriter, loc, yield.getValues()[0])};
      for (int64_t i = 0; i < numValues; ++i)
        next.push_back(castTo(rewriter, yield.getValues()[1 + i], types[i]));
      scf::YieldOp::create(rewriter, loc, next);
      rewriter.eraseOp(yield);
      rewriter.replaceOp(op, loop.getResults().drop_front(2));
      return success();
    }

    if (!hasMax)
      return rewriter.notifyMatchFailure(
          op, "scan outputs need a maximum trip count");
    // Scan outputs' length must not depend on data: the body's condition is
    // its input's or a constant true.
    Value condOut = yield.getValues()[0];
    DenseElementsAttr attr;
    bool runsAll =
        condOut == body.getArgument(1) ||
        (matchPattern(condOut, m_Constant(&attr)) &&
         attr.getNumElements() == 1 && attr.getElementType().isInteger(1) &&
         *attr.getValues<bool>().begin());
    if (!runsAll)
      return rewriter.notifyMatchFailure(
          op, "scan outputs whose length depends on data");
    // The body cannot end the loop early (importer), so the loop runs
    // max_trip_count times, or not at all when cond starts false.
    Value trips = arith::SelectOp::create(
        rewriter, loc, condInit,
        arith::MaxSIOp::create(rewriter, loc, maxTrips, zero), zero);
    SmallVector<Value> carried(inits);
    for (Type t : ArrayRef(types).drop_front(numValues)) {
      auto rt = cast<RankedTensorType>(t);
      if (llvm::count_if(rt.getShape().drop_front(), ShapedType::isDynamic))
        return rewriter.notifyMatchFailure(op, "scan outputs with dynamic "
                                               "slice dims");
      SmallVector<Value> dyn;
      if (rt.isDynamicDim(0))
        dyn.push_back(trips);
      carried.push_back(tensor::EmptyOp::create(rewriter, loc, rt, dyn));
    }
    auto loop = scf::ForOp::create(rewriter, loc, zero, trips, one, carried);
    Block *loopBody = loop.getBody();
    rewriter.setInsertionPointToStart(loopBody);
    Value t = loop.getInductionVar();
    Value iter =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), t);
    Value yes =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 1);
    SmallVector<Value> args = {scalarTensor(rewriter, iter),
                               scalarTensor(rewriter, yes)};
    for (int64_t i = 0; i < numValues; ++i)
      args.push_back(castTo(rewriter, loop.getRegionIterArgs()[i],
                            body.getArgument(2 + i).getType()));
    rewriter.mergeBlocks(&body, loopBody, args);
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next;
    for (int64_t i = 0; i < numValues; ++i)
      next.push_back(castTo(rewriter, yield.getValues()[1 + i], types[i]));
    for (int64_t k = 0; k < numScans; ++k) {
      Value acc = loop.getRegionIterArgs()[numValues + k];
      auto rt = cast<RankedTensorType>(acc.getType());
      SmallVector<OpFoldResult> offsets(rt.getRank(), rewriter.getIndexAttr(0)),
          sizes, strides(rt.getRank(), rewriter.getIndexAttr(1));
      offsets[0] = t;
      sizes.push_back(rewriter.getIndexAttr(1));
      for (int64_t d = 1; d < rt.getRank(); ++d)
        sizes.push_back(rewriter.getIndexAttr(rt.getDimSize(d)));
      Value slice = yield.getValues()[1 + numValues + k];
      auto sliceType = RankedTensorType::get(rt.getShape().drop_front(),
                                             rt.getElementType());
      if (slice.getType() != sliceType)
        slice = tensor::CastOp::create(rewriter, loc, sliceType, slice);
      next.push_back(tensor::InsertSliceOp::create(rewriter, loc, slice, acc,
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
  patterns.add<IfLowering, LoopLowering, ScanLowering, YieldLowering>(
      converter, patterns.getContext());
}

} // namespace kiln
