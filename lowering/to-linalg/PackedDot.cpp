//===- PackedDot.cpp - Products with weights packed for dot tiles ---------===//

#include "lowering/to-linalg/PackedDot.h"
#include "dialects/graph/ConstantData.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

int64_t getDotGroup(Type weightType) {
  if (weightType.isInteger(8))
    return 4;
  if (weightType.isBF16())
    return 2;
  return 1;
}

PackedWeight packDotWeight(OpBuilder &b, Location loc, int64_t k, int64_t n,
                           Type weightType,
                           llvm::function_ref<double(int64_t, int64_t)> w,
                           StringRef name) {
  PackedWeight p;
  p.group = getDotGroup(weightType);
  p.kPadded = llvm::alignTo(k, p.group);
  p.nPadded = llvm::alignTo(n, 16);
  int64_t bytesPer = weightType.getIntOrFloatBitWidth() / 8;
  std::vector<char> bytes(p.kPadded * p.nPadded * bytesPer, 0);
  auto floatType = dyn_cast<FloatType>(weightType);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t nn = 0; nn < n; ++nn) {
      char *dst =
          &bytes[(((kk / p.group) * p.nPadded + nn) * p.group + kk % p.group) *
                 bytesPer];
      double v = w(kk, nn);
      if (floatType)
        storeDouble(floatType, v, dst);
      else
        *dst = static_cast<char>(static_cast<int8_t>(v));
    }
  auto type = RankedTensorType::get({p.kPadded / p.group, p.nPadded, p.group},
                                    weightType);
  p.packed = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(createConstantAttr(type, bytes, name)));
  return p;
}

Value buildDotProduct(OpBuilder &b, Location loc, Value rows,
                      const PackedWeight &w) {
  MLIRContext *ctx = b.getContext();
  auto rt = cast<RankedTensorType>(rows.getType());
  int64_t m = rt.getDimSize(0);
  Type elt = rt.getElementType();
  bool integer = elt.isInteger(8);
  Type accType = integer ? Type(b.getI32Type()) : Type(b.getF32Type());
  Value a3 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({m, w.kPadded / w.group, w.group}, elt),
      rows, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value init = linalg::FillOp::create(
                   b, loc, createScalarConstant(b, loc, accType, 0),
                   tensor::EmptyOp::create(
                       b, loc, ArrayRef<int64_t>{m, w.nPadded}, accType)
                       .getResult())
                   .getResult(0);
  AffineExpr dm, dn, dk, dj;
  bindDims(ctx, dm, dn, dk, dj);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {dm, dk, dj}, ctx),
                                 AffineMap::get(4, 0, {dk, dn, dj}, ctx),
                                 AffineMap::get(4, 0, {dm, dn}, ctx)};
  utils::IteratorType par = utils::IteratorType::parallel,
                      red = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{a3, w.packed}, init, maps,
             ArrayRef<utils::IteratorType>{par, par, red, red},
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value x = args[0], y = args[1], sum;
               if (integer) {
                 x = arith::ExtUIOp::create(nb, nl, accType, x);
                 y = arith::ExtSIOp::create(nb, nl, accType, y);
                 sum = arith::AddIOp::create(
                     nb, nl, args[2], arith::MulIOp::create(nb, nl, x, y));
               } else {
                 if (x.getType() != accType)
                   x = arith::ExtFOp::create(nb, nl, accType, x);
                 y = arith::ExtFOp::create(nb, nl, accType, y);
                 sum = arith::AddFOp::create(
                     nb, nl, args[2], arith::MulFOp::create(nb, nl, x, y));
               }
               linalg::YieldOp::create(nb, nl, ValueRange{sum});
             })
      .getResult(0);
}

