//===- Indexing.cpp - Gathers, scatters and block moves to linalg/scf -----===//
//
// GatherElements, GatherND, OneHot, Tile, DepthToSpace and SpaceToDepth read
// their input at computed positions: one linalg.generic each whose body
// extracts at indices built from linalg.index (createGatherGeneric).
// ScatterElements and ScatterND write at positions taken from data, where
// later updates win or combine with earlier ones: a loop nest over the
// updates that inserts into the destination tensor in order.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// An integer (or float) scalar as an index.
Value toIndex(OpBuilder &b, Location loc, Value v) {
  if (isa<FloatType>(v.getType()))
    v = arith::FPToSIOp::create(b, loc, b.getI64Type(), v);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// `i`, or `i + extent` when negative (ONNX indices count from the end).
Value wrapNegative(OpBuilder &b, Location loc, Value i, Value extent) {
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                    indexConstant(b, loc, 0));
  return arith::SelectOp::create(b, loc, neg,
                                 arith::AddIOp::create(b, loc, i, extent), i);
}

/// Extents of `like` for the dynamic dims of `type` (same rank).
SmallVector<Value> dynamicDimsLike(OpBuilder &b, Location loc,
                                   RankedTensorType type, Value like) {
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(dimValue(b, loc, like, i));
  return dyn;
}

struct GatherElementsLowering : OpConversionPattern<g::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto type = convertedRankedType(getTypeConverter(), op.getOutput());
    auto in = dyn_cast<RankedTensorType>(data.getType());
    if (!type || !in || !isa<RankedTensorType>(indices.getType()))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    auto axis = g::normalizeAxis(std::nullopt, op.getAxis(), in.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    Value extent = dimValue(rewriter, loc, data, *axis);
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    rewriter.replaceOp(
        op,
        createGatherGeneric(
            rewriter, loc, type, dynamicDimsLike(rewriter, loc, type, indices),
            data, indices, id,
            [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange a) {
              SmallVector<Value> idx(ivs);
              idx[*axis] = wrapNegative(b, l, toIndex(b, l, a[0]), extent);
              return idx;
            }));
    return success();
  }
};

struct GatherNDLowering : OpConversionPattern<g::GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto type = convertedRankedType(getTypeConverter(), op.getOutput());
    auto in = dyn_cast<RankedTensorType>(data.getType());
    auto it = dyn_cast<RankedTensorType>(indices.getType());
    if (!type || !in || !it || it.isDynamicDim(it.getRank() - 1))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    int64_t q = it.getRank(), bd = op.getBatchDims();
    int64_t k = it.getDimSize(q - 1);
    Location loc = op.getLoc();
    // Output dims: batch (data), index (indices), slice (data).
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i))
        continue;
      if (i < bd)
        dyn.push_back(dimValue(rewriter, loc, data, i));
      else if (i < q - 1)
        dyn.push_back(dimValue(rewriter, loc, indices, i));
      else
        dyn.push_back(dimValue(rewriter, loc, data, i - (q - 1) + bd + k));
    }
    SmallVector<Value> extents;
    for (int64_t j = 0; j < k; ++j)
      extents.push_back(dimValue(rewriter, loc, data, bd + j));
    rewriter.replaceOp(
        op,
        createGatherGeneric(
            rewriter, loc, type, dyn, data, {}, {},
            [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
              SmallVector<Value> idx(ivs.take_front(bd));
              SmallVector<Value> at(ivs.take_front(q - 1));
              at.push_back(Value());
              for (int64_t j = 0; j < k; ++j) {
                at.back() = indexConstant(b, l, j);
                Value v = tensor::ExtractOp::create(b, l, indices, at);
                idx.push_back(wrapNegative(b, l, toIndex(b, l, v), extents[j]));
              }
              idx.append(ivs.begin() + (q - 1), ivs.end());
              return idx;
            }));
    return success();
  }
};

