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
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {

// A linalg.generic producing `type` (dynamic extents `dynSizes`) whose
// element at each position is `src[indices(b, loc, outputIndices)]`,
// passed through `finish` when given.
Value createGatherGeneric(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange dynSizes,
    Value src, ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                    ValueRange)>
        indices,
    function_ref<Value(OpBuilder &, Location, Value)> finish) {
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
        if (finish)
          v = finish(nb, nloc, v);
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

namespace {

RankedTensorType convertedType(const TypeConverter *c, Value v) {
  return dyn_cast_or_null<RankedTensorType>(c->convertType(v.getType()));
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
    SmallVector<Value> starts, sizes, steps;
    auto bounds = g::computeSliceBounds(std::nullopt, g::SliceOp::Adaptor(op));
    if (succeeded(bounds)) {
      for (int64_t i = 0; i < r; ++i) {
        starts.push_back(indexConstant(rewriter, loc, bounds->starts[i]));
        steps.push_back(indexConstant(rewriter, loc, bounds->steps[i]));
        sizes.push_back(ShapedType::isDynamic(bounds->sizes[i])
                            ? dimValue(rewriter, loc, x, i)
                            : indexConstant(rewriter, loc, bounds->sizes[i]));
      }
    } else if (failed(runtimeBounds(rewriter, op, adaptor, starts, sizes,
                                    steps))) {
      return rewriter.notifyMatchFailure(op, "needs 1-D parameters");
    }
    SmallVector<int64_t> constSteps;
    for (Value st : steps) {
      APInt c;
      if (matchPattern(st, m_ConstantInt(&c)) && c.getSExtValue() > 0)
        constSteps.push_back(c.getSExtValue());
    }
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < r; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(sizes[i]);
    if ((int64_t)constSteps.size() != r) {
      // Negative or run-time steps: read start + i * step.
      rewriter.replaceOp(
          op, createGatherGeneric(
                  rewriter, loc, type, dyn, x, {}, {},
                  [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                    SmallVector<Value> idx;
                    for (int64_t i = 0; i < r; ++i)
                      idx.push_back(arith::AddIOp::create(
                          b, l, starts[i],
                          arith::MulIOp::create(b, l, ivs[i], steps[i])));
                    return idx;
                  }));
      return success();
    }
    if (type.hasStaticShape() && llvm::is_contained(type.getShape(), 0)) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    SmallVector<OpFoldResult> offs, szs, strides;
    for (int64_t i = 0; i < r; ++i) {
      offs.push_back(foldedSize(rewriter, starts[i]));
      szs.push_back(foldedSize(rewriter, sizes[i]));
      strides.push_back(rewriter.getIndexAttr(constSteps[i]));
    }
    Value slice =
        tensor::ExtractSliceOp::create(rewriter, loc, x, offs, szs, strides);
    if (slice.getType() != type)
      slice = tensor::CastOp::create(rewriter, loc, type, slice);
    rewriter.replaceOp(op, slice);
    return success();
  }

  /// Start, size and step per axis computed at run time with the ONNX
  /// clamping rules, for non-constant starts/ends/axes/steps.
  static LogicalResult runtimeBounds(OpBuilder &b, g::SliceOp op,
                                     OpAdaptor adaptor,
                                     SmallVectorImpl<Value> &starts,
                                     SmallVectorImpl<Value> &sizes,
                                     SmallVectorImpl<Value> &steps) {
    Location loc = op.getLoc();
    Value x = adaptor.getData();
    int64_t r = cast<RankedTensorType>(x.getType()).getRank();
    auto startsType = cast<RankedTensorType>(adaptor.getStarts().getType());
    if (startsType.getRank() != 1 || startsType.isDynamicDim(0))
      return failure();
    int64_t n = startsType.getDimSize(0);
    auto constAxes = g::isNoValue(op.getAxes())
                         ? std::optional<SmallVector<int64_t>>(
                               llvm::to_vector(llvm::seq<int64_t>(0, n)))
                         : g::getConstantInts(op.getAxes());
    auto constSteps =
        g::isNoValue(op.getSteps())
            ? std::optional<SmallVector<int64_t>>(SmallVector<int64_t>(n, 1))
            : g::getConstantInts(op.getSteps());
    Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
    for (int64_t i = 0; i < r; ++i) {
      starts.push_back(zero);
      sizes.push_back(dimValue(b, loc, x, i));
      steps.push_back(one);
    }
    auto cmp = [&](arith::CmpIPredicate p, Value a, Value c) {
      return arith::CmpIOp::create(b, loc, p, a, c);
    };
    auto sel = [&](Value c, Value t, Value f) {
      return arith::SelectOp::create(b, loc, c, t, f).getResult();
    };
    for (int64_t k = 0; k < n; ++k) {
      Value stepK = constSteps ? indexConstant(b, loc, (*constSteps)[k])
                               : extractIndex(b, loc, adaptor.getSteps(), k);
      Value axisK;
      if (!constAxes) {
        axisK = extractIndex(b, loc, adaptor.getAxes(), k);
        axisK =
            sel(cmp(arith::CmpIPredicate::slt, axisK, zero),
                arith::AddIOp::create(b, loc, axisK, indexConstant(b, loc, r)),
                axisK);
      }
      for (int64_t a = 0; a < r; ++a) {
        if (constAxes) {
          int64_t ax = (*constAxes)[k];
          if ((ax < 0 ? ax + r : ax) != a)
            continue;
        }
        Value dim = dimValue(b, loc, x, a);
        auto wrap = [&](Value v) {
          return sel(cmp(arith::CmpIPredicate::slt, v, zero),
                     arith::AddIOp::create(b, loc, v, dim), v);
        };
        Value s = wrap(extractIndex(b, loc, adaptor.getStarts(), k));
        Value e = wrap(extractIndex(b, loc, adaptor.getEnds(), k));
        Value last = arith::SubIOp::create(b, loc, dim, one);
        Value up = cmp(arith::CmpIPredicate::sgt, stepK, zero);
        Value sUp = clampIndex(b, loc, s, zero, dim);
        Value eUp = clampIndex(b, loc, e, zero, dim);
        Value sDown = clampIndex(b, loc, s, zero, last);
        Value eDown = clampIndex(b, loc, e, indexConstant(b, loc, -1), last);
        Value count = sel(up, arith::SubIOp::create(b, loc, eUp, sUp),
                          arith::SubIOp::create(b, loc, sDown, eDown));
        count = arith::MaxSIOp::create(b, loc, count, zero);
        Value absStep =
            sel(up, stepK, arith::SubIOp::create(b, loc, zero, stepK));
        Value size = arith::CeilDivSIOp::create(b, loc, count, absStep);
        Value start = sel(up, sUp, sDown);
        Value step = stepK;
        if (axisK) {
          Value match =
              cmp(arith::CmpIPredicate::eq, axisK, indexConstant(b, loc, a));
          start = sel(match, start, starts[a]);
          size = sel(match, size, sizes[a]);
          step = sel(match, step, steps[a]);
        }
        starts[a] = start;
        sizes[a] = size;
        steps[a] = step;
      }
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
    auto padsType = dyn_cast<RankedTensorType>(adaptor.getPads().getType());
    if (!in || !type || !padsType || padsType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
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
    if (padsType.getDimSize(0) != 2 * n)
      return rewriter.notifyMatchFailure(op, "pads do not match the axes");
    Location loc = op.getLoc();
    StringRef mode = op.getMode();
    if (mode != "constant" && mode != "edge" && mode != "reflect" &&
        mode != "wrap")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    Type elt = type.getElementType();
    Value value;
    if (mode == "constant" && g::isNoValue(op.getConstantValue())) {
      value = createScalarConstant(rewriter, loc, elt, 0.0);
    } else if (mode == "constant") {
      Value cv = adaptor.getConstantValue();
      auto cvType = cast<RankedTensorType>(cv.getType());
      SmallVector<Value> at(cvType.getRank(), indexConstant(rewriter, loc, 0));
      value = tensor::ExtractOp::create(rewriter, loc, cv, at);
    }

    // Constant non-negative pads in constant mode: tensor.pad.
    auto pads = g::getConstantInts(op.getPads());
    if (mode == "constant" && pads &&
        llvm::all_of(*pads, [](int64_t p) { return p >= 0; })) {
      SmallVector<OpFoldResult> lo(r, rewriter.getIndexAttr(0)), hi(lo);
      for (int64_t i = 0; i < n; ++i) {
        lo[axes[i]] = rewriter.getIndexAttr((*pads)[i]);
        hi[axes[i]] = rewriter.getIndexAttr((*pads)[i + n]);
      }
      // The padded type follows from the input's; the node's result type
      // may show fewer of its extents.
      Value padded = tensor::PadOp::create(rewriter, loc, RankedTensorType(), x,
                                           lo, hi, value)
                         .getResult();
      if (padded.getType() != type)
        padded = tensor::CastOp::create(rewriter, loc, type, padded);
      rewriter.replaceOp(op, padded);
      return success();
    }
    // Otherwise a generic reading input position (output - low), so
    // negative (cropping) and run-time pads need no special case.
    SmallVector<Value> low(r), dims, dyn;
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dimValue(rewriter, loc, x, i));
    SmallVector<Value> outDims(dims);
    for (int64_t i = 0; i < n; ++i) {
      Value lo = extractIndex(rewriter, loc, adaptor.getPads(), i);
      Value hi = extractIndex(rewriter, loc, adaptor.getPads(), i + n);
      low[axes[i]] = lo;
      outDims[axes[i]] =
          arith::AddIOp::create(rewriter, loc, dims[axes[i]],
                                arith::AddIOp::create(rewriter, loc, lo, hi));
    }
    for (int64_t i = 0; i < r; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(outDims[i]);
    Value inside; // constant mode: the position lies in the input
    rewriter.replaceOp(
        op, createGatherGeneric(
                rewriter, loc, type, dyn, x, {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  SmallVector<Value> idx;
                  for (int64_t i = 0; i < r; ++i) {
                    if (!low[i]) {
                      idx.push_back(ivs[i]);
                      continue;
                    }
                    Value p = arith::SubIOp::create(b, l, ivs[i], low[i]);
                    if (mode == "constant") {
                      Value zero = indexConstant(b, l, 0);
                      Value ok = arith::AndIOp::create(
                          b, l,
                          arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                                p, zero),
                          arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                                p, dims[i]));
                      inside =
                          inside ? arith::AndIOp::create(b, l, inside, ok) : ok;
                    }
                    idx.push_back(sourceIndex(b, l, mode, p, dims[i]));
                  }
                  return idx;
                },
                [&](OpBuilder &b, Location l, Value v) {
                  return inside
                             ? arith::SelectOp::create(b, l, inside, v, value)
                                   .getResult()
                             : v;
                }));
    return success();
  }

  /// Input position for the in-axis position `i` (output minus low pad):
  /// clamped into range for constant (the value is then masked) and edge,
  /// mirrored for reflect, modulo for wrap.
  static Value sourceIndex(OpBuilder &b, Location loc, StringRef mode, Value i,
                           Value dim) {
    Value zero = indexConstant(b, loc, 0);
    Value last = arith::SubIOp::create(b, loc, dim, indexConstant(b, loc, 1));
    if (mode == "edge" || mode == "constant")
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
