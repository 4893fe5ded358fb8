//===- Elementwise.cpp - Elementwise kiln.graph ops to linalg -------------===//
//
// Constants, casts and elementwise math become linalg.generic ops with ONNX
// broadcasting expressed in indexing maps.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

struct ConstantLowering : OpConversionPattern<g::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(
        getTypeConverter()->convertType(op.getType()));
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

/// Lowers an elementwise op whose scalar computation is `Fn`.
template <typename Op>
struct ElementwiseLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op->getResult(0).getType()));
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    Type inElt = getElementTypeOrSelf(op->getOperand(0).getType());
    Value result = createBroadcastGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return buildScalar(op, inElt, b, loc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value buildScalar(Op op, Type inElt, OpBuilder &b, Location loc,
                           ValueRange args);
};

template <>
Value ElementwiseLowering<g::AddOp>::buildScalar(g::AddOp, Type elt,
                                                 OpBuilder &b, Location loc,
                                                 ValueRange a) {
  if (isa<FloatType>(elt))
    return arith::AddFOp::create(b, loc, a[0], a[1]);
  return arith::AddIOp::create(b, loc, a[0], a[1]);
}

template <>
Value ElementwiseLowering<g::ReluOp>::buildScalar(g::ReluOp, Type elt,
                                                  OpBuilder &b, Location loc,
                                                  ValueRange a) {
  Value zero = createScalarConstant(b, loc, a[0].getType(), 0.0);
  if (isa<FloatType>(elt))
    return arith::MaximumFOp::create(b, loc, a[0], zero);
  return arith::MaxSIOp::create(b, loc, a[0], zero);
}

} // namespace

void populateElementwiseLoweringPatterns(GraphTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantLowering, IdentityLowering,
               ElementwiseLowering<g::AddOp>, ElementwiseLowering<g::ReluOp>>(
      converter, ctx);
}

} // namespace kiln
