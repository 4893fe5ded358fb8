//===- IndexedMovement.cpp - Slice, Gather and Pad to tensor/linalg -------===//
//
// Ops that read their input at computed positions: strided slices become
// tensor.extract_slice (a gather-style linalg.generic for negative steps),
// Gather and the non-constant Pad modes a linalg.generic whose body reads the
// input with tensor.extract at indices built from linalg.index.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

RankedTensorType convertedType(const TypeConverter *c, Value v) {
  return dyn_cast_or_null<RankedTensorType>(c->convertType(v.getType()));
}

/// A linalg.generic producing `type` (dynamic extents `dynSizes`) whose
/// element at each position is `src[indices(b, loc, outputIndices)]`.
Value createGatherGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                          ValueRange dynSizes, Value src, ValueRange inputs,
                          ArrayRef<AffineMap> inputMaps,
                          function_ref<SmallVector<Value>(
                              OpBuilder &, Location, ValueRange, ValueRange)>
                              indices) {
  int64_t r = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dynSizes);
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(r));
  SmallVector<utils::IteratorType> iters(r, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, inputs, init, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> ivs;
        for (int64_t i = 0; i < r; ++i)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, i));
        SmallVector<Value> idx = indices(nb, nloc, ivs, args.drop_back());
        Value v = tensor::ExtractOp::create(nb, nloc, src, idx);
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

Value clampIndex(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                hi);
}

struct SliceLowering : OpConversionPattern<g::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = convertedType(getTypeConverter(), op.getOutput());
    if (!in || !type)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    int64_t r = in.getRank();
    Location loc = op.getLoc();
    SmallVector<Value> starts, sizes;
    SmallVector<int64_t> steps;
    auto bounds = g::computeSliceBounds(std::nullopt, g::SliceOp::Adaptor(op));
    if (succeeded(bounds)) {
      steps = bounds->steps;
      for (int64_t i = 0; i < r; ++i) {
        starts.push_back(indexConstant(rewriter, loc, bounds->starts[i]));
        sizes.push_back(ShapedType::isDynamic(bounds->sizes[i])
                            ? dimValue(rewriter, loc, x, i)
                            : indexConstant(rewriter, loc, bounds->sizes[i]));
      }
    } else if (failed(runtimeBounds(rewriter, op, adaptor, starts, sizes,
                                    steps))) {
      return rewriter.notifyMatchFailure(op, "needs constant axes and steps");
    }
    bool negative = llvm::any_of(steps, [](int64_t s) { return s < 0; });
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < r; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(sizes[i]);
    if (negative) {
      rewriter.replaceOp(
          op,
          createGatherGeneric(
              rewriter, loc, type, dyn, x, {}, {},
              [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                SmallVector<Value> idx;
                for (int64_t i = 0; i < r; ++i) {
                  Value off = arith::MulIOp::create(
                      b, l, ivs[i], indexConstant(b, l, steps[i]));
                  idx.push_back(arith::AddIOp::create(b, l, starts[i], off));
                }
                return idx;
              }));
      return success();
    }
    SmallVector<OpFoldResult> offs, szs, strides;
    for (int64_t i = 0; i < r; ++i) {
      offs.push_back(foldedSize(rewriter, starts[i]));
      szs.push_back(foldedSize(rewriter, sizes[i]));
      strides.push_back(rewriter.getIndexAttr(steps[i]));
    }
    Value slice =
        tensor::ExtractSliceOp::create(rewriter, loc, x, offs, szs, strides);
    if (slice.getType() != type)
      slice = tensor::CastOp::create(rewriter, loc, type, slice);
    rewriter.replaceOp(op, slice);
    return success();
  }

  /// Start and size per axis computed at run time from non-constant
  /// starts/ends, with the ONNX clamping rules; axes and steps must be
  /// constant.
  static LogicalResult runtimeBounds(OpBuilder &b, g::SliceOp op,
                                     OpAdaptor adaptor,
                                     SmallVectorImpl<Value> &starts,
                                     SmallVectorImpl<Value> &sizes,
                                     SmallVectorImpl<int64_t> &steps) {
    Location loc = op.getLoc();
    Value x = adaptor.getData();
    int64_t r = cast<RankedTensorType>(x.getType()).getRank();
    auto startsType = cast<RankedTensorType>(adaptor.getStarts().getType());
    if (startsType.isDynamicDim(0))
      return failure();
    int64_t n = startsType.getDimSize(0);
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, n));
    SmallVector<int64_t> stepVals(n, 1);
    if (!g::isNoValue(op.getAxes())) {
      auto a = g::getConstantInts(op.getAxes());
      if (!a || (int64_t)a->size() != n)
        return failure();
      axes = *a;
    }
    if (!g::isNoValue(op.getSteps())) {
      auto s = g::getConstantInts(op.getSteps());
      if (!s || (int64_t)s->size() != n)
        return failure();
      stepVals = *s;
    }
    steps.assign(r, 1);
    for (int64_t i = 0; i < r; ++i) {
      starts.push_back(indexConstant(b, loc, 0));
      sizes.push_back(dimValue(b, loc, x, i));
    }
    Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
    for (int64_t k = 0; k < n; ++k) {
      int64_t axis = axes[k] < 0 ? axes[k] + r : axes[k], step = stepVals[k];
      if (axis < 0 || axis >= r || step == 0)
        return failure();
      Value dim = sizes[axis];
      auto wrap = [&](Value v) {
        Value neg =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
        return arith::SelectOp::create(
            b, loc, neg, arith::AddIOp::create(b, loc, v, dim), v);
      };
      Value s = wrap(extractIndex(b, loc, adaptor.getStarts(), k));
      Value e = wrap(extractIndex(b, loc, adaptor.getEnds(), k));
      Value count;
      if (step > 0) {
        s = clampIndex(b, loc, s, zero, dim);
        e = clampIndex(b, loc, e, zero, dim);
        count = arith::SubIOp::create(b, loc, e, s);
      } else {
        Value last = arith::SubIOp::create(b, loc, dim, one);
        s = clampIndex(b, loc, s, zero, last);
        e = clampIndex(b, loc, e, indexConstant(b, loc, -1), last);
        count = arith::SubIOp::create(b, loc, s, e);
      }
      count = arith::MaxSIOp::create(b, loc, count, zero);
      starts[axis] = s;
      sizes[axis] = arith::CeilDivSIOp::create(
          b, loc, count, indexConstant(b, loc, std::abs(step)));
      steps[axis] = step;
    }
    return success();
  }
};