/// `old` combined with `update` by an ONNX scatter `reduction`.
FailureOr<Value> combineUpdate(OpBuilder &b, Location loc, StringRef reduction,
                               Type origElt, Value old, Value update) {
  bool isFloat = isa<FloatType>(update.getType());
  bool isUnsigned = origElt.isUnsignedInteger();
  if (reduction == "none")
    return update;
  if (reduction == "add")
    return isFloat ? Value(arith::AddFOp::create(b, loc, old, update))
                   : Value(arith::AddIOp::create(b, loc, old, update));
  if (reduction == "mul")
    return isFloat ? Value(arith::MulFOp::create(b, loc, old, update))
                   : Value(arith::MulIOp::create(b, loc, old, update));
  if (reduction == "max")
    return isFloat      ? Value(arith::MaximumFOp::create(b, loc, old, update))
           : isUnsigned ? Value(arith::MaxUIOp::create(b, loc, old, update))
                        : Value(arith::MaxSIOp::create(b, loc, old, update));
  if (reduction == "min")
    return isFloat      ? Value(arith::MinimumFOp::create(b, loc, old, update))
           : isUnsigned ? Value(arith::MinUIOp::create(b, loc, old, update))
                        : Value(arith::MinSIOp::create(b, loc, old, update));
  return failure();
}

/// A loop nest over `extents` (the update positions, in order) that writes
/// updates[ivs] to dest[position(ivs)], combined by `reduction` with the
/// element there; returns the updated tensor.
Value scatterUpdates(
    OpBuilder &b, Location loc, Value dest, Value updates,
    ArrayRef<Value> extents, StringRef reduction, Type origElt,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        position) {
  SmallVector<Value> lbs(extents.size(), indexConstant(b, loc, 0));
  SmallVector<Value> steps(extents.size(), indexConstant(b, loc, 1));
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, extents, steps, ValueRange{dest},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange iters) -> scf::ValueVector {
        SmallVector<Value> pos = position(nb, nl, ivs);
        Value upd = tensor::ExtractOp::create(nb, nl, updates, ivs);
        Value old = tensor::ExtractOp::create(nb, nl, iters[0], pos);
        Value v = *combineUpdate(nb, nl, reduction, origElt, old, upd);
        return {tensor::InsertOp::create(nb, nl, v, iters[0], pos)};
      });
  return nest.results.empty() ? dest : nest.results[0];
}

bool isKnownReduction(StringRef r) {
  return r == "none" || r == "add" || r == "mul" || r == "max" || r == "min";
}

