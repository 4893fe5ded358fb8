//===- LoweringUtils.cpp - Helpers shared by to-linalg patterns -----------===//

#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace kiln {

Value createEmptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                        ValueRange sources) {
  SmallVector<Value> dynSizes;
  int64_t rank = type.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    if (!type.isDynamicDim(i))
      continue;
    Value size;
    for (Value src : sources) {
      auto t = dyn_cast<RankedTensorType>(src.getType());
      if (!t)
        continue;
      int64_t j = i - (rank - t.getRank());
      if (j < 0 || t.getDimSize(j) == 1)
        continue;
      size = tensor::DimOp::create(b, loc, src, j);
      break;
    }
    assert(size && "no source supplies a dynamic extent");
    dynSizes.push_back(size);
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynSizes);
}

Value createScalarConstant(OpBuilder &b, Location loc, Type type, double v) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, v));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, (int64_t)v));
}

AffineMap getBroadcastMap(MLIRContext *ctx, RankedTensorType input,
                          ArrayRef<int64_t> resultShape) {
  SmallVector<AffineExpr> exprs;
  int64_t resultRank = resultShape.size();
  int64_t offset = resultRank - input.getRank();
  for (int64_t i = 0; i < input.getRank(); ++i) {
    if (input.getDimSize(i) == 1 && resultShape[i + offset] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(resultRank, 0, exprs, ctx);
}

Value createBroadcastGeneric(OpBuilder &b, Location loc,
                             RankedTensorType resultType, ValueRange inputs,
                             const ScalarBodyFn &body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  Value init = createEmptyTensor(b, loc, resultType, inputs);
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(getBroadcastMap(ctx, cast<RankedTensorType>(in.getType()),
                                   resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value castScalar(OpBuilder &b, Location loc, Value v, Type to, bool srcUnsigned,
                 bool dstUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  bool fromF = isa<FloatType>(from), toF = isa<FloatType>(to);
  if (fromF && toF)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (fromF) {
    if (to.isInteger(1)) {
      Value zero = createScalarConstant(b, loc, from, 0.0);
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    }
    return dstUnsigned ? arith::FPToUIOp::create(b, loc, to, v).getResult()
                       : arith::FPToSIOp::create(b, loc, to, v).getResult();
  }
  if (from.isInteger(1) || srcUnsigned) {
    if (toF)
      return arith::UIToFPOp::create(b, loc, to, v);
  } else if (toF) {
    return arith::SIToFPOp::create(b, loc, to, v);
  }
  if (to.isInteger(1)) {
    Value zero = createScalarConstant(b, loc, from, 0.0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, to, v);
  if (from.isInteger(1) || srcUnsigned)
    return arith::ExtUIOp::create(b, loc, to, v);
  return arith::ExtSIOp::create(b, loc, to, v);
}

/// Product of the extents of `src` along `dims` as a scalar of type `elt`.
Value createElementCount(OpBuilder &b, Location loc, Value src,
                         ArrayRef<int64_t> dims, Type elt) {
  auto type = cast<RankedTensorType>(src.getType());
  int64_t staticCount = 1;
  Value dynCount;
  for (int64_t d : dims) {
    if (!type.isDynamicDim(d)) {
      staticCount *= type.getDimSize(d);
      continue;
    }
    Value dim = tensor::DimOp::create(b, loc, src, d);
    dynCount = dynCount ? arith::MulIOp::create(b, loc, dynCount, dim) : dim;
  }
  if (!dynCount)
    return createScalarConstant(b, loc, elt, (double)staticCount);
  Value c = arith::IndexCastOp::create(b, loc, b.getI64Type(), dynCount);
  if (staticCount != 1)
    c = arith::MulIOp::create(
        b, loc, c, createScalarConstant(b, loc, b.getI64Type(), staticCount));
  return castScalar(b, loc, c, elt);
}

SmallVector<Value, 4> cubicWeights(OpBuilder &b, Location loc, Value t,
                                   double a) {
  Type ft = t.getType();
  auto c = [&](double v) { return createScalarConstant(b, loc, ft, v); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubFOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  // Weight of a tap at distance d in [1, 2) and in [0, 1).
  auto far = [&](Value d) {
    return sub(mul(add(mul(sub(mul(c(a), d), c(5 * a)), d), c(8 * a)), d),
               c(4 * a));
  };
  auto near = [&](Value d) {
    return add(mul(mul(sub(mul(c(a + 2), d), c(a + 3)), d), d), c(1));
  };
  Value u = sub(c(1), t);
  return {far(add(t, c(1))), near(t), near(u), far(add(u, c(1)))};
}

/// `v` cast to a type whose dynamic dims take the static extents in
/// `known` (kDynamic: unknown there too).
Value refineDims(OpBuilder &b, Location l, Value v, ArrayRef<int64_t> known) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != int64_t(known.size()))
    return v;
  SmallVector<int64_t> shape(type.getShape());
  for (auto [i, k] : llvm::enumerate(known))
    if (ShapedType::isDynamic(shape[i]))
      shape[i] = k;
  if (shape == type.getShape())
    return v;
  return tensor::CastOp::create(b, l, type.clone(shape), v);
}

Value createTranspose(OpBuilder &b, Location loc, Value x,
                      ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return x;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : perm)
    sizes.push_back(tensor::getMixedSize(b, loc, x, d));
  Value init = tensor::EmptyOp::create(
      b, loc, sizes, cast<RankedTensorType>(x.getType()).getElementType());
  return linalg::TransposeOp::create(b, loc, x, init, perm).getResult()[0];
}

} // namespace kiln