struct GatherLowering : OpConversionPattern<g::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto in = dyn_cast<RankedTensorType>(data.getType());
    auto idxType = dyn_cast<RankedTensorType>(indices.getType());
    auto type = convertedType(getTypeConverter(), op.getOutput());
    if (!in || !idxType || !type)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    int64_t r = in.getRank(), q = idxType.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += r;
    Location loc = op.getLoc();
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i))
        continue;
      if (i < axis)
        dyn.push_back(dimValue(rewriter, loc, data, i));
      else if (i < axis + q)
        dyn.push_back(dimValue(rewriter, loc, indices, i - axis));
      else
        dyn.push_back(dimValue(rewriter, loc, data, i - q + 1));
    }
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < q; ++i)
      idxExprs.push_back(rewriter.getAffineDimExpr(axis + i));
    AffineMap idxMap =
        AffineMap::get(type.getRank(), 0, idxExprs, rewriter.getContext());
    Value axisDim = dimValue(rewriter, loc, data, axis);
    rewriter.replaceOp(
        op, createGatherGeneric(
                rewriter, loc, type, dyn, data, indices, idxMap,
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
                  // Negative indices count from the end of the axis.
                  Value i = arith::IndexCastOp::create(b, l, b.getIndexType(),
                                                       args[0]);
                  Value neg =
                      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i,
                                            indexConstant(b, l, 0));
                  i = arith::SelectOp::create(
                      b, l, neg, arith::AddIOp::create(b, l, i, axisDim), i);
                  SmallVector<Value> idx(ivs.take_front(axis));
                  idx.push_back(i);
                  idx.append(ivs.begin() + axis + q, ivs.end());
                  return idx;
                }));
    return success();
  }
};