struct ScatterElementsLowering : OpConversionPattern<g::ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    Value updates = adaptor.getUpdates();
    auto in = dyn_cast<RankedTensorType>(data.getType());
    auto it = dyn_cast<RankedTensorType>(indices.getType());
    if (!in || !it || !isKnownReduction(op.getReduction()))
      return rewriter.notifyMatchFailure(op, "unsupported form");
    auto axis = g::normalizeAxis(std::nullopt, op.getAxis(), in.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    Type origElt = getElementTypeOrSelf(op.getData().getType());
    Value extent = dimValue(rewriter, loc, data, *axis);
    SmallVector<Value> extents;
    for (int64_t i = 0; i < it.getRank(); ++i)
      extents.push_back(dimValue(rewriter, loc, indices, i));
    Value result = scatterUpdates(
        rewriter, loc, data, updates, extents, op.getReduction(), origElt,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> pos(ivs);
          Value i = tensor::ExtractOp::create(b, l, indices, ivs);
          pos[*axis] = wrapNegative(b, l, toIndex(b, l, i), extent);
          return pos;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterNDLowering : OpConversionPattern<g::ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    Value updates = adaptor.getUpdates();
    auto in = dyn_cast<RankedTensorType>(data.getType());
    auto it = dyn_cast<RankedTensorType>(indices.getType());
    if (!in || !it || it.getRank() < 1 || it.isDynamicDim(it.getRank() - 1) ||
        !isKnownReduction(op.getReduction()))
      return rewriter.notifyMatchFailure(op, "unsupported form");
    int64_t q = it.getRank(), k = it.getDimSize(q - 1);
    if (k > in.getRank())
      return rewriter.notifyMatchFailure(op, "indices address too many dims");
    Location loc = op.getLoc();
    Type origElt = getElementTypeOrSelf(op.getData().getType());
    SmallVector<Value> extents, dataExtents;
    for (int64_t i = 0; i + 1 < q; ++i)
      extents.push_back(dimValue(rewriter, loc, indices, i));
    for (int64_t i = 0; i < in.getRank(); ++i)
      dataExtents.push_back(dimValue(rewriter, loc, data, i));
    extents.append(dataExtents.begin() + k, dataExtents.end());
    Value result = scatterUpdates(
        rewriter, loc, data, updates, extents, op.getReduction(), origElt,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> at(ivs.take_front(q - 1));
          at.push_back(Value());
          SmallVector<Value> pos;
          for (int64_t j = 0; j < k; ++j) {
            at.back() = indexConstant(b, l, j);
            Value i = tensor::ExtractOp::create(b, l, indices, at);
            pos.push_back(wrapNegative(b, l, toIndex(b, l, i), dataExtents[j]));
          }
          pos.append(ivs.begin() + (q - 1), ivs.end());
          return pos;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct OneHotLowering : OpConversionPattern<g::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value indices = adaptor.getIndices();
    auto type = convertedRankedType(getTypeConverter(), op.getOutput());
    auto it = dyn_cast<RankedTensorType>(indices.getType());
    if (!type || !it || !isa<RankedTensorType>(adaptor.getDepth().getType()) ||
        !isa<RankedTensorType>(adaptor.getValues().getType()))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    int64_t rank = type.getRank();
    auto axis = g::normalizeAxis(std::nullopt, op.getAxis(), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    Value depth = toIndex(rewriter, loc,
                          extractScalar(rewriter, loc, adaptor.getDepth()));
    Value values = adaptor.getValues();
    Value off = tensor::ExtractOp::create(rewriter, loc, values,
                                          indexConstant(rewriter, loc, 0));
    Value on = tensor::ExtractOp::create(rewriter, loc, values,
                                         indexConstant(rewriter, loc, 1));
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < rank; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(i == *axis ? depth
                                 : dimValue(rewriter, loc, indices,
                                            i < *axis ? i : i - 1));
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType(), dyn);
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i)
      if (i != *axis)
        exprs.push_back(rewriter.getAffineDimExpr(i));
    AffineMap idxMap = AffineMap::get(rank, 0, exprs, rewriter.getContext());
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, ValueRange{indices}, ValueRange{init},
            ArrayRef<AffineMap>{idxMap, rewriter.getMultiDimIdentityMap(rank)},
            iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value i = wrapNegative(b, l, toIndex(b, l, a[0]), depth);
              Value hit =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i,
                                        linalg::IndexOp::create(b, l, *axis));
              linalg::YieldOp::create(
                  b, l,
                  arith::SelectOp::create(b, l, hit, on, off).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TileLowering : OpConversionPattern<g::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto type = convertedRankedType(getTypeConverter(), op.getOutput());
    if (!type || !isa<RankedTensorType>(input.getType()))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    SmallVector<Value> dims, dyn;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      dims.push_back(dimValue(rewriter, loc, input, i));
      if (type.isDynamicDim(i))
        dyn.push_back(arith::MulIOp::create(
            rewriter, loc, dims.back(),
            extractIndex(rewriter, loc, adaptor.getRepeats(), i)));
    }
    rewriter.replaceOp(
        op, createGatherGeneric(
                rewriter, loc, type, dyn, input, {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  SmallVector<Value> idx;
                  for (auto [iv, d] : llvm::zip(ivs, dims))
                    idx.push_back(arith::RemUIOp::create(b, l, iv, d));
                  return idx;
                }));
    return success();
  }
};

