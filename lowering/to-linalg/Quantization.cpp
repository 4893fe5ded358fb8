//===- Quantization.cpp - QuantizeLinear/DequantizeLinear to linalg -------===//
//
// Both are one elementwise linalg.generic: the scale and zero point are read
// per tensor (rank 0 or one element) or along `axis` (1-D). Arithmetic is in
// f32 (f64 for f64 inputs); quantization rounds half to even and saturates
// to the integer type's range, as the ONNX reference does.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// The map reading a scale or zero point: nothing for per-tensor ones, the
/// loop dim `axis` for 1-D ones of more than one element.
FailureOr<AffineMap> paramMap(OpBuilder &b, Value param, int64_t rank,
                              int64_t axis) {
  auto t = dyn_cast<RankedTensorType>(param.getType());
  if (!t)
    return failure();
  if (t.getRank() == 0)
    return AffineMap::get(rank, 0, {}, b.getContext());
  if (t.getRank() != 1)
    return failure();
  if (t.getDimSize(0) == 1)
    return AffineMap::get(rank, 0, {b.getAffineConstantExpr(0)},
                          b.getContext());
  return AffineMap::get(rank, 0, {b.getAffineDimExpr(axis)}, b.getContext());
}

/// Shared matching: x ranked, axis normalized, parameter maps built.
struct QuantForm {
  RankedTensorType type;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  bool hasZeroPoint = false;
};

FailureOr<QuantForm> matchQuantForm(OpBuilder &b, RankedTensorType type,
                                    Value x, Value scale, Value zeroPoint,
                                    int64_t axisAttr) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || !type)
    return failure();
  int64_t rank = xt.getRank();
  // The axis matters only for per-axis (1-D, several elements) parameters.
  int64_t axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  auto st = dyn_cast<RankedTensorType>(scale.getType());
  bool perAxis = st && st.getRank() == 1 && st.getDimSize(0) != 1;
  if (perAxis && (axis < 0 || axis >= rank))
    return failure();
  QuantForm form;
  form.type = type;
  form.inputs = {x, scale};
  form.maps = {b.getMultiDimIdentityMap(rank)};
  FailureOr<AffineMap> sm = paramMap(b, scale, rank, axis);
  if (failed(sm))
    return failure();
  form.maps.push_back(*sm);
  if (!isAbsent(zeroPoint)) {
    FailureOr<AffineMap> zm = paramMap(b, zeroPoint, rank, axis);
    if (failed(zm))
      return failure();
    form.inputs.push_back(zeroPoint);
    form.maps.push_back(*zm);
    form.hasZeroPoint = true;
  }
  form.maps.push_back(b.getMultiDimIdentityMap(rank));
  return form;
}

Value buildGeneric(
    OpBuilder &b, Location loc, const QuantForm &f, Value like,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = f.type.getRank();
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i)
    if (f.type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, like, i));
  Value init = tensor::EmptyOp::create(b, loc, f.type.getShape(),
                                       f.type.getElementType(), dyn);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, f.type, f.inputs, init, f.maps, iters,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               linalg::YieldOp::create(nb, l, body(nb, l, a.drop_back()));
             })
      .getResult(0);
}

struct QuantizeLinearLowering : OpConversionPattern<g::QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::QuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    Type outElt = getElementTypeOrSelf(op.getY().getType());
    auto intElt = dyn_cast<IntegerType>(outElt);
    if (!intElt || intElt.getWidth() == 1 || intElt.getWidth() > 32)
      return rewriter.notifyMatchFailure(op, "needs an 8-32 bit result");
    FailureOr<QuantForm> form =
        matchQuantForm(rewriter, type, adaptor.getX(), adaptor.getYScale(),
                       adaptor.getYZeroPoint(), op.getAxis());
    if (failed(form) ||
        !isa<FloatType>(getElementTypeOrSelf(adaptor.getX().getType())))
      return rewriter.notifyMatchFailure(op, "unsupported form");
    bool isUnsigned = intElt.isUnsigned();
    unsigned w = intElt.getWidth();
    Type signless = type.getElementType();
    Type calc = getElementTypeOrSelf(adaptor.getX().getType()).isF64()
                    ? Type(rewriter.getF64Type())
                    : Type(rewriter.getF32Type());
    double lo = isUnsigned ? 0 : -std::ldexp(1.0, w - 1);
    double hi =
        isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
    Value result = buildGeneric(
        rewriter, op.getLoc(), *form, adaptor.getX(),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = castScalar(b, l, a[0], calc);
          Value s = castScalar(b, l, a[1], calc);
          Value v = math::RoundEvenOp::create(
              b, l, arith::DivFOp::create(b, l, x, s));
          if (form->hasZeroPoint)
            v = arith::AddFOp::create(b, l, v,
                                      castScalar(b, l, a[2], calc, isUnsigned));
          v = arith::MaximumFOp::create(b, l, v,
                                        createScalarConstant(b, l, calc, lo));
          v = arith::MinimumFOp::create(b, l, v,
                                        createScalarConstant(b, l, calc, hi));
          return castScalar(b, l, v, signless, false, isUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DequantizeLinearLowering : OpConversionPattern<g::DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::DequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    Type inElt = getElementTypeOrSelf(op.getX().getType());
    if (!isa<IntegerType>(inElt) || !type ||
        !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs integer to float");
    FailureOr<QuantForm> form =
        matchQuantForm(rewriter, type, adaptor.getX(), adaptor.getXScale(),
                       adaptor.getXZeroPoint(), op.getAxis());
    if (failed(form))
      return rewriter.notifyMatchFailure(op, "unsupported form");
    bool isUnsigned = inElt.isUnsignedInteger();
    Type outElt = type.getElementType();
    Type calc = outElt.isF64() ? Type(rewriter.getF64Type())
                               : Type(rewriter.getF32Type());
    Value result = buildGeneric(
        rewriter, op.getLoc(), *form, adaptor.getX(),
        [&](OpBuilder &b, Location l, ValueRange a) {
          // The difference is exact in i64 (int32 inputs included).
          Type i64 = b.getI64Type();
          Value x = castScalar(b, l, a[0], i64, isUnsigned);
          if (form->hasZeroPoint)
            x = arith::SubIOp::create(b, l, x,
                                      castScalar(b, l, a[2], i64, isUnsigned));
          Value v = arith::MulFOp::create(b, l, castScalar(b, l, x, calc),
                                          castScalar(b, l, a[1], calc));
          return castScalar(b, l, v, outElt);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateQuantizationLoweringPatterns(GraphTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering>(
      converter, patterns.getContext());
}

} // namespace kiln