struct PadLowering : OpConversionPattern<g::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = convertedType(getTypeConverter(), op.getOutput());
    auto pads = g::getConstantInts(op.getPads());
    if (!in || !type || !pads)
      return rewriter.notifyMatchFailure(op, "needs constant pads");
    int64_t r = in.getRank();
    SmallVector<int64_t> axes;
    if (g::isNoValue(op.getAxes())) {
      axes = llvm::to_vector(llvm::seq<int64_t>(0, r));
    } else if (auto a = g::getConstantInts(op.getAxes())) {
      for (int64_t v : *a)
        axes.push_back(v < 0 ? v + r : v);
    } else {
      return rewriter.notifyMatchFailure(op, "needs constant axes");
    }
    int64_t n = axes.size();
    if ((int64_t)pads->size() != 2 * n)
      return rewriter.notifyMatchFailure(op, "pads do not match the axes");
    SmallVector<int64_t> low(r, 0), high(r, 0);
    for (int64_t i = 0; i < n; ++i) {
      low[axes[i]] = (*pads)[i];
      high[axes[i]] = (*pads)[i + n];
    }
    Location loc = op.getLoc();
    // Negative pads crop first.
    if (llvm::any_of(low, [](int64_t p) { return p < 0; }) ||
        llvm::any_of(high, [](int64_t p) { return p < 0; })) {
      SmallVector<OpFoldResult> offs, sizes, strides;
      for (int64_t i = 0; i < r; ++i) {
        int64_t lo = std::max<int64_t>(0, -low[i]);
        int64_t hi = std::max<int64_t>(0, -high[i]);
        Value size =
            arith::SubIOp::create(rewriter, loc, dimValue(rewriter, loc, x, i),
                                  indexConstant(rewriter, loc, lo + hi));
        offs.push_back(rewriter.getIndexAttr(lo));
        sizes.push_back(in.isDynamicDim(i) ? OpFoldResult(size)
                                           : rewriter.getIndexAttr(
                                                 in.getDimSize(i) - lo - hi));
        strides.push_back(rewriter.getIndexAttr(1));
        low[i] = std::max<int64_t>(0, low[i]);
        high[i] = std::max<int64_t>(0, high[i]);
      }
      x = tensor::ExtractSliceOp::create(rewriter, loc, x, offs, sizes,
                                         strides);
    }
    StringRef mode = op.getMode();
    Type elt = type.getElementType();
    if (mode == "constant") {
      Value value;
      if (g::isNoValue(op.getConstantValue())) {
        value = createScalarConstant(rewriter, loc, elt, 0.0);
      } else {
        Value cv = adaptor.getConstantValue();
        auto cvType = cast<RankedTensorType>(cv.getType());
        SmallVector<Value> at(cvType.getRank(),
                              indexConstant(rewriter, loc, 0));
        value = tensor::ExtractOp::create(rewriter, loc, cv, at);
      }
      SmallVector<OpFoldResult> lo, hi;
      for (int64_t i = 0; i < r; ++i) {
        lo.push_back(rewriter.getIndexAttr(low[i]));
        hi.push_back(rewriter.getIndexAttr(high[i]));
      }
      rewriter.replaceOp(
          op, tensor::PadOp::create(rewriter, loc, type, x, lo, hi, value)
                  .getResult());
      return success();
    }
    if (mode != "edge" && mode != "reflect" && mode != "wrap")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    SmallVector<Value> dims, dyn;
    for (int64_t i = 0; i < r; ++i) {
      dims.push_back(dimValue(rewriter, loc, x, i));
      if (type.isDynamicDim(i))
        dyn.push_back(arith::AddIOp::create(
            rewriter, loc, dims[i],
            indexConstant(rewriter, loc, low[i] + high[i])));
    }
    rewriter.replaceOp(
        op, createGatherGeneric(
                rewriter, loc, type, dyn, x, {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  SmallVector<Value> idx;
                  for (int64_t i = 0; i < r; ++i)
                    idx.push_back(
                        low[i] || high[i]
                            ? sourceIndex(b, l, mode, ivs[i], low[i], dims[i])
                            : ivs[i]);
                  return idx;
                }));
    return success();
  }

  /// Input position read by output position `o` of an axis padded by `low`
  /// in front, for the edge, reflect and wrap modes.
  static Value sourceIndex(OpBuilder &b, Location loc, StringRef mode, Value o,
                           int64_t low, Value dim) {
    Value zero = indexConstant(b, loc, 0);
    Value last = arith::SubIOp::create(b, loc, dim, indexConstant(b, loc, 1));
    Value i = arith::SubIOp::create(b, loc, o, indexConstant(b, loc, low));
    if (mode == "edge")
      return clampIndex(b, loc, i, zero, last);
    if (mode == "wrap") {
      Value m = arith::RemSIOp::create(b, loc, i, dim);
      Value neg =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m, zero);
      return arith::SelectOp::create(b, loc, neg,
                                     arith::AddIOp::create(b, loc, m, dim), m);
    }
    // reflect: mirror around the first and last elements (the edge itself is
    // not repeated); a period of 2 * (dim - 1) covers pads longer than dim.
    Value period =
        arith::MulIOp::create(b, loc, last, indexConstant(b, loc, 2));
    period = arith::MaxSIOp::create(b, loc, period, indexConstant(b, loc, 1));
    Value m = arith::RemSIOp::create(b, loc, i, period);
    Value neg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m, zero);
    m = arith::SelectOp::create(b, loc, neg,
                                arith::AddIOp::create(b, loc, m, period), m);
    Value beyond =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, m, last);
    return arith::SelectOp::create(b, loc, beyond,
                                   arith::SubIOp::create(b, loc, period, m), m);
  }
};

} // namespace

void populateIndexedMovementPatterns(GraphTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<SliceLowering, GatherLowering, PadLowering>(
      converter, patterns.getContext());
}

} // namespace kiln
