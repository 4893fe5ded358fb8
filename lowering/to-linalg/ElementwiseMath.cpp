//===- ElementwiseMath.cpp - More elementwise kiln.graph ops to linalg ----===//
//
// Trigonometry, rounding, parameterized activations, logic and bit ops and
// the variadic Max/Min/Sum/Mean, each as a scalar body for the broadcasting
// ElementwiseLowering pattern (ElementwiseLowering.h).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/ElementwiseLowering.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
namespace g = kiln::graph;

namespace kiln::elementwise {

/// `build(x)` in f32 for half-precision `x`: libm, which transcendentals
/// lower to, has no f16/bf16 variants.
template <typename Fn>
static Value viaF32(OpBuilder &b, Location loc, Value x, Fn build) {
  Type t = x.getType();
  if (t.getIntOrFloatBitWidth() >= 32)
    return build(x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, t, build(wide));
}

template <typename MathOp>
static Value libmUnary(OpBuilder &b, Location loc, Value x) {
  return viaF32(b, loc, x,
                [&](Value v) -> Value { return MathOp::create(b, loc, v); });
}

static Value select(OpBuilder &b, Location loc, Value c, Value t, Value f) {
  return arith::SelectOp::create(b, loc, c, t, f);
}

static Value fcmp(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value x,
                  Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}

#define SCALAR(OP) KILN_ELEMENTWISE_SCALAR(OP)
#define LIBM_UNARY(OP, MATHOP)                                                 \
  SCALAR(OP) { return libmUnary<math::MATHOP>(b, loc, a[0]); }

LIBM_UNARY(SinOp, SinOp)
LIBM_UNARY(CosOp, CosOp)
LIBM_UNARY(TanOp, TanOp)
LIBM_UNARY(AsinOp, AsinOp)
LIBM_UNARY(AcosOp, AcosOp)
LIBM_UNARY(AtanOp, AtanOp)
LIBM_UNARY(SinhOp, SinhOp)
LIBM_UNARY(CoshOp, CoshOp)
#undef LIBM_UNARY

// The inverse hyperbolic functions as logarithms: libm's vector forms of
// them do not lower on every CPU level.
static Value sqrtOf(OpBuilder &b, Location loc, Value x) {
  return math::SqrtOp::create(b, loc, x);
}
static Value logOf(OpBuilder &b, Location loc, Value x) {
  return math::LogOp::create(b, loc, x);
}

// sign(x) log(|x| + sqrt(x^2 + 1)), odd and accurate for negative x.
SCALAR(AsinhOp) {
  Value x = a[0];
  Value ax = math::AbsFOp::create(b, loc, x);
  Value r = arith::AddFOp::create(
      b, loc, ax,
      sqrtOf(b, loc,
             arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x),
                                   cst(b, loc, x, 1))));
  return math::CopySignOp::create(b, loc, logOf(b, loc, r), x);
}

// log(x + sqrt(x^2 - 1)).
SCALAR(AcoshOp) {
  Value x = a[0];
  Value r = arith::AddFOp::create(
      b, loc, x,
      sqrtOf(b, loc,
             arith::SubFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x),
                                   cst(b, loc, x, 1))));
  return logOf(b, loc, r);
}

// log((1 + x) / (1 - x)) / 2.
SCALAR(AtanhOp) {
  Value x = a[0];
  Value one = cst(b, loc, x, 1);
  Value q = arith::DivFOp::create(b, loc, arith::AddFOp::create(b, loc, one, x),
                                  arith::SubFOp::create(b, loc, one, x));
  return arith::MulFOp::create(b, loc, logOf(b, loc, q), cst(b, loc, x, 0.5));
}

SCALAR(ReciprocalOp) {
  return arith::DivFOp::create(b, loc, cst(b, loc, a[0], 1), a[0]);
}
SCALAR(FloorOp) { return math::FloorOp::create(b, loc, a[0]); }
SCALAR(CeilOp) { return math::CeilOp::create(b, loc, a[0]); }
SCALAR(RoundOp) { return math::RoundEvenOp::create(b, loc, a[0]); }

