//===- Elementwise.cpp - Elementwise kiln.graph ops to linalg -------------===//
//
// Constants, casts and elementwise math become linalg.generic ops with ONNX
// broadcasting expressed in indexing maps. Each op supplies only its scalar
// body; signedness is read from the original (unconverted) operand types
// because the lowered integer types are signless.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Activation.h"
#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/ElementwiseLowering.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
using namespace elementwise;
namespace {

struct ConstantLowering : OpConversionPattern<g::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(getTypeConverter()->convertType(op.getType()));
    ElementsAttr value = op.getValue();
    if (value.getType() != type) {
      // Only the signedness of the element type changes.
      if (auto dense = dyn_cast<DenseElementsAttr>(value))
        value = dense.bitcast(type.getElementType());
      else if (auto res = dyn_cast<DenseResourceElementsAttr>(value))
        value = DenseResourceElementsAttr::get(type, res.getRawHandle());
      else
        return rewriter.notifyMatchFailure(op, "unsupported constant kind");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   cast<TypedAttr>(value));
    return success();
  }
};

struct IdentityLowering : OpConversionPattern<g::IdentityOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::IdentityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getX());
    return success();
  }
};

/// Integer power by repeated squaring (math.ipowi has no lowering in the CPU
/// pipeline). Negative exponents follow math.ipowi: 1 for base 1, +-1 for
/// base -1 by parity, else 0.
Value intPow(OpBuilder &b, Location loc, Value base, Value exp,
             bool isUnsigned) {
  using P = arith::CmpIPredicate;
  Type t = base.getType();
  Value zero = cst(b, loc, base, 0), one = cst(b, loc, base, 1);
  Value loopExp = exp, negExp;
  if (!isUnsigned) {
    negExp = arith::CmpIOp::create(b, loc, P::slt, exp, zero);
    loopExp = arith::SelectOp::create(b, loc, negExp, zero, exp);
  }
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{t, t, t}, ValueRange{one, base, loopExp},
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        Value more = arith::CmpIOp::create(nb, nl, P::ne, s[2], zero);
        scf::ConditionOp::create(nb, nl, more, s);
      },
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        Value bit = arith::AndIOp::create(nb, nl, s[2], one);
        Value odd = arith::CmpIOp::create(nb, nl, P::ne, bit, zero);
        Value mul = arith::MulIOp::create(nb, nl, s[0], s[1]);
        Value r = arith::SelectOp::create(nb, nl, odd, mul, s[0]);
        Value sq = arith::MulIOp::create(nb, nl, s[1], s[1]);
        Value e = arith::ShRUIOp::create(nb, nl, s[2], one);
        scf::YieldOp::create(nb, nl, ValueRange{r, sq, e});
      });
  Value result = loop.getResult(0);
  if (isUnsigned)
    return result;
  Value minusOne = cst(b, loc, base, -1);
  Value odd = arith::CmpIOp::create(
      b, loc, P::ne, arith::AndIOp::create(b, loc, exp, one), zero);
  Value isOne = arith::CmpIOp::create(b, loc, P::eq, base, one);
  Value isMinusOne = arith::CmpIOp::create(b, loc, P::eq, base, minusOne);
  Value minusOnePow = arith::SelectOp::create(b, loc, odd, minusOne, one);
  Value negResult = arith::SelectOp::create(
      b, loc, isOne, one,
      arith::SelectOp::create(b, loc, isMinusOne, minusOnePow, zero));
  return arith::SelectOp::create(b, loc, negExp, negResult, result);
}

//===----------------------------------------------------------------------===//
// Per-op scalar bodies
//===----------------------------------------------------------------------===//

} // namespace