Value takeColumns(OpBuilder &b, Location loc, Value acc, int64_t n) {
  auto t = cast<RankedTensorType>(acc.getType());
  if (t.getDimSize(1) == n)
    return acc;
  int64_t m = t.getDimSize(0);
  return tensor::ExtractSliceOp::create(
      b, loc, t.clone({m, n}), acc,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(m), b.getIndexAttr(n)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

Value padColumns(OpBuilder &b, Location loc, Value a, int64_t kPadded) {
  auto t = cast<RankedTensorType>(a.getType());
  if (t.getDimSize(1) == kPadded)
    return a;
  Value zero = createScalarConstant(b, loc, t.getElementType(), 0);
  return tensor::PadOp::create(
      b, loc, t.clone({t.getDimSize(0), kPadded}), a,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(0),
                             b.getIndexAttr(kPadded - t.getDimSize(1))},
      zero);
}

/// The reassociation between rank `rank` ([..., K]) and rows [M, K].
static SmallVector<ReassociationIndices> rowDims(int64_t rank) {
  if (rank == 1)
    return {{0, 1}};
  return {llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)), {rank - 1}};
}

Value toRows(OpBuilder &b, Location loc, Value x) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank(), k = t.getDimSize(rank - 1);
  auto rows = t.clone({t.getNumElements() / k, k});
  if (rank == 1)
    return tensor::ExpandShapeOp::create(b, loc, rows, x, rowDims(rank));
  if (rank > 2)
    return tensor::CollapseShapeOp::create(b, loc, rows, x, rowDims(rank));
  return x;
}

Value fromRows(OpBuilder &b, Location loc, Value y, RankedTensorType type) {
  int64_t rank = type.getRank();
  if (rank == 1)
    return tensor::CollapseShapeOp::create(b, loc, type, y, rowDims(rank));
  if (rank > 2)
    return tensor::ExpandShapeOp::create(b, loc, type, y, rowDims(rank));
  return y;
}

Value buildConvRows(OpBuilder &b, Location loc, Value x, int64_t kh, int64_t kw,
                    ArrayRef<int64_t> st, ArrayRef<int64_t> dil, int64_t oh,
                    int64_t ow) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(3);
  if (kh == 1 && kw == 1 && st[0] == 1 && st[1] == 1 &&
      xt.getDimSize(1) == oh && xt.getDimSize(2) == ow)
    return tensor::CollapseShapeOp::create(
        b, loc, x, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  MLIRContext *ctx = b.getContext();
  AffineExpr dn, dh, dw, dkh, dkw, dc;
  bindDims(ctx, dn, dh, dw, dkh, dkw, dc);
  SmallVector<AffineMap> maps = {
      AffineMap::get(
          6, 0, {dn, dh * st[0] + dkh * dil[0], dw * st[1] + dkw * dil[1], dc},
          ctx),
      AffineMap::get(6, 0, {dn, dh, dw, dkh, dkw, dc}, ctx)};
  Value cols = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{n, oh, ow, kh, kw, c}, xt.getElementType());
  Value gathered =
      linalg::GenericOp::create(
          b, loc, cols.getType(), x, cols, maps,
          SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location nl, ValueRange args) {
            linalg::YieldOp::create(nb, nl, args[0]);
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, gathered,
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
}

Value mapAndPermute(
    OpBuilder &b, Location loc, Value x, Type elt, ArrayRef<int64_t> perm,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto xt = cast<RankedTensorType>(x.getType());
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
  if (!fn && identity && xt.getElementType() == elt)
    return x;
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> read(perm.size());
  for (auto [d, p] : llvm::enumerate(perm)) {
    shape.push_back(xt.getDimSize(p));
    read[p] = b.getAffineDimExpr(d);
  }
  Value out = tensor::EmptyOp::create(b, loc, shape, elt);
  MLIRContext *ctx = b.getContext();
  auto maps = SmallVector<AffineMap>{AffineMap::get(perm.size(), 0, read, ctx),
                                     b.getMultiDimIdentityMap(perm.size())};
  SmallVector<utils::IteratorType> iters(perm.size(),
                                         utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, out.getType(), x, out, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = args[0];
               if (fn)
                 v = fn(nb, nl, v);
               if (v.getType() != elt)
                 v = arith::TruncFOp::create(nb, nl, elt, v);
               linalg::YieldOp::create(nb, nl, ValueRange{v});
             })
      .getResult(0);
}

} // namespace kiln