// max(x, 0) + log1p(exp(-|x|)): no overflow for large x.
SCALAR(SoftplusOp) {
  Value x = a[0];
  Value pos = maxOf(b, loc, x.getType(), x, cst(b, loc, x, 0));
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  Value l = libmUnary<math::Log1pOp>(b, loc, e);
  return arith::AddFOp::create(b, loc, pos, l);
}

SCALAR(SoftsignOp) {
  Value x = a[0];
  Value d = arith::AddFOp::create(b, loc, cst(b, loc, x, 1),
                                  math::AbsFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, x, d);
}

SCALAR(HardSwishOp) {
  return arith::MulFOp::create(b, loc, a[0],
                               hardSigmoid(b, loc, a[0], 1.0 / 6.0, 0.5));
}

// -1, 1, or x itself for zeros (keeping their sign) and NaN.
SCALAR(SignOp) {
  Value x = a[0];
  Type elt = eltOf(op.getX());
  Value zero = cst(b, loc, x, 0), one = cst(b, loc, x, 1);
  if (elt.isUnsignedInteger())
    return select(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero), one,
        zero);
  Value gt = compare(b, loc, elt, {x, zero}, arith::CmpFPredicate::OGT,
                     arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt);
  Value lt = compare(b, loc, elt, {x, zero}, arith::CmpFPredicate::OLT,
                     arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
  return select(b, loc, lt, cst(b, loc, x, -1), select(b, loc, gt, one, x));
}

static Value expMinusOne(OpBuilder &b, Location loc, Value x) {
  return arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x),
                               cst(b, loc, x, 1));
}

SCALAR(EluOp) {
  Value x = a[0];
  Value neg = arith::MulFOp::create(
      b, loc, cst(b, loc, x, op.getAlpha().convertToDouble()),
      expMinusOne(b, loc, x));
  return select(b, loc,
                fcmp(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, x, 0)),
                neg, x);
}

// max(0, x) + min(0, alpha (exp(x / alpha) - 1)).
SCALAR(CeluOp) {
  Value x = a[0];
  Type t = x.getType();
  Value alpha = cst(b, loc, x, op.getAlpha().convertToDouble());
  Value e = arith::MulFOp::create(
      b, loc, alpha,
      expMinusOne(b, loc, arith::DivFOp::create(b, loc, x, alpha)));
  Value zero = cst(b, loc, x, 0);
  return arith::AddFOp::create(b, loc, maxOf(b, loc, t, x, zero),
                               minOf(b, loc, t, e, zero));
}

SCALAR(SeluOp) {
  Value x = a[0];
  Value alpha = cst(b, loc, x, op.getAlpha().convertToDouble());
  Value gamma = cst(b, loc, x, op.getGamma().convertToDouble());
  Value neg = arith::SubFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, alpha, math::ExpOp::create(b, loc, x)),
      alpha);
  Value y = select(
      b, loc, fcmp(b, loc, arith::CmpFPredicate::OGT, x, cst(b, loc, x, 0)), x,
      neg);
  return arith::MulFOp::create(b, loc, gamma, y);
}

SCALAR(ThresholdedReluOp) {
  Value x = a[0];
  Value alpha = cst(b, loc, x, op.getAlpha().convertToDouble());
  return select(b, loc, fcmp(b, loc, arith::CmpFPredicate::OGT, x, alpha), x,
                cst(b, loc, x, 0));
}

// x + bias below -lambd, x - bias above lambd, else 0.
SCALAR(ShrinkOp) {
  Value x = a[0];
  Type elt = eltOf(op.getX());
  double lambd = op.getLambd().convertToDouble();
  Value bias = cst(b, loc, x, op.getBias().convertToDouble());
  Value below = compare(b, loc, elt, {x, cst(b, loc, x, -lambd)},
                        arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
                        arith::CmpIPredicate::ult);
  Value above = compare(b, loc, elt, {x, cst(b, loc, x, lambd)},
                        arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
                        arith::CmpIPredicate::ugt);
  Value plus = arithBinary<arith::AddFOp, arith::AddIOp, arith::AddIOp>(
      b, loc, elt, x, bias);
  Value minus = arithBinary<arith::SubFOp, arith::SubIOp, arith::SubIOp>(
      b, loc, elt, x, bias);
  return select(b, loc, below, plus,
                select(b, loc, above, minus, cst(b, loc, x, 0)));
}