/// DepthToSpace (DCR or CRD) and SpaceToDepth on NCHW tensors.
template <typename Op, bool ToSpace>
struct BlockRearrangeLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto type = convertedRankedType(this->getTypeConverter(), op.getOutput());
    if (!type || !isa<RankedTensorType>(input.getType()) || type.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs ranked NCHW types");
    bool crd = false;
    if constexpr (ToSpace) {
      if (op.getMode() != "DCR" && op.getMode() != "CRD")
        return rewriter.notifyMatchFailure(op, "unknown mode");
      crd = op.getMode() == "CRD";
    }
    Location loc = op.getLoc();
    int64_t bs = op.getBlocksize();
    Value bsV = indexConstant(rewriter, loc, bs);
    Value bs2 = indexConstant(rewriter, loc, bs * bs);
    Value c = dimValue(rewriter, loc, input, 1);
    // Output channels (DepthToSpace) or input channels (SpaceToDepth).
    Value chans =
        ToSpace ? Value(arith::DivUIOp::create(rewriter, loc, c, bs2)) : c;
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < 4; ++i) {
      if (!type.isDynamicDim(i))
        continue;
      Value d = dimValue(rewriter, loc, input, i);
      if (i == 1)
        dyn.push_back(
            ToSpace ? chans
                    : Value(arith::MulIOp::create(rewriter, loc, d, bs2)));
      else if (i >= 2)
        dyn.push_back(
            ToSpace ? Value(arith::MulIOp::create(rewriter, loc, d, bsV))
                    : Value(arith::DivUIOp::create(rewriter, loc, d, bsV)));
      else
        dyn.push_back(d);
    }
    rewriter.replaceOp(
        op, createGatherGeneric(
                rewriter, loc, type, dyn, input, {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  auto mul = [&](Value x, Value y) -> Value {
                    return arith::MulIOp::create(b, l, x, y);
                  };
                  auto add = [&](Value x, Value y) -> Value {
                    return arith::AddIOp::create(b, l, x, y);
                  };
                  auto div = [&](Value x, Value y) -> Value {
                    return arith::DivUIOp::create(b, l, x, y);
                  };
                  auto rem = [&](Value x, Value y) -> Value {
                    return arith::RemUIOp::create(b, l, x, y);
                  };
                  Value n = ivs[0], ch = ivs[1], h = ivs[2], w = ivs[3];
                  if constexpr (ToSpace) {
                    Value bh = rem(h, bsV), bw = rem(w, bsV);
                    Value src =
                        crd ? add(mul(ch, bs2), add(mul(bh, bsV), bw))
                            : add(mul(add(mul(bh, bsV), bw), chans), ch);
                    return SmallVector<Value>{n, src, div(h, bsV), div(w, bsV)};
                  } else {
                    Value blk = div(ch, chans), ci = rem(ch, chans);
                    return SmallVector<Value>{n, ci,
                                              add(mul(h, bsV), div(blk, bsV)),
                                              add(mul(w, bsV), rem(blk, bsV))};
                  }
                }));
    return success();
  }
};

/// out[t, b] = in[len[b] - 1 - t, b] for t < len[b], else in[t, b] (along
/// time_axis and batch_axis).
struct ReverseSequenceLowering : OpConversionPattern<g::ReverseSequenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ReverseSequenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput(), lens = adaptor.getSequenceLens();
    auto type = dyn_cast<RankedTensorType>(input.getType());
    int64_t t = op.getTimeAxis(), bAxis = op.getBatchAxis();
    if (!type || type.getRank() < 2 || t < 0 || bAxis < 0 ||
        t >= type.getRank() || bAxis >= type.getRank() || t == bAxis)
      return rewriter.notifyMatchFailure(op, "unsupported axes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap lensMap =
        AffineMap::get(type.getRank(), 0, getAffineDimExpr(bAxis, ctx));
    rewriter.replaceOp(
        op,
        createGatherGeneric(
            rewriter, loc, type, dynamicDimsLike(rewriter, loc, type, input),
            input, lens, lensMap,
            [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange a) {
              Value len = toIndex(b, l, a[0]);
              Value rev = arith::SubIOp::create(
                  b, l, arith::SubIOp::create(b, l, len, ivs[t]),
                  indexConstant(b, l, 1));
              Value inSeq = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::slt, ivs[t], len);
              SmallVector<Value> idx(ivs);
              idx[t] = arith::SelectOp::create(b, l, inSeq, rev, ivs[t]);
              return idx;
            }));
    return success();
  }
};

} // namespace

void populateGeneratorPatterns(GraphTypeConverter &converter,
                               RewritePatternSet &patterns);
void populateTopKPatterns(GraphTypeConverter &converter,
                          RewritePatternSet &patterns);
void populateGridSamplePatterns(GraphTypeConverter &converter,
                                RewritePatternSet &patterns);

void populateIndexingPatterns(GraphTypeConverter &converter,
                              RewritePatternSet &patterns) {
  patterns.add<GatherElementsLowering, GatherNDLowering,
               ScatterElementsLowering, ScatterNDLowering, OneHotLowering,
               TileLowering, ReverseSequenceLowering,
               BlockRearrangeLowering<g::DepthToSpaceOp, /*ToSpace=*/true>,
               BlockRearrangeLowering<g::SpaceToDepthOp, /*ToSpace=*/false>>(
      converter, patterns.getContext());
  populateGeneratorPatterns(converter, patterns);
  populateTopKPatterns(converter, patterns);
  populateGridSamplePatterns(converter, patterns);
}

} // namespace kiln
