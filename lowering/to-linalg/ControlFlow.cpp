//===- ControlFlow.cpp - If to scf.if, Scan and Loop to scf loops ---------===//
//
// If becomes scf.if on the element of `cond`, with the branch regions moved
// over; each kiln_graph.Yield becomes scf.yield, casting values whose type is
// more static than the If's result.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/DataMovement.h"
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
    Value cond = extractScalar(rewriter, loc, adaptor.getCond());
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

/// `v` as `type`, through a tensor.cast when it has another (a more or less
/// static shape of the same tensor).
static Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  return v.getType() == type ? v : tensor::CastOp::create(b, loc, type, v);
}

/// Offsets, sizes and strides of the unit-thick slice of `t` at `at` along
/// `axis`.
static void unitSliceAlong(OpBuilder &b, Location loc, Value t, int64_t axis,
                           Value at, SmallVectorImpl<OpFoldResult> &offsets,
                           SmallVectorImpl<OpFoldResult> &sizes,
                           SmallVectorImpl<OpFoldResult> &strides) {
  int64_t rank = cast<RankedTensorType>(t.getType()).getRank();
  offsets.assign(rank, b.getIndexAttr(0));
  strides.assign(rank, b.getIndexAttr(1));
  sizes.clear();
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(d == axis ? OpFoldResult(b.getIndexAttr(1))
                              : tensor::getMixedSize(b, loc, t, d));
  offsets[axis] = at;
}

/// The slice of `t` at `at` along `axis`, without that axis.
static Value extractAlong(OpBuilder &b, Location loc, Value t, int64_t axis,
                          Value at) {
  auto rt = cast<RankedTensorType>(t.getType());
  SmallVector<int64_t> shape(rt.getShape());
  shape.erase(shape.begin() + axis);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  unitSliceAlong(b, loc, t, axis, at, offsets, sizes, strides);
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, rt.getElementType()), t, offsets,
      sizes, strides);
}

/// `acc` with `slice` (which lacks `axis`) written at `at` along `axis`.
static Value insertAlong(OpBuilder &b, Location loc, Value slice, Value acc,
                         int64_t axis, Value at) {
  auto rt = cast<RankedTensorType>(acc.getType());
  SmallVector<int64_t> shape(rt.getShape());
  shape.erase(shape.begin() + axis);
  slice =
      castTo(b, loc, slice, RankedTensorType::get(shape, rt.getElementType()));
  SmallVector<OpFoldResult> offsets, sizes, strides;
  unitSliceAlong(b, loc, acc, axis, at, offsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, slice, acc, offsets, sizes,
                                       strides);
}

/// Empty accumulators for scan outputs whose only unknown dim is the trip
/// count.
static void appendAccumulators(OpBuilder &b, Location loc, ArrayRef<Type> types,
                               Value trips, SmallVectorImpl<Value> &out) {
  for (Type t : types) {
    auto rt = cast<RankedTensorType>(t);
    SmallVector<Value> dyn;
    if (llvm::any_of(rt.getShape(), ShapedType::isDynamic))
      dyn.push_back(trips);
    out.push_back(tensor::EmptyOp::create(b, loc, rt, dyn));
  }
}

/// True when at most one dim of each type is dynamic (the trip count's).
static bool oneDynamicDimAtMost(ArrayRef<Type> types) {
  return llvm::all_of(types, [](Type t) {
    return llvm::count_if(cast<RankedTensorType>(t).getShape(),
                          ShapedType::isDynamic) <= 1;
  });
}

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
    SmallVector<Type> types, argTypes;
    Block &body = op.getBody().front();
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)) ||
        failed(getTypeConverter()->convertTypes(body.getArgumentTypes(),
                                                argTypes)))
      return rewriter.notifyMatchFailure(op, "unsupported types");
    if (!oneDynamicDimAtMost(ArrayRef(types).drop_front(numStates)))
      return rewriter.notifyMatchFailure(op, "scan outputs with dynamic "
                                             "slice dims");
    ArrayRef<int64_t> inAxes = op.getScanInputAxes(),
                      inDirs = op.getScanInputDirections(),
                      outAxes = op.getScanOutputAxes(),
                      outDirs = op.getScanOutputDirections();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value trips =
        tensor::DimOp::create(rewriter, loc, inputs[numStates], inAxes[0]);
    SmallVector<Value> inits;
    for (int64_t i = 0; i < numStates; ++i)
      inits.push_back(castTo(rewriter, loc, inputs[i], types[i]));
    appendAccumulators(rewriter, loc, ArrayRef(types).drop_front(numStates),
                       trips, inits);
    auto loop = scf::ForOp::create(rewriter, loc, zero, trips, one, inits);
    Block *loopBody = loop.getBody();
    rewriter.setInsertionPointToStart(loopBody);
    Value t = loop.getInductionVar();
    Value last = arith::SubIOp::create(rewriter, loc, trips, one);
    Value back = arith::SubIOp::create(rewriter, loc, last, t);
    SmallVector<Value> args(loop.getRegionIterArgs().take_front(numStates));
    for (int64_t j = 0; j < numScans; ++j)
      args.push_back(extractAlong(rewriter, loc, inputs[numStates + j],
                                  inAxes[j], inDirs[j] ? back : t));
    for (auto [i, a] : llvm::enumerate(args))
      args[i] = castTo(rewriter, loc, a, argTypes[i]);
    auto yield = cast<g::YieldOp>(body.getTerminator());
    rewriter.mergeBlocks(&body, loopBody, args);
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next;
    for (int64_t i = 0; i < numStates; ++i)
      next.push_back(castTo(rewriter, loc, yield.getValues()[i], types[i]));
    for (int64_t k = 0; k < (int64_t)outAxes.size(); ++k)
      next.push_back(insertAlong(rewriter, loc,
                                 yield.getValues()[numStates + k],
                                 loop.getRegionIterArgs()[numStates + k],
                                 outAxes[k], outDirs[k] ? back : t));
    scf::YieldOp::create(rewriter, loc, next);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