namespace elementwise {
#define SCALAR(OP) KILN_ELEMENTWISE_SCALAR(OP)

SCALAR(AddOp) {
  return arithBinary<arith::AddFOp, arith::AddIOp, arith::AddIOp>(
      b, loc, eltOf(op.getA()), a[0], a[1]);
}
SCALAR(SubOp) {
  return arithBinary<arith::SubFOp, arith::SubIOp, arith::SubIOp>(
      b, loc, eltOf(op.getA()), a[0], a[1]);
}
SCALAR(MulOp) {
  return arithBinary<arith::MulFOp, arith::MulIOp, arith::MulIOp>(
      b, loc, eltOf(op.getA()), a[0], a[1]);
}
// arith.divsi truncates toward zero, as ONNX integer Div does.
SCALAR(DivOp) {
  return arithBinary<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>(
      b, loc, eltOf(op.getA()), a[0], a[1]);
}

SCALAR(PowOp) {
  Type bt = eltOf(op.getA()), et = eltOf(op.getB());
  Value base = a[0], exp = a[1];
  if (isa<FloatType>(bt)) {
    // An integral exponent becomes a float: powf is exact for it and
    // handles negative bases.
    exp = isa<FloatType>(et)
              ? castFloat(b, loc, exp, base.getType())
              : castScalar(b, loc, exp, base.getType(), et.isUnsignedInteger());
    return math::PowFOp::create(b, loc, base, exp);
  }
  if (isa<FloatType>(et)) {
    // Integer base, float exponent: compute in f64, truncate toward zero.
    Type f64 = b.getF64Type();
    Value r = math::PowFOp::create(
        b, loc, castScalar(b, loc, base, f64, bt.isUnsignedInteger()),
        castFloat(b, loc, exp, f64));
    return castScalar(b, loc, r, base.getType(), false, bt.isUnsignedInteger());
  }
  exp = castScalar(b, loc, exp, base.getType(), et.isUnsignedInteger());
  return intPow(b, loc, base, exp, bt.isUnsignedInteger());
}

SCALAR(EqualOp) {
  return compare(b, loc, eltOf(op.getA()), a, arith::CmpFPredicate::OEQ,
                 arith::CmpIPredicate::eq, arith::CmpIPredicate::eq);
}
SCALAR(LessOp) {
  return compare(b, loc, eltOf(op.getA()), a, arith::CmpFPredicate::OLT,
                 arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
}
SCALAR(GreaterOp) {
  return compare(b, loc, eltOf(op.getA()), a, arith::CmpFPredicate::OGT,
                 arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt);
}

SCALAR(WhereOp) { return arith::SelectOp::create(b, loc, a[0], a[1], a[2]); }

SCALAR(ReluOp) {
  Type elt = eltOf(op.getX());
  if (elt.isUnsignedInteger())
    return a[0];
  return maxOf(b, loc, elt, a[0], cst(b, loc, a[0], 0));
}

SCALAR(NegOp) {
  if (isa<FloatType>(eltOf(op.getX())))
    return arith::NegFOp::create(b, loc, a[0]);
  return arith::SubIOp::create(b, loc, cst(b, loc, a[0], 0), a[0]);
}

SCALAR(AbsOp) {
  Type elt = eltOf(op.getX());
  if (isa<FloatType>(elt))
    return math::AbsFOp::create(b, loc, a[0]);
  if (elt.isUnsignedInteger())
    return a[0];
  return math::AbsIOp::create(b, loc, a[0]);
}

// 1 / (1 + exp(-x)) saturates cleanly to 0 and 1 at the extremes.
static Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = cst(b, loc, x, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

SCALAR(SigmoidOp) { return sigmoid(b, loc, a[0]); }

SCALAR(TanhOp) { return math::TanhOp::create(b, loc, a[0]); }
SCALAR(ExpOp) { return math::ExpOp::create(b, loc, a[0]); }
SCALAR(LogOp) { return math::LogOp::create(b, loc, a[0]); }
SCALAR(SqrtOp) { return math::SqrtOp::create(b, loc, a[0]); }

/// erf lowers to a libm call, which has no half-precision variants.
static Value erf(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  if (t.getIntOrFloatBitWidth() >= 32)
    return math::ErfOp::create(b, loc, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, t, math::ErfOp::create(b, loc, wide));
}

SCALAR(ErfOp) { return erf(b, loc, a[0]); }

static Value leakyRelu(OpBuilder &b, Location loc, Value x, double alpha) {
  Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                    cst(b, loc, x, 0));
  Value scaled = arith::MulFOp::create(b, loc, x, cst(b, loc, x, alpha));
  return arith::SelectOp::create(b, loc, neg, scaled, x);
}

SCALAR(LeakyReluOp) {
  return leakyRelu(b, loc, a[0], op.getAlpha().convertToDouble());
}

SCALAR(HardSigmoidOp) {
  return hardSigmoid(b, loc, a[0], op.getAlpha().convertToDouble(),
                     op.getBeta().convertToDouble());
}

template <> LogicalResult ElementwiseLowering<g::GeluOp>::check(g::GeluOp op) {
  return success(op.getApproximate() == "none" ||
                 op.getApproximate() == "tanh");
}

// 0.5 x (1 + erf(x / sqrt 2)), or with the tanh approximation
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
static Value gelu(OpBuilder &b, Location loc, Value x, bool tanhApprox) {
  Value inner;
  if (tanhApprox) {
    Value x3 =
        arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value poly = arith::AddFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, x3, cst(b, loc, x, 0.044715)));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, poly,
                              cst(b, loc, x, std::sqrt(2.0 / M_PI))));
  } else {
    inner = erf(b, loc,
                arith::MulFOp::create(b, loc, x, cst(b, loc, x, M_SQRT1_2)));
  }
  Value half = arith::MulFOp::create(b, loc, x, cst(b, loc, x, 0.5));
  return arith::MulFOp::create(
      b, loc, half, arith::AddFOp::create(b, loc, inner, cst(b, loc, x, 1)));
}

