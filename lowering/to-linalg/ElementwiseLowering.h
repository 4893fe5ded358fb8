//===- ElementwiseLowering.h - Scalar-body elementwise lowering -*- C++ -*-===//
//
// The pattern every elementwise kiln.graph op lowers through: one
// broadcasting linalg.generic whose body an op supplies by specializing
// `ElementwiseLowering<Op>::buildScalar` (and optionally `check`), plus the
// scalar helpers those bodies share. Elementwise.cpp holds the arithmetic
// core, ElementwiseMath.cpp the rest of the ONNX elementwise set.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TOLINALG_ELEMENTWISELOWERING_H
#define KILN_LOWERING_TOLINALG_ELEMENTWISELOWERING_H

#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::elementwise {
using namespace mlir;

/// Element type of an unconverted value, signedness included.
inline Type eltOf(Value v) { return getElementTypeOrSelf(v.getType()); }

inline bool isIntOrFloat(Type t) { return isa<IntegerType, FloatType>(t); }

/// Lowers an elementwise op to one broadcasting linalg.generic whose body is
/// built by `buildScalar` (specialized per op below). Absent optional inputs
/// are dropped from the generic's inputs.
template <typename Op> struct ElementwiseLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op->getResult(0).getType()));
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    if (!isIntOrFloat(resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported result type");
    SmallVector<Value> inputs;
    for (Value v : adaptor.getOperands()) {
      if (isAbsent(v))
        continue;
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getRank() > resultType.getRank() ||
          !isIntOrFloat(t.getElementType()))
        return rewriter.notifyMatchFailure(op, "unsupported operand type");
      inputs.push_back(v);
    }
    if (failed(check(op)))
      return rewriter.notifyMatchFailure(op, "unsupported attributes");
    Value result = createBroadcastGeneric(
        rewriter, op.getLoc(), resultType, inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return buildScalar(op, b, loc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Rejects forms the scalar builder cannot express.
  static LogicalResult check(Op) { return success(); }

  static Value buildScalar(Op op, OpBuilder &b, Location loc, ValueRange args);
};

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

inline Value cst(OpBuilder &b, Location loc, Value like, double v) {
  return createScalarConstant(b, loc, like.getType(), v);
}

/// `x op y` choosing the float, signed or unsigned arith op by `elt`.
template <typename FOp, typename SOp, typename UOp>
inline Value arithBinary(OpBuilder &b, Location loc, Type elt, Value x,
                         Value y) {
  if (isa<FloatType>(elt))
    return FOp::create(b, loc, x, y);
  if (elt.isUnsignedInteger())
    return UOp::create(b, loc, x, y);
  return SOp::create(b, loc, x, y);
}

inline Value compare(OpBuilder &b, Location loc, Type elt, ValueRange a,
                     arith::CmpFPredicate fp, arith::CmpIPredicate sp,
                     arith::CmpIPredicate up) {
  if (isa<FloatType>(elt))
    return arith::CmpFOp::create(b, loc, fp, a[0], a[1]);
  return arith::CmpIOp::create(b, loc, elt.isUnsignedInteger() ? up : sp, a[0],
                               a[1]);
}

inline Value maxOf(OpBuilder &b, Location loc, Type elt, Value x, Value y) {
  return arithBinary<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(
      b, loc, elt, x, y);
}

inline Value minOf(OpBuilder &b, Location loc, Type elt, Value x, Value y) {
  return arithBinary<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(
      b, loc, elt, x, y);
}

/// Float cast that also handles equal-width pairs (f16 <-> bf16), which have
/// no direct ext/trunc, by going through f32.
inline Value castFloat(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from != to && from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
    x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return castScalar(b, loc, x, to);
}

/// clamp(alpha x + beta, 0, 1) (Elementwise.cpp).
Value hardSigmoid(OpBuilder &b, Location loc, Value x, double alpha,
                  double beta);

} // namespace kiln::elementwise

#define KILN_ELEMENTWISE_SCALAR(OP)                                            \
  template <>                                                                  \
  Value ElementwiseLowering<g::OP>::buildScalar(g::OP op, OpBuilder &b,        \
                                                Location loc, ValueRange a)

#endif // KILN_LOWERING_TOLINALG_ELEMENTWISELOWERING_H
