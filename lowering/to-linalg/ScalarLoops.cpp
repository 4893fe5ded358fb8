//===- ScalarLoops.cpp - Sequential scf loops on tensors ------------------===//

#include "lowering/to-linalg/ScalarLoops.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

using P = arith::CmpIPredicate;

Value ScalarLoops::c(int64_t v) { return indexConstant(b, loc, v); }
Value ScalarLoops::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value ScalarLoops::sub(Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}
Value ScalarLoops::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value ScalarLoops::min(Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}
Value ScalarLoops::lt(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, P::slt, x, y);
}
Value ScalarLoops::eq(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, P::eq, x, y);
}
Value ScalarLoops::andI(Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
Value ScalarLoops::orI(Value x, Value y) {
  return arith::OrIOp::create(b, loc, x, y);
}
Value ScalarLoops::notI(Value x) {
  Value one = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  return arith::XOrIOp::create(b, loc, x, one);
}
Value ScalarLoops::select(Value cond, Value x, Value y) {
  return arith::SelectOp::create(b, loc, cond, x, y);
}
Value ScalarLoops::oneIf(Value cond) { return select(cond, c(1), c(0)); }
Value ScalarLoops::toI64(Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}
Value ScalarLoops::toIndex(Value integer) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), integer);
}
Value ScalarLoops::at(Value tensor, ValueRange ivs) {
  return tensor::ExtractOp::create(b, loc, tensor, ivs);
}
Value ScalarLoops::put(Value v, Value tensor, ValueRange ivs) {
  return tensor::InsertOp::create(b, loc, v, tensor, ivs);
}
Value ScalarLoops::product(ArrayRef<Value> dims) {
  Value p = c(1);
  for (Value d : dims)
    p = mul(p, d);
  return p;
}

ScalarLoops::Values ScalarLoops::loop(Value n, ValueRange init, Body body) {
  auto forOp = scf::ForOp::create(
      b, loc, c(0), n, c(1), init,
      [&](OpBuilder &nb, Location nl, Value iv, ValueRange acc) {
        ScalarLoops inner{nb, nl};
        scf::YieldOp::create(nb, nl, body(inner, iv, acc));
      });
  return Values(forOp.getResults());
}

ScalarLoops::Values ScalarLoops::ifElse(Value cond, Branch then,
                                        Branch orElse) {
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &nb, Location nl) {
        ScalarLoops inner{nb, nl};
        scf::YieldOp::create(nb, nl, then(inner));
      },
      [&](OpBuilder &nb, Location nl) {
        ScalarLoops inner{nb, nl};
        scf::YieldOp::create(nb, nl, orElse(inner));
      });
  return Values(ifOp.getResults());
}

ScalarLoops::Values ScalarLoops::ifThen(Value cond, ValueRange acc,
                                        Branch then) {
  Values keep(acc);
  return ifElse(cond, then, [&](ScalarLoops &) { return keep; });
}

Value ScalarLoops::zeros(ArrayRef<int64_t> shape, Type elt, ValueRange dyn) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elt, dyn);
  Value zero = createScalarConstant(b, loc, elt, 0);
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

Value ScalarLoops::flatten(Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getRank() == 1)
    return t;
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, type.getElementType()), t,
        SmallVector<ReassociationIndices>{},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return tensor::CollapseShapeOp::create(
      b, loc, t, SmallVector<ReassociationIndices>{all});
}

Value ScalarLoops::unflatten(Value flat, RankedTensorType type,
                             ArrayRef<Value> sizes) {
  // A static result needs a static flat view to expand from.
  auto flatType = cast<RankedTensorType>(flat.getType());
  if (type.hasStaticShape() && flatType.isDynamicDim(0))
    flat = tensor::CastOp::create(
        b, loc, flatType.clone({type.getNumElements()}), flat);
  if (type.getRank() == 1)
    return flat;
  ReassociationIndices all;
  SmallVector<OpFoldResult> out;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    all.push_back(i);
    out.push_back(type.isDynamicDim(i) ? OpFoldResult(sizes[i])
                                       : b.getIndexAttr(type.getDimSize(i)));
  }
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           SmallVector<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(
      b, loc, type, flat, SmallVector<ReassociationIndices>{all}, out);
}

} // namespace kiln