SCALAR(IsNaNOp) { return fcmp(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]); }

SCALAR(IsInfOp) {
  Value x = a[0];
  double inf = std::numeric_limits<double>::infinity();
  Value pos = fcmp(b, loc, arith::CmpFPredicate::OEQ, x, cst(b, loc, x, inf));
  Value neg = fcmp(b, loc, arith::CmpFPredicate::OEQ, x, cst(b, loc, x, -inf));
  bool wantPos = op.getDetectPositive() != 0;
  bool wantNeg = op.getDetectNegative() != 0;
  if (wantPos && wantNeg)
    return arith::OrIOp::create(b, loc, pos, neg);
  if (wantPos)
    return pos;
  if (wantNeg)
    return neg;
  return arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
}

SCALAR(GreaterOrEqualOp) {
  return compare(b, loc, eltOf(op.getA()), a, arith::CmpFPredicate::OGE,
                 arith::CmpIPredicate::sge, arith::CmpIPredicate::uge);
}
SCALAR(LessOrEqualOp) {
  return compare(b, loc, eltOf(op.getA()), a, arith::CmpFPredicate::OLE,
                 arith::CmpIPredicate::sle, arith::CmpIPredicate::ule);
}

// fmod = 1: C fmod/remainder (the dividend's sign). fmod = 0: the result
// takes the divisor's sign, as Python's %.
SCALAR(ModOp) {
  Type elt = eltOf(op.getA());
  Value x = a[0], y = a[1];
  Value r = arithBinary<arith::RemFOp, arith::RemSIOp, arith::RemUIOp>(
      b, loc, elt, x, y);
  if (op.getFmod() != 0 || elt.isUnsignedInteger())
    return r;
  Value zero = cst(b, loc, x, 0);
  Value rNeg = compare(b, loc, elt, {r, zero}, arith::CmpFPredicate::OLT,
                       arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
  Value yNeg = compare(b, loc, elt, {y, zero}, arith::CmpFPredicate::OLT,
                       arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
  Value rNonZero = compare(b, loc, elt, {r, zero}, arith::CmpFPredicate::ONE,
                           arith::CmpIPredicate::ne, arith::CmpIPredicate::ne);
  Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
  Value fix = arith::AndIOp::create(b, loc, differ, rNonZero);
  Value adjusted = arithBinary<arith::AddFOp, arith::AddIOp, arith::AddIOp>(
      b, loc, elt, r, y);
  return select(b, loc, fix, adjusted, r);
}

SCALAR(PReluOp) {
  Type elt = eltOf(op.getX());
  Value x = a[0], slope = a[1];
  if (elt.isUnsignedInteger())
    return x;
  Value neg =
      compare(b, loc, elt, {x, cst(b, loc, x, 0)}, arith::CmpFPredicate::OLT,
              arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
  Value scaled = arithBinary<arith::MulFOp, arith::MulIOp, arith::MulIOp>(
      b, loc, elt, x, slope);
  return select(b, loc, neg, scaled, x);
}

template <>
LogicalResult ElementwiseLowering<g::BitShiftOp>::check(g::BitShiftOp op) {
  return success(op.getDirection() == "LEFT" || op.getDirection() == "RIGHT");
}

// Shifts by the width or more give 0, as for unbounded integers.
SCALAR(BitShiftOp) {
  Value x = a[0], s = a[1];
  Value r = op.getDirection() == "LEFT"
                ? Value(arith::ShLIOp::create(b, loc, x, s))
                : Value(arith::ShRUIOp::create(b, loc, x, s));
  Value width = cst(b, loc, x, x.getType().getIntOrFloatBitWidth());
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, s, width);
  return select(b, loc, inRange, r, cst(b, loc, x, 0));
}

SCALAR(AndOp) { return arith::AndIOp::create(b, loc, a[0], a[1]); }
SCALAR(OrOp) { return arith::OrIOp::create(b, loc, a[0], a[1]); }
SCALAR(XorOp) { return arith::XOrIOp::create(b, loc, a[0], a[1]); }
SCALAR(NotOp) {
  return arith::XOrIOp::create(
      b, loc, a[0], arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
}

SCALAR(MaxOp) {
  Type elt = eltOf(op.getData_0()[0]);
  Value r = a[0];
  for (Value v : a.drop_front())
    r = maxOf(b, loc, elt, r, v);
  return r;
}
SCALAR(MinOp) {
  Type elt = eltOf(op.getData_0()[0]);
  Value r = a[0];
  for (Value v : a.drop_front())
    r = minOf(b, loc, elt, r, v);
  return r;
}

static Value sumOf(OpBuilder &b, Location loc, Type elt, ValueRange a) {
  Value r = a[0];
  for (Value v : a.drop_front())
    r = arithBinary<arith::AddFOp, arith::AddIOp, arith::AddIOp>(b, loc, elt, r,
                                                                 v);
  return r;
}

SCALAR(SumOp) { return sumOf(b, loc, eltOf(op.getData_0()[0]), a); }

template <> LogicalResult ElementwiseLowering<g::MeanOp>::check(g::MeanOp op) {
  return success(isa<FloatType>(eltOf(op.getData_0()[0])));
}
SCALAR(MeanOp) {
  Value s = sumOf(b, loc, eltOf(op.getData_0()[0]), a);
  return arith::DivFOp::create(b, loc, s, cst(b, loc, s, double(a.size())));
}

#undef SCALAR

} // namespace kiln::elementwise

namespace kiln {
using namespace elementwise;

void populateElementwiseMathLoweringPatterns(GraphTypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<
      ElementwiseLowering<g::SinOp>, ElementwiseLowering<g::CosOp>,
      ElementwiseLowering<g::TanOp>, ElementwiseLowering<g::AsinOp>,
      ElementwiseLowering<g::AcosOp>, ElementwiseLowering<g::AtanOp>,
      ElementwiseLowering<g::SinhOp>, ElementwiseLowering<g::CoshOp>,
      ElementwiseLowering<g::AsinhOp>, ElementwiseLowering<g::AcoshOp>,
      ElementwiseLowering<g::AtanhOp>, ElementwiseLowering<g::ReciprocalOp>,
      ElementwiseLowering<g::FloorOp>, ElementwiseLowering<g::CeilOp>,
      ElementwiseLowering<g::RoundOp>, ElementwiseLowering<g::SoftplusOp>,
      ElementwiseLowering<g::SoftsignOp>, ElementwiseLowering<g::HardSwishOp>,
      ElementwiseLowering<g::SignOp>, ElementwiseLowering<g::EluOp>,
      ElementwiseLowering<g::CeluOp>, ElementwiseLowering<g::SeluOp>,
      ElementwiseLowering<g::ThresholdedReluOp>,
      ElementwiseLowering<g::ShrinkOp>, ElementwiseLowering<g::IsNaNOp>,
      ElementwiseLowering<g::IsInfOp>, ElementwiseLowering<g::GreaterOrEqualOp>,
      ElementwiseLowering<g::LessOrEqualOp>, ElementwiseLowering<g::ModOp>,
      ElementwiseLowering<g::PReluOp>, ElementwiseLowering<g::BitShiftOp>,
      ElementwiseLowering<g::AndOp>, ElementwiseLowering<g::OrOp>,
      ElementwiseLowering<g::XorOp>, ElementwiseLowering<g::NotOp>,
      ElementwiseLowering<g::MaxOp>, ElementwiseLowering<g::MinOp>,
      ElementwiseLowering<g::SumOp>, ElementwiseLowering<g::MeanOp>>(
      converter, patterns.getContext());
}

} // namespace kiln
