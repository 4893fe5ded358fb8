//===- MatMul.cpp - MatMul and Gemm to linalg -----------------------------===//
//
// MatMul follows numpy.matmul: 1-D operands gain a unit dim that is dropped
// again, batch dims broadcast. The common forms map onto linalg.matmul and
// linalg.batch_matmul; broadcast batches use a linalg.generic contraction.
// Gemm is a linalg.matmul with transposing indexing maps plus an epilogue.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// Scalar multiply-add `acc + a * b` for float or integer elements.
Value mulAdd(OpBuilder &b, Location loc, Value a, Value x, Value acc) {
  if (isa<FloatType>(a.getType()))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, a, x));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, a, x));
}

/// A zero-filled tensor of `type`; dynamic extents come from `dims`, one
/// (value, dim index) pair per dynamic dim in order.
Value zeroTensor(OpBuilder &b, Location loc, RankedTensorType type,
                 ArrayRef<std::pair<Value, int64_t>> dims) {
  SmallVector<Value> dyn;
  for (auto [v, d] : dims)
    dyn.push_back(tensor::DimOp::create(b, loc, v, d));
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType(), dyn);
  Value zero = createScalarConstant(b, loc, type.getElementType(), 0.0);
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// A 1-D `v` as a row ([1, K]) or a column ([K, 1]).
Value insertUnitDim(OpBuilder &b, Location loc, Value v, bool front) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  shape.insert(front ? shape.begin() : shape.end(), 1);
  SmallVector<ReassociationIndices> re = {{0, 1}};
  return tensor::ExpandShapeOp::create(b, loc, t.clone(shape), v, re);
}

/// The bias and activation of a FusedMatMul, applied to the product in one
/// elementwise op; nothing for a plain MatMul.
Value applyMatMulEpilogue(OpBuilder &, Location, g::MatMulOp,
                          g::MatMulOp::Adaptor, Value y) {
  return y;
}
Value applyMatMulEpilogue(OpBuilder &b, Location loc, g::FusedMatMulOp op,
                          g::FusedMatMulOp::Adaptor adaptor, Value y) {
  return applyEpilogue(b, loc, y, adaptor.getBias(),
                       *g::parseActivation(op.getActivation()),
                       op.getActivationParams());
}