SCALAR(GeluOp) { return gelu(b, loc, a[0], op.getApproximate() == "tanh"); }

// max then min: when min > max every element becomes max, as ONNX specifies.
SCALAR(ClipOp) {
  Type elt = eltOf(op.getInput());
  Value x = a[0];
  unsigned next = 1;
  if (!isAbsent(op.getMin()))
    x = maxOf(b, loc, elt, x, a[next++]);
  if (!isAbsent(op.getMax()))
    x = minOf(b, loc, elt, x, a[next++]);
  return x;
}

SCALAR(CastOp) {
  Type from = eltOf(op.getInput()), to = eltOf(op.getOutput());
  Type target = getElementTypeOrSelf(op.getType());
  if (auto i = dyn_cast<IntegerType>(target))
    target = IntegerType::get(op.getContext(), i.getWidth());
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return castFloat(b, loc, a[0], target);
  return castScalar(b, loc, a[0], target, from.isUnsignedInteger(),
                    to.isUnsignedInteger());
}

#undef SCALAR

} // namespace elementwise

Value elementwise::hardSigmoid(OpBuilder &b, Location loc, Value x,
                               double alpha, double beta) {
  Type t = x.getType();
  Value y = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, x, alpha)),
      cst(b, loc, x, beta));
  y = maxOf(b, loc, t, y, cst(b, loc, x, 0));
  return minOf(b, loc, t, y, cst(b, loc, x, 1));
}

Value buildActivation(OpBuilder &b, Location loc, graph::Activation act,
                      ArrayRef<float> params, Value x) {
  Type t = x.getType();
  switch (act) {
  case graph::Activation::None:
    return x;
  case graph::Activation::Relu:
    return maxOf(b, loc, t, x, cst(b, loc, x, 0));
  case graph::Activation::LeakyRelu:
    return leakyRelu(b, loc, x, params[0]);
  case graph::Activation::Clip:
    return minOf(b, loc, t, maxOf(b, loc, t, x, cst(b, loc, x, params[0])),
                 cst(b, loc, x, params[1]));
  case graph::Activation::HardSigmoid:
    return hardSigmoid(b, loc, x, params[0], params[1]);
  case graph::Activation::HardSwish:
    return arith::MulFOp::create(b, loc, x,
                                 hardSigmoid(b, loc, x, 1.0 / 6.0, 0.5));
  case graph::Activation::Sigmoid:
    return sigmoid(b, loc, x);
  case graph::Activation::Tanh:
    return math::TanhOp::create(b, loc, x);
  case graph::Activation::Gelu:
    return gelu(b, loc, x, /*tanhApprox=*/false);
  case graph::Activation::Swish:
    return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
  }
  return x;
}

Value applyEpilogue(OpBuilder &b, Location loc, Value y, Value bias,
                    graph::Activation act, ArrayRef<float> params) {
  if (act == graph::Activation::None && isAbsent(bias))
    return y;
  auto type = cast<RankedTensorType>(y.getType());
  SmallVector<Value> inputs = {y};
  if (!isAbsent(bias))
    inputs.push_back(bias);
  return createBroadcastGeneric(
      b, loc, type, inputs, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0];
        if (args.size() > 1)
          x = arith::AddFOp::create(nb, l, x, args[1]);
        return buildActivation(nb, l, act, params, x);
      });
}

void populateElementwiseLoweringPatterns(GraphTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantLowering, IdentityLowering>(converter, ctx);
  patterns.add<
      ElementwiseLowering<g::AddOp>, ElementwiseLowering<g::SubOp>,
      ElementwiseLowering<g::MulOp>, ElementwiseLowering<g::DivOp>,
      ElementwiseLowering<g::PowOp>, ElementwiseLowering<g::EqualOp>,
      ElementwiseLowering<g::LessOp>, ElementwiseLowering<g::GreaterOp>,
      ElementwiseLowering<g::WhereOp>, ElementwiseLowering<g::ReluOp>,
      ElementwiseLowering<g::NegOp>, ElementwiseLowering<g::AbsOp>,
      ElementwiseLowering<g::SigmoidOp>, ElementwiseLowering<g::TanhOp>,
      ElementwiseLowering<g::ExpOp>, ElementwiseLowering<g::LogOp>,
      ElementwiseLowering<g::SqrtOp>, ElementwiseLowering<g::ErfOp>,
      ElementwiseLowering<g::LeakyReluOp>,
      ElementwiseLowering<g::HardSigmoidOp>, ElementwiseLowering<g::GeluOp>,
      ElementwiseLowering<g::ClipOp>, ElementwiseLowering<g::CastOp>>(converter,
                                                                      ctx);
}

} // namespace kiln
