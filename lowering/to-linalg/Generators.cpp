//===- Generators.cpp - Ops computed from positions to linalg -------------===//
//
// Trilu, EyeLike, Range and ConstantOfShape compute each element from its
// position (linalg.index) or fill; CumSum is a generic with an extra
// reduction loop over the axis, whose body adds the elements at or before
// (after, with reverse) the output position; Size is the product of the
// extents.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

Value asI64(OpBuilder &b, Location loc, Value v) {
  Type i64 = b.getI64Type();
  if (v.getType() == i64)
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  if (isa<FloatType>(v.getType()))
    return arith::FPToSIOp::create(b, loc, i64, v);
  return arith::ExtSIOp::create(b, loc, i64, v);
}

/// A generic with only an output, of `type` (dynamic extents `dyn`), whose
/// element is `body(indices)`.
Value createIndexGeneric(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange dyn,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange, ValueRange)> body) {
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dyn);
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, inputs, init, maps, iters,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               SmallVector<Value> ivs;
               for (int64_t i = 0; i < rank; ++i)
                 ivs.push_back(linalg::IndexOp::create(nb, l, i));
               linalg::YieldOp::create(nb, l, body(nb, l, ivs, a.drop_back()));
             })
      .getResult(0);
}

/// `j - i` of the last two loop indices, as i64.
Value diagonalOffset(OpBuilder &b, Location loc, ValueRange ivs) {
  Value i = asI64(b, loc, ivs[ivs.size() - 2]);
  Value j = asI64(b, loc, ivs.back());
  return arith::SubIOp::create(b, loc, j, i);
}

struct TriluLowering : OpConversionPattern<g::TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs a rank >= 2 tensor");
    Location loc = op.getLoc();
    Value k =
        isAbsent(adaptor.getK())
            ? createScalarConstant(rewriter, loc, rewriter.getI64Type(), 0)
            : asI64(rewriter, loc,
                    extractScalar(rewriter, loc, adaptor.getK()));
    bool upper = op.getUpper() != 0;
    Type elt = type.getElementType();
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(dimValue(rewriter, loc, x, i));
    rewriter.replaceOp(
        op, createIndexGeneric(
                rewriter, loc, type, dyn, x, id,
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange a) {
                  Value d = diagonalOffset(b, l, ivs);
                  Value keep =
                      arith::CmpIOp::create(b, l,
                                            upper ? arith::CmpIPredicate::sge
                                                  : arith::CmpIPredicate::sle,
                                            d, k);
                  return arith::SelectOp::create(
                      b, l, keep, a[0], createScalarConstant(b, l, elt, 0));
                }));
    return success();
  }
};

struct EyeLikeLowering : OpConversionPattern<g::EyeLikeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::EyeLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = convertedRankedType(getTypeConverter(), op.getOutput());
    if (!type || type.getRank() != 2 || !isa<RankedTensorType>(x.getType()))
      return rewriter.notifyMatchFailure(op, "needs a 2-D result");
    Location loc = op.getLoc();
    Type elt = type.getElementType();
    Value k = createScalarConstant(rewriter, loc, rewriter.getI64Type(),
                                   double(op.getK()));
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < 2; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(dimValue(rewriter, loc, x, i));
    rewriter.replaceOp(
        op, createIndexGeneric(
                rewriter, loc, type, dyn, {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  Value hit =
                      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            diagonalOffset(b, l, ivs), k);
                  return arith::SelectOp::create(
                      b, l, hit, createScalarConstant(b, l, elt, 1),
                      createScalarConstant(b, l, elt, 0));
                }));
    return success();
  }
};

struct RangeLowering : OpConversionPattern<g::RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertedRankedType(getTypeConverter(), op.getOutput());
    if (!type || type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs a 1-D result");
    for (Value v : adaptor.getOperands())
      if (!isa<RankedTensorType>(v.getType()))
        return rewriter.notifyMatchFailure(op, "needs ranked inputs");
    Location loc = op.getLoc();
    Type elt = type.getElementType();
    Value start = extractScalar(rewriter, loc, adaptor.getStart());
    Value delta = extractScalar(rewriter, loc, adaptor.getDelta());
    SmallVector<Value> dyn;
    if (type.isDynamicDim(0)) {
      // max(ceil((limit - start) / delta), 0), computed in f64.
      Value limit = extractScalar(rewriter, loc, adaptor.getLimit());
      bool isUnsigned =
          getElementTypeOrSelf(op.getStart().getType()).isUnsignedInteger();
      auto f64 = [&](Value v) {
        return castScalar(rewriter, loc, v, rewriter.getF64Type(), isUnsigned);
      };
      Value q = arith::DivFOp::create(
          rewriter, loc,
          arith::SubFOp::create(rewriter, loc, f64(limit), f64(start)),
          f64(delta));
      Value n = arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(),
                                        math::CeilOp::create(rewriter, loc, q));
      n = arith::MaxSIOp::create(
          rewriter, loc, n,
          createScalarConstant(rewriter, loc, rewriter.getI64Type(), 0));
      dyn.push_back(arith::IndexCastOp::create(rewriter, loc,
                                               rewriter.getIndexType(), n));
    }
    rewriter.replaceOp(
        op,
        createIndexGeneric(
            rewriter, loc, type, dyn, {}, {},
            [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
              Value i = asI64(b, l, ivs[0]);
              if (isa<FloatType>(elt)) {
                Value fi = arith::SIToFPOp::create(b, l, elt, i);
                return arith::AddFOp::create(
                           b, l, start, arith::MulFOp::create(b, l, fi, delta))
                    .getResult();
              }
              Value ci = elt.isInteger(64)
                             ? i
                             : Value(arith::TruncIOp::create(b, l, elt, i));
              return arith::AddIOp::create(
                         b, l, start, arith::MulIOp::create(b, l, ci, delta))
                  .getResult();
            }));
    return success();
  }
};