/// MatMul, and FusedMatMul as MatMul plus its epilogue.
template <typename OpT> struct MatMulLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Value a = adaptor.getA(), b = adaptor.getB();
    auto at = dyn_cast<RankedTensorType>(a.getType());
    auto bt = dyn_cast<RankedTensorType>(b.getType());
    if (!resultType || !at || !bt)
      return rewriter.notifyMatchFailure(op, "needs ranked operands");
    bool vecA = at.getRank() == 1, vecB = bt.getRank() == 1;
    if (vecA)
      a = insertUnitDim(rewriter, loc, a, /*front=*/true);
    if (vecB)
      b = insertUnitDim(rewriter, loc, b, /*front=*/false);
    at = cast<RankedTensorType>(a.getType());
    bt = cast<RankedTensorType>(b.getType());
    int64_t ra = at.getRank(), rb = bt.getRank();
    // A right-hand side whose batch dims are all 1 (and no more of them than
    // the left has) is one [K, N] matrix for every batch.
    if (rb > 2 && rb <= ra &&
        llvm::all_of(bt.getShape().drop_back(2),
                     [](int64_t d) { return d == 1; })) {
      SmallVector<ReassociationIndices> re(1);
      for (int64_t i = 0; i < rb - 1; ++i)
        re[0].push_back(i);
      re.push_back({rb - 1});
      b = tensor::CollapseShapeOp::create(rewriter, loc, b, re);
      bt = cast<RankedTensorType>(b.getType());
      rb = 2;
    }

    // Result with both unit dims kept: [batch..., M, N].
    int64_t batchRank = std::max(ra, rb) - 2;
    SmallVector<int64_t> full(resultType.getShape().take_front(batchRank));
    full.push_back(at.getDimSize(ra - 2));
    full.push_back(bt.getDimSize(rb - 1));
    auto fullType = resultType.clone(full);

    Value result;
    if (ra == 2 && rb == 2) {
      Value init =
          zeroTensor(rewriter, loc, fullType, dynPairs(fullType, a, b));
      result = linalg::MatmulOp::create(rewriter, loc, TypeRange{fullType},
                                        ValueRange{a, b}, ValueRange{init})
                   .getResult(0);
    } else if (rb == 2) {
      // [batch..., M, K] x [K, N]: fold the batch into M.
      SmallVector<ReassociationIndices> re(1);
      for (int64_t i = 0; i < ra - 1; ++i)
        re[0].push_back(i);
      re.push_back({ra - 1});
      Value a2 = tensor::CollapseShapeOp::create(rewriter, loc, a, re);
      auto a2t = cast<RankedTensorType>(a2.getType());
      auto mmType = RankedTensorType::get({a2t.getDimSize(0), bt.getDimSize(1)},
                                          fullType.getElementType());
      Value init = zeroTensor(rewriter, loc, mmType, dynPairs(mmType, a2, b));
      Value mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{mmType},
                                          ValueRange{a2, b}, ValueRange{init})
                     .getResult(0);
      SmallVector<OpFoldResult> shape;
      for (int64_t i = 0; i < ra - 1; ++i)
        shape.push_back(tensor::getMixedSize(rewriter, loc, a, i));
      shape.push_back(tensor::getMixedSize(rewriter, loc, b, 1));
      result =
          tensor::ExpandShapeOp::create(rewriter, loc, fullType, mm, re, shape);
    } else if (ra == 3 && rb == 3 && at.getDimSize(0) != 1 &&
               bt.getDimSize(0) != 1) {
      Value init =
          zeroTensor(rewriter, loc, fullType, dynPairs(fullType, a, b));
      result = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{fullType},
                                             ValueRange{a, b}, ValueRange{init})
                   .getResult(0);
    } else if (Value merged = mergedBatchMatmul(
                   rewriter, loc, broadcastBatch(rewriter, loc, a, fullType),
                   broadcastBatch(rewriter, loc, b, fullType), fullType)) {
      // Equal batch dims merge as they are; broadcast ones after the operand
      // is copied to every batch (a copy of M x K or K x N floats a batch,
      // against M x N x K multiply-adds).
      result = merged;
    } else {
      result = broadcastMatmul(rewriter, loc, a, b, fullType);
      if (!result)
        return rewriter.notifyMatchFailure(op, "unsupported dynamic batch");
    }

    if (vecA || vecB) {
      // Drop the unit dims again: merge them into a neighbouring group.
      int64_t r = fullType.getRank();
      SmallVector<ReassociationIndices> re;
      for (int64_t i = 0; i < r - 2; ++i)
        re.push_back({i});
      if (!(vecA && vecB))
        re.push_back({r - 2, r - 1});
      else if (!re.empty())
        re.back().append({r - 2, r - 1});
      result = tensor::CollapseShapeOp::create(rewriter, loc, resultType,
                                               result, re);
    }
    rewriter.replaceOp(op,
                       applyMatMulEpilogue(rewriter, loc, op, adaptor, result));
    return success();
  }

  /// [batch..., M, K] x [batch..., K, N] with the same static batch dims
  /// (attention's [1, heads, T, d] products): the batch dims merged into
  /// one, a linalg.batch_matmul (linalg.matmul for a batch of one) and the
  /// result expanded again, so that the product takes the register kernel
  /// (as a generic over several batch loops it ran scalar loops, 3 GF/s);
  /// null for other forms.
  static Value mergedBatchMatmul(OpBuilder &b, Location loc, Value x, Value y,
                                 RankedTensorType fullType) {
    auto xt = cast<RankedTensorType>(x.getType());
    auto yt = cast<RankedTensorType>(y.getType());
    int64_t r = xt.getRank();
    if (r < 3 || yt.getRank() != r)
      return {};
    int64_t batch = 1;
    for (int64_t i = 0; i < r - 2; ++i) {
      if (xt.isDynamicDim(i) || xt.getDimSize(i) != yt.getDimSize(i))
        return {};
      batch *= xt.getDimSize(i);
    }
    // Groups of the operands' and the result's dims: the batch (or, for a
    // batch of one, the batch with the rows), then the rest one by one.
    SmallVector<ReassociationIndices> re;
    ReassociationIndices lead;
    for (int64_t i = 0; i < (batch == 1 ? r - 1 : r - 2); ++i)
      lead.push_back(i);
    re.push_back(lead);
    for (int64_t i = lead.size(); i < r; ++i)
      re.push_back({i});
    Value x2 = tensor::CollapseShapeOp::create(b, loc, x, re);
    Value y2 = tensor::CollapseShapeOp::create(b, loc, y, re);
    auto x2t = cast<RankedTensorType>(x2.getType());
    auto y2t = cast<RankedTensorType>(y2.getType());
    SmallVector<int64_t> shape(x2t.getShape().drop_back());
    shape.push_back(y2t.getDimSize(y2t.getRank() - 1));
    auto type = fullType.clone(shape);
    Value init = zeroTensor(b, loc, type, dynPairs(type, x2, y2));
    Value product =
        batch == 1
            ? linalg::MatmulOp::create(b, loc, TypeRange{type},
                                       ValueRange{x2, y2}, ValueRange{init})
                  .getResult(0)
            : linalg::BatchMatmulOp::create(
                  b, loc, TypeRange{type}, ValueRange{x2, y2}, ValueRange{init})
                  .getResult(0);
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < r - 1; ++i)
      sizes.push_back(tensor::getMixedSize(b, loc, x, i));
    sizes.push_back(tensor::getMixedSize(b, loc, y, r - 1));
    return tensor::ExpandShapeOp::create(b, loc, fullType, product, re, sizes);
  }

  /// `v` ([batch..., R, C]) with the static batch dims of `full`: unit and
  /// missing batch dims broadcast; `v` itself where they match or where a
  /// batch dim is dynamic.
  static Value broadcastBatch(OpBuilder &b, Location loc, Value v,
                              RankedTensorType full) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t r = t.getRank(), fr = full.getRank(), batch = fr - 2;
    ArrayRef<int64_t> fullBatch = full.getShape().take_front(batch);
    if (llvm::any_of(fullBatch, ShapedType::isDynamic) ||
        llvm::any_of(t.getShape().drop_back(2), ShapedType::isDynamic))
      return v;
    SmallVector<int64_t> shape(fullBatch);
    shape.append({t.getDimSize(r - 2), t.getDimSize(r - 1)});
    if (ArrayRef<int64_t>(shape) == t.getShape())
      return v;
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineExpr> in;
    for (int64_t i = 0; i < r - 2; ++i) {
      int64_t d = i + batch - (r - 2);
      in.push_back(t.getDimSize(i) == 1 && fullBatch[d] != 1
                       ? getAffineConstantExpr(0, ctx)
                       : getAffineDimExpr(d, ctx));
    }
    in.append({getAffineDimExpr(batch, ctx), getAffineDimExpr(batch + 1, ctx)});
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : fullBatch)
      sizes.push_back(b.getIndexAttr(d));
    sizes.push_back(tensor::getMixedSize(b, loc, v, r - 2));
    sizes.push_back(tensor::getMixedSize(b, loc, v, r - 1));
    Value init = tensor::EmptyOp::create(b, loc, sizes, t.getElementType());
    SmallVector<utils::IteratorType> iters(fr, utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{v}, init,
               ArrayRef<AffineMap>{AffineMap::get(fr, 0, in, ctx),
                                   b.getMultiDimIdentityMap(fr)},
               iters,
               [](OpBuilder &nb, Location l, ValueRange args) {
                 linalg::YieldOp::create(nb, l, args[0]);
               })
        .getResult(0);
  }

  /// Dynamic dims of a [.., M, N] result: batch and M from `a`, N from `b`.
  static SmallVector<std::pair<Value, int64_t>> dynPairs(RankedTensorType type,
                                                         Value a, Value b) {
    SmallVector<std::pair<Value, int64_t>> out;
    int64_t r = type.getRank();
    auto at = cast<RankedTensorType>(a.getType());
    auto bt = cast<RankedTensorType>(b.getType());
    for (int64_t i = 0; i < r; ++i) {
      if (!type.isDynamicDim(i))
        continue;
      int64_t ai = i - (r - at.getRank()), bi = i - (r - bt.getRank());
      if (i == r - 1)
        out.push_back({b, bt.getRank() - 1});
      else if (i == r - 2 || (ai >= 0 && at.getDimSize(ai) != 1))
        out.push_back({a, ai});
      else
        out.push_back({b, bi});
    }
    return out;
  }

  /// Contraction over loops (batch..., m, n, k) with broadcast batch maps.
  static Value broadcastMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                               RankedTensorType type) {
    MLIRContext *ctx = b.getContext();
    int64_t r = type.getRank(), batch = r - 2;
    auto batchExprs = [&](RankedTensorType t) {
      SmallVector<AffineExpr> e;
      int64_t off = batch - (t.getRank() - 2);
      for (int64_t i = 0; i < t.getRank() - 2; ++i)
        e.push_back(t.getDimSize(i) == 1 ? getAffineConstantExpr(0, ctx)
                                         : getAffineDimExpr(i + off, ctx));
      return e;
    };
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    AffineExpr m = getAffineDimExpr(batch, ctx),
               n = getAffineDimExpr(batch + 1, ctx),
               k = getAffineDimExpr(batch + 2, ctx);
    SmallVector<AffineExpr> le = batchExprs(lt), re = batchExprs(rt), oe;
    le.append({m, k});
    re.append({k, n});
    for (int64_t i = 0; i < r; ++i)
      oe.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(r + 1, 0, le, ctx),
                                   AffineMap::get(r + 1, 0, re, ctx),
                                   AffineMap::get(r + 1, 0, oe, ctx)};
    // Each dynamic batch extent comes from an operand that is not 1 there.
    for (int64_t i = 0; i < batch; ++i) {
      if (!type.isDynamicDim(i))
        continue;
      int64_t li = i - (batch - (lt.getRank() - 2));
      int64_t ri = i - (batch - (rt.getRank() - 2));
      bool lOk = li >= 0 && lt.getDimSize(li) != 1;
      bool rOk = ri >= 0 && rt.getDimSize(ri) != 1;
      if (!lOk && !rOk)
        return nullptr;
    }
    Value init = zeroTensor(b, loc, type, dynPairs(type, lhs, rhs));
    SmallVector<utils::IteratorType> iters(r, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    return linalg::GenericOp::create(
               b, loc, type, ValueRange{lhs, rhs}, init, maps, iters,
               [](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(
                     nb, nl, mulAdd(nb, nl, args[0], args[1], args[2]));
               })
        .getResult(0);
  }
};