/// True when `v` is the constant true (a one-element i1 constant).
static bool isConstantTrue(Value v) {
  DenseElementsAttr attr;
  return matchPattern(v, m_Constant(&attr)) && attr.getNumElements() == 1 &&
         attr.getElementType().isInteger(1) && *attr.getValues<bool>().begin();
}

/// Loop as an scf.while over (iteration, condition, values) when no scan
/// output needs the trip count up front; with scan outputs (which the body
/// must not end early: its condition is the input's or constant true, as the
/// importer's static count assumed), as an scf.for of max_trip_count steps
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
    // Scan outputs' length must not depend on data: the body's condition is
    // its input's or a constant true, and the count is bounded.
    if (numScans > 0) {
      if (!hasMax)
        return rewriter.notifyMatchFailure(
            op, "scan outputs need a maximum trip count");
      Value condOut = yield.getValues()[0];
      if (condOut != body.getArgument(1) && !isConstantTrue(condOut))
        return rewriter.notifyMatchFailure(
            op, "scan outputs whose length depends on data");
      // Only the leading (trip count) dim may be unknown.
      if (llvm::any_of(ArrayRef(types).drop_front(numValues), [](Type t) {
            return llvm::any_of(
                cast<RankedTensorType>(t).getShape().drop_front(),
                ShapedType::isDynamic);
          }))
        return rewriter.notifyMatchFailure(op, "scan outputs with dynamic "
                                               "slice dims");
    }

    Value maxTrips =
        hasMax ? arith::IndexCastOp::create(
                     rewriter, loc, rewriter.getIndexType(),
                     extractScalar(rewriter, loc, adaptor.getMaxTripCount()))
                     .getResult()
               : Value();
    Value condInit = hasCond ? extractScalar(rewriter, loc, adaptor.getCond())
                             : arith::ConstantIntOp::create(
                                   rewriter, loc, rewriter.getI1Type(), 1)
                                   .getResult();
    SmallVector<Value> inits;
    for (auto [v, t] : llvm::zip(adaptor.getInits(), types))
      inits.push_back(castTo(rewriter, loc, v, t));
    auto scalarTensor = [&](OpBuilder &b, Value v) {
      return tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
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
        args.push_back(castTo(rewriter, loc, after->getArgument(2 + i),
                              body.getArgument(2 + i).getType()));
      rewriter.mergeBlocks(&body, after, args);
      rewriter.setInsertionPoint(yield);
      SmallVector<Value> next = {
          arith::AddIOp::create(rewriter, loc, after->getArgument(0), one),
          extractScalar(rewriter, loc, yield.getValues()[0])};
      for (int64_t i = 0; i < numValues; ++i)
        next.push_back(
            castTo(rewriter, loc, yield.getValues()[1 + i], types[i]));
      scf::YieldOp::create(rewriter, loc, next);
      rewriter.eraseOp(yield);
      rewriter.replaceOp(op, loop.getResults().drop_front(2));
      return success();
    }

    // The body cannot end the loop early, so the loop runs max_trip_count
    // times, or not at all when cond starts false.
    Value trips = arith::SelectOp::create(
        rewriter, loc, condInit,
        arith::MaxSIOp::create(rewriter, loc, maxTrips, zero), zero);
    SmallVector<Value> carried(inits);
    appendAccumulators(rewriter, loc, ArrayRef(types).drop_front(numValues),
                       trips, carried);
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
      args.push_back(castTo(rewriter, loc, loop.getRegionIterArgs()[i],
                            body.getArgument(2 + i).getType()));
    rewriter.mergeBlocks(&body, loopBody, args);
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next;
    for (int64_t i = 0; i < numValues; ++i)
      next.push_back(castTo(rewriter, loc, yield.getValues()[1 + i], types[i]));
    for (int64_t k = 0; k < numScans; ++k)
      next.push_back(
          insertAlong(rewriter, loc, yield.getValues()[1 + numValues + k],
                      loop.getRegionIterArgs()[numValues + k], 0, t));
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