struct ConstantOfShapeLowering : OpConversionPattern<g::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertedRankedType(getTypeConverter(), op.getOutput());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    Location loc = op.getLoc();
    Type elt = type.getElementType();
    TypedAttr value = rewriter.getZeroAttr(elt);
    if (ElementsAttr v = op.getValueAttr()) {
      Attribute first = *v.getValues<Attribute>().begin();
      if (auto i = dyn_cast<IntegerAttr>(first))
        value = IntegerAttr::get(elt, i.getValue());
      else if (auto f = dyn_cast<FloatAttr>(first))
        value = f;
      else
        return rewriter.notifyMatchFailure(op, "unsupported value");
    }
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(extractIndex(rewriter, loc, adaptor.getInput(), i));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elt, dyn);
    Value c = arith::ConstantOp::create(rewriter, loc, value);
    rewriter.replaceOp(op, linalg::FillOp::create(rewriter, loc, c, empty));
    return success();
  }
};

struct SizeLowering : OpConversionPattern<g::SizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::SizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    Location loc = op.getLoc();
    Value n = indexConstant(rewriter, loc, 1);
    for (int64_t i = 0; i < type.getRank(); ++i)
      n = arith::MulIOp::create(rewriter, loc, n,
                                dimValue(rewriter, loc, x, i));
    n = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), n);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(
        op, RankedTensorType::get({}, rewriter.getI64Type()), n);
    return success();
  }
};

/// Inclusive (or exclusive) prefix sums of `x` along `axis` (suffix sums
/// with `reverse`): a generic whose extra reduction loop walks the axis.
Value createCumSum(OpBuilder &b, Location loc, Value x, int64_t axis,
                   bool exclusive, bool reverse) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  Type elt = type.getElementType();
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(dimValue(b, loc, x, i));
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), elt, dyn);
  Value init = linalg::FillOp::create(
                   b, loc, createScalarConstant(b, loc, elt, 0), empty)
                   .getResult(0);
  SmallVector<AffineExpr> in, out;
  for (int64_t i = 0; i < rank; ++i) {
    in.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
    out.push_back(getAffineDimExpr(i, ctx));
  }
  SmallVector<AffineMap> maps{AffineMap::get(rank + 1, 0, in, ctx),
                              AffineMap::get(rank + 1, 0, out, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  using P = arith::CmpIPredicate;
  P pred =
      reverse ? (exclusive ? P::ugt : P::uge) : (exclusive ? P::ult : P::ule);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{x}, ValueRange{init}, maps, iters,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value j = linalg::IndexOp::create(nb, l, rank);
               Value i = linalg::IndexOp::create(nb, l, axis);
               Value take = arith::CmpIOp::create(nb, l, pred, j, i);
               Value sum =
                   isa<FloatType>(elt)
                       ? Value(arith::AddFOp::create(nb, l, a[1], a[0]))
                       : Value(arith::AddIOp::create(nb, l, a[1], a[0]));
               linalg::YieldOp::create(
                   nb, l,
                   arith::SelectOp::create(nb, l, take, sum, a[1]).getResult());
             })
      .getResult(0);
}

/// A constant axis gives one generic; an axis known only at run time one per
/// possible axis, chosen by an scf.index_switch.
struct CumSumLowering : OpConversionPattern<g::CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || type.getRank() == 0 ||
        !isa<RankedTensorType>(adaptor.getAxis().getType()))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    int64_t rank = type.getRank();
    bool exclusive = op.getExclusive() != 0, reverse = op.getReverse() != 0;
    Location loc = op.getLoc();
    if (auto axisVals = g::getConstantInts(op.getAxis());
        axisVals && axisVals->size() == 1) {
      auto axis = g::normalizeAxis(std::nullopt, (*axisVals)[0], rank);
      if (failed(axis))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      rewriter.replaceOp(
          op, createCumSum(rewriter, loc, x, *axis, exclusive, reverse));
      return success();
    }
    Value axis =
        asI64(rewriter, loc, extractScalar(rewriter, loc, adaptor.getAxis()));
    Value r = createScalarConstant(rewriter, loc, rewriter.getI64Type(),
                                   double(rank));
    Value neg = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, axis,
        createScalarConstant(rewriter, loc, rewriter.getI64Type(), 0));
    axis = arith::SelectOp::create(
        rewriter, loc, neg, arith::AddIOp::create(rewriter, loc, axis, r),
        axis);
    axis = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                      axis);
    SmallVector<int64_t> cases =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    auto sw = scf::IndexSwitchOp::create(rewriter, loc, TypeRange{type}, axis,
                                         cases, cases.size());
    // The default region takes the last axis (out-of-range axes are
    // invalid models).
    for (int64_t a = 0; a < rank; ++a) {
      Region &region =
          a + 1 < rank ? sw.getCaseRegions()[a] : sw.getDefaultRegion();
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&region.emplaceBlock());
      scf::YieldOp::create(
          rewriter, loc, createCumSum(rewriter, loc, x, a, exclusive, reverse));
    }
    rewriter.replaceOp(op, sw.getResults());
    return success();
  }
};

} // namespace

void populateGeneratorPatterns(GraphTypeConverter &converter,
                               RewritePatternSet &patterns) {
  patterns.add<TriluLowering, EyeLikeLowering, RangeLowering,
               ConstantOfShapeLowering, SizeLowering, CumSumLowering>(
      converter, patterns.getContext());
}

} // namespace kiln