struct GemmLowering : OpConversionPattern<g::GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    MLIRContext *ctx = rewriter.getContext();
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getC();
    bool ta = op.getTransA() != 0, tb = op.getTransB() != 0;
    Type elt = type.getElementType();
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    bool hasC = !isAbsent(c) && beta != 0.0;

    SmallVector<std::pair<Value, int64_t>> dyn;
    if (type.isDynamicDim(0))
      dyn.push_back({a, ta ? 1 : 0});
    if (type.isDynamicDim(1))
      dyn.push_back({b, tb ? 0 : 1});
    SmallVector<Value> dynVals;
    for (auto [v, d] : dyn)
      dynVals.push_back(tensor::DimOp::create(rewriter, loc, v, d));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elt, dynVals);

    // With alpha == 1 the product accumulates straight into beta * C.
    Value init;
    if (hasC && alpha == 1.0)
      init = scaledC(rewriter, loc, c, beta, empty, type);
    else
      init = linalg::FillOp::create(rewriter, loc,
                                    createScalarConstant(rewriter, loc, elt, 0),
                                    empty)
                 .getResult(0);

    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMapAttr::get(AffineMap::get(3, 0, {x, y}, ctx));
    };
    ArrayAttr maps = rewriter.getArrayAttr(
        {ta ? map(k, m) : map(m, k), tb ? map(n, k) : map(k, n), map(m, n)});
    Value mm =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{type},
                                 ValueRange{a, b}, ValueRange{init},
                                 {rewriter.getNamedAttr("indexing_maps", maps)})
            .getResult(0);
    if (alpha != 1.0) {
      Value alphaV = createScalarConstant(rewriter, loc, elt, alpha);
      Value scaled = createBroadcastGeneric(
          rewriter, loc, type, {mm},
          [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
            if (isa<FloatType>(elt))
              return arith::MulFOp::create(nb, nl, args[0], alphaV);
            return arith::MulIOp::create(nb, nl, args[0], alphaV);
          });
      mm = hasC ? addScaledC(rewriter, loc, scaled, c, beta, type) : scaled;
    }
    rewriter.replaceOp(op, mm);
    return success();
  }

  static Value scale(OpBuilder &b, Location loc, Value x, double s) {
    if (s == 1.0)
      return x;
    Value sv = createScalarConstant(b, loc, x.getType(), s);
    if (isa<FloatType>(x.getType()))
      return arith::MulFOp::create(b, loc, x, sv);
    return arith::MulIOp::create(b, loc, x, sv);
  }

  /// beta * C broadcast to `type`, written into `empty`.
  static Value scaledC(OpBuilder &b, Location loc, Value c, double beta,
                       Value empty, RankedTensorType type) {
    auto ct = cast<RankedTensorType>(c.getType());
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineMap> maps = {getBroadcastMap(ctx, ct, type.getShape()),
                                   b.getMultiDimIdentityMap(2)};
    SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, type, ValueRange{c}, ValueRange{empty}, maps, iters,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(nb, nl, scale(nb, nl, args[0], beta));
               })
        .getResult(0);
  }

  static Value addScaledC(OpBuilder &b, Location loc, Value y, Value c,
                          double beta, RankedTensorType type) {
    auto ct = cast<RankedTensorType>(c.getType());
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(2),
                                   getBroadcastMap(ctx, ct, type.getShape()),
                                   b.getMultiDimIdentityMap(2)};
    SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, type, ValueRange{y, c}, ValueRange{y}, maps, iters,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 Value sc = scale(nb, nl, args[1], beta);
                 Value r = isa<FloatType>(sc.getType())
                               ? arith::AddFOp::create(nb, nl, args[0], sc)
                                     .getResult()
                               : arith::AddIOp::create(nb, nl, args[0], sc)
                                     .getResult();
                 linalg::YieldOp::create(nb, nl, r);
               })
        .getResult(0);
  }
};

} // namespace

void populateMatMulLoweringPatterns(GraphTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<MatMulLowering<g::MatMulOp>, MatMulLowering<g::FusedMatMulOp>,
               GemmLowering>(converter, patterns.getContext());
}

} // namespace kiln
