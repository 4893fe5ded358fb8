//===- DataMovement.cpp - Shape and layout kiln.graph ops to tensor -------===//
//
// Shape, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split and
// Expand. Static reshapes become collapse/expand_shape pairs; reshapes with
// run-time extents become tensor.reshape with a computed shape tensor.
//
//===----------------------------------------------------------------------===//

#include "lowering/to-linalg/DataMovement.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

RankedTensorType convertedRankedType(const TypeConverter *c, Value v) {
  return dyn_cast_or_null<RankedTensorType>(c->convertType(v.getType()));
}

Value extractScalar(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<Value> zeros(type.getRank(), indexConstant(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, t, zeros);
}

Value dimValue(OpBuilder &b, Location loc, Value t, int64_t i) {
  auto type = cast<RankedTensorType>(t.getType());
  if (!type.isDynamicDim(i))
    return indexConstant(b, loc, type.getDimSize(i));
  return tensor::DimOp::create(b, loc, t, i);
}

Value extractIndex(OpBuilder &b, Location loc, Value t, int64_t i) {
  Value v = tensor::ExtractOp::create(b, loc, t,
                                      ValueRange{indexConstant(b, loc, i)});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

OpFoldResult foldedSize(OpBuilder &b, Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return b.getIndexAttr(c.getSExtValue());
  return v;
}

namespace {

RankedTensorType convertedType(const TypeConverter *c, Value v) {
  return dyn_cast_or_null<RankedTensorType>(c->convertType(v.getType()));
}

/// Reshapes `src` to `type` whose extents are `sizes`: through a rank-1
/// collapse/expand when everything is static, else with tensor.reshape.
Value reshapeTo(OpBuilder &b, Location loc, Value src, RankedTensorType type,
                ArrayRef<Value> sizes) {
  auto srcType = cast<RankedTensorType>(src.getType());
  // Equal static types are the same shape; equal dynamic ones need not be
  // (a [?, ?, ?] Reshape of a [?, ?, ?] tensor moves extents around).
  if (srcType == type && type.hasStaticShape())
    return src;
  if (!srcType.hasStaticShape() || !type.hasStaticShape()) {
    Value shape = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({type.getRank()}, b.getIndexType()),
        sizes);
    return tensor::ReshapeOp::create(b, loc, type, src, shape);
  }
  auto flatType = RankedTensorType::get({srcType.getNumElements()},
                                        srcType.getElementType());
  Value flat = src;
  auto all = [](int64_t r) {
    SmallVector<ReassociationIndices> re;
    if (r > 0)
      re.push_back(llvm::to_vector(llvm::seq<int64_t>(0, r)));
    return re;
  };
  if (srcType.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, src, all(0));
  else if (srcType.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, src,
                                           all(srcType.getRank()));
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat, all(0));
  if (type.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, type, flat, all(type.getRank()));
}

/// Groups of result dims around the `kept` dims of a rank-`rank` tensor for
/// a collapse (Squeeze) or expand (Unsqueeze): every dropped unit dim joins
/// the group of the kept dim before it (or the first group).
SmallVector<ReassociationIndices> unitDimGroups(ArrayRef<bool> kept) {
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> pending;
  for (int64_t i = 0, e = kept.size(); i < e; ++i) {
    if (!kept[i]) {
      if (groups.empty())
        pending.push_back(i);
      else
        groups.back().push_back(i);
      continue;
    }
    groups.emplace_back(pending.begin(), pending.end());
    pending.clear();
    groups.back().push_back(i);
  }
  return groups;
}

struct ShapeLowering : OpConversionPattern<g::ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(adaptor.getData().getType());
    auto type = convertedType(getTypeConverter(), op.getShape());
    if (!in || !type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    int64_t r = in.getRank();
    int64_t start = op.getStart().value_or(0), end = op.getEnd().value_or(r);
    start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
    end = std::clamp<int64_t>(end < 0 ? end + r : end, start, r);
    Location loc = op.getLoc();
    ArrayRef<int64_t> dims = in.getShape().slice(start, end - start);
    if (!ShapedType::isDynamicShape(dims)) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(type, dims));
      return success();
    }
    SmallVector<Value> elems;
    for (int64_t i = start; i < end; ++i)
      elems.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(),
          dimValue(rewriter, loc, adaptor.getData(), i)));
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type, elems);
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<g::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData();
    auto in = dyn_cast<RankedTensorType>(data.getType());
    auto type = convertedType(getTypeConverter(), op.getReshaped());
    auto shapeType = dyn_cast<RankedTensorType>(adaptor.getShape().getType());
    if (!in || !type || !shapeType || shapeType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    SmallVector<Value> sizes;
    if (type.hasStaticShape()) {
      for (int64_t d : type.getShape())
        sizes.push_back(indexConstant(rewriter, loc, d));
      rewriter.replaceOp(op, reshapeTo(rewriter, loc, data, type, sizes));
      return success();
    }
    // Resolve 0 (copy the input extent) and -1 (the remaining elements) at
    // run time.
    auto consts = g::getConstantInts(op.getShape());
    Value zero = indexConstant(rewriter, loc, 0);
    Value minusOne = indexConstant(rewriter, loc, -1);
    Value one = indexConstant(rewriter, loc, 1);
    Value total = one;
    for (int64_t i = 0; i < in.getRank(); ++i)
      total = arith::MulIOp::create(rewriter, loc, total,
                                    dimValue(rewriter, loc, data, i));
    Value known = one;
    int64_t inferIdx = -1;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i)) {
        sizes.push_back(indexConstant(rewriter, loc, type.getDimSize(i)));
      } else if (consts && (*consts)[i] == -1) {
        inferIdx = i;
        sizes.push_back(Value());
        continue;
      } else if (consts && (*consts)[i] == 0 && !op.getAllowzero()) {
        sizes.push_back(dimValue(rewriter, loc, data, i));
      } else if (consts) {
        // A constant extent the result type does not show yet.
        sizes.push_back(indexConstant(rewriter, loc, (*consts)[i]));
      } else {
        Value s = extractIndex(rewriter, loc, adaptor.getShape(), i);
        if (!op.getAllowzero() && i < in.getRank()) {
          Value isZero = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq, s, zero);
          s = arith::SelectOp::create(rewriter, loc, isZero,
                                      dimValue(rewriter, loc, data, i), s);
        }
        // The -1 entry contributes 1 to the known product; patched below.
        Value isInfer = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, s, minusOne);
        known = arith::MulIOp::create(
            rewriter, loc, known,
            arith::SelectOp::create(rewriter, loc, isInfer, one, s));
        sizes.push_back(s);
        continue;
      }
      known = arith::MulIOp::create(rewriter, loc, known, sizes.back());
    }
    Value rest = arith::DivUIOp::create(rewriter, loc, total, known);
    if (inferIdx >= 0) {
      sizes[inferIdx] = rest;
    } else if (!consts) {
      for (Value &s : sizes) {
        Value isInfer = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, s, minusOne);
        s = arith::SelectOp::create(rewriter, loc, isInfer, rest, s);
      }
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, data, type, sizes));
    return success();
  }
};

struct FlattenLowering : OpConversionPattern<g::FlattenOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = convertedType(getTypeConverter(), op.getOutput());
    if (!in || !type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    int64_t r = in.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += r;
    if (axis > 0 && axis < r) {
      SmallVector<ReassociationIndices> groups{
          llvm::to_vector(llvm::seq<int64_t>(0, axis)),
          llvm::to_vector(llvm::seq<int64_t>(axis, r))};
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, x, groups);
      return success();
    }
    Location loc = op.getLoc();
    Value n = indexConstant(rewriter, loc, 1);
    for (int64_t i = 0; i < r; ++i)
      n = arith::MulIOp::create(rewriter, loc, n,
                                dimValue(rewriter, loc, x, i));
    Value one = indexConstant(rewriter, loc, 1);
    SmallVector<Value> sizes =
        axis == 0 ? SmallVector<Value>{one, n} : SmallVector<Value>{n, one};
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, x, type, sizes));
    return success();
  }
};

struct SqueezeLowering : OpConversionPattern<g::SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = convertedType(getTypeConverter(), op.getSqueezed());
    if (!in || !type)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    int64_t r = in.getRank();
    SmallVector<bool> kept(r, true);
    if (g::isNoValue(op.getAxes())) {
      for (int64_t i = 0; i < r; ++i)
        kept[i] = in.getDimSize(i) != 1;
    } else if (auto axes = g::getConstantInts(op.getAxes())) {
      for (int64_t a : *axes)
        kept[a < 0 ? a + r : a] = false;
    } else if (in.hasStaticShape() && type.hasStaticShape()) {
      // Run-time axes with known shapes: a plain reshape.
      rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), x, type, {}));
      return success();
    } else {
      return rewriter.notifyMatchFailure(op, "needs constant axes");
    }
    // Squeezed dims of unknown extent are 1 by contract.
    SmallVector<int64_t> unit(r, ShapedType::kDynamic);
    for (int64_t i = 0; i < r; ++i)
      if (!kept[i])
        unit[i] = 1;
    x = refineDims(rewriter, op.getLoc(), x, unit);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, x,
                                                         unitDimGroups(kept));
    return success();
  }
};

struct UnsqueezeLowering : OpConversionPattern<g::UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = convertedType(getTypeConverter(), op.getExpanded());
    auto axes = g::getConstantInts(op.getAxes());
    if (in && type && !axes && in.hasStaticShape() && type.hasStaticShape()) {
      // Run-time axes with known shapes: a plain reshape.
      rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), x, type, {}));
      return success();
    }
    if (!in || !type || !axes)
      return rewriter.notifyMatchFailure(op, "needs constant axes");
    int64_t r = type.getRank();
    SmallVector<bool> kept(r, true);
    for (int64_t a : *axes)
      kept[a < 0 ? a + r : a] = false;
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0, src = 0; i < r; ++i)
      sizes.push_back(
          kept[i] ? foldedSize(rewriter, dimValue(rewriter, loc, x, src++))
                  : OpFoldResult(rewriter.getIndexAttr(1)));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, type, x, unitDimGroups(kept), sizes);
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<g::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = convertedType(getTypeConverter(), op.getTransposed());
    if (!in || !type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    SmallVector<int64_t> perm;
    if (auto p = op.getPerm())
      perm.assign(p->begin(), p->end());
    else
      for (int64_t i = in.getRank() - 1; i >= 0; --i)
        perm.push_back(i);
    Location loc = op.getLoc();
    // A declared (value_info) result type can be more static than the
    // input's inferred one: the input takes those extents too.
    SmallVector<int64_t> known(in.getRank(), ShapedType::kDynamic);
    for (int64_t i = 0; i < type.getRank(); ++i)
      known[perm[i]] = type.getDimSize(i);
    x = refineDims(rewriter, loc, x, known);
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(tensor::DimOp::create(rewriter, loc, x, perm[i]));
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType(), dyn);
    rewriter.replaceOp(
        op,
        linalg::TransposeOp::create(rewriter, loc, x, init, perm).getResult());
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<g::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertedType(getTypeConverter(), op.getConcatResult());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    for (Value v : adaptor.getInputs())
      if (!isa<RankedTensorType>(v.getType()))
        return rewriter.notifyMatchFailure(op, "needs ranked inputs");
    int64_t r = type.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += r;
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    // Insert each input at its running offset along the axis.
    SmallVector<Value> offsets;
    Value total = indexConstant(rewriter, loc, 0);
    for (Value v : inputs) {
      offsets.push_back(total);
      total = rewriter.createOrFold<arith::AddIOp>(
          loc, total, dimValue(rewriter, loc, v, axis));
    }
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < r; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(i == axis ? total
                                : dimValue(rewriter, loc, inputs.front(), i));
    // A static destination is created at the function's start: a concat
    // that takes an earlier one as its leading input (ShareConcatPrefixes)
    // then dominates that one's destination, which empty-tensor elimination
    // and kiln-nest-inserted-tensors make a slice of it, so the chain shares
    // one buffer. (Memory planning
    // starts a buffer's life at its first use, not at its allocation.)
    Value result;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      auto fn = op->getParentOfType<func::FuncOp>();
      if (dyn.empty() && fn && op->getParentRegion() == &fn.getBody())
        rewriter.setInsertionPointToStart(&fn.getBody().front());
      result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType(), dyn);
    }
    for (auto [v, off] : llvm::zip(inputs, offsets)) {
      if (cast<RankedTensorType>(v.getType()).getDimSize(axis) == 0)
        continue;
      SmallVector<OpFoldResult> offs(r, rewriter.getIndexAttr(0));
      offs[axis] = foldedSize(rewriter, off);
      SmallVector<OpFoldResult> sizes, strides(r, rewriter.getIndexAttr(1));
      for (int64_t i = 0; i < r; ++i)
        sizes.push_back(foldedSize(rewriter, dimValue(rewriter, loc, v, i)));
      result = tensor::InsertSliceOp::create(rewriter, loc, v, result, offs,
                                             sizes, strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitLowering : OpConversionPattern<g::SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    if (!in)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    int64_t r = in.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += r;
    Location loc = op.getLoc();
    int64_t n = op.getNumResults();
    SmallVector<RankedTensorType> types;
    for (Value res : op.getOutputs()) {
      types.push_back(convertedType(getTypeConverter(), res));
      if (!types.back())
        return rewriter.notifyMatchFailure(op, "needs ranked results");
    }
    // Chunk sizes along the axis: static from the result types, or the ONNX
    // ceil-division rule on the run-time extent.
    SmallVector<Value> chunks;
    Value dim = dimValue(rewriter, loc, x, axis);
    Value cnt = indexConstant(rewriter, loc, n);
    Value chunk = arith::CeilDivUIOp::create(rewriter, loc, dim, cnt);
    for (int64_t i = 0; i < n; ++i) {
      if (!types[i].isDynamicDim(axis)) {
        chunks.push_back(
            indexConstant(rewriter, loc, types[i].getDimSize(axis)));
      } else if (!g::isNoValue(op.getSplit())) {
        chunks.push_back(extractIndex(rewriter, loc, adaptor.getSplit(), i));
      } else if (i + 1 < n) {
        chunks.push_back(chunk);
      } else {
        Value used = arith::MulIOp::create(rewriter, loc, chunk,
                                           indexConstant(rewriter, loc, n - 1));
        chunks.push_back(arith::SubIOp::create(rewriter, loc, dim, used));
      }
    }
    SmallVector<Value> results;
    Value offset = indexConstant(rewriter, loc, 0);
    for (int64_t i = 0; i < n; ++i) {
      SmallVector<OpFoldResult> offs(r, rewriter.getIndexAttr(0)), sizes;
      SmallVector<OpFoldResult> strides(r, rewriter.getIndexAttr(1));
      offs[axis] = foldedSize(rewriter, offset);
      for (int64_t d = 0; d < r; ++d)
        sizes.push_back(foldedSize(
            rewriter, d == axis ? chunks[i] : dimValue(rewriter, loc, x, d)));
      if (types[i].hasStaticShape() &&
          llvm::is_contained(types[i].getShape(), 0))
        results.push_back(tensor::EmptyOp::create(
            rewriter, loc, types[i].getShape(), types[i].getElementType()));
      else
        results.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc, types[i], x, offs, sizes, strides));
      offset = rewriter.createOrFold<arith::AddIOp>(loc, offset, chunks[i]);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ExpandLowering : OpConversionPattern<g::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = convertedType(getTypeConverter(), op.getOutput());
    if (!in || !type)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    int64_t r = type.getRank(), off = r - in.getRank();
    int64_t shapeOff =
        r - cast<RankedTensorType>(adaptor.getShape().getType()).getDimSize(0);
    // A dynamic output extent is the shape entry, or the input extent where
    // the entry is 1.
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < r; ++i) {
      if (!type.isDynamicDim(i))
        continue;
      Value s = i >= shapeOff ? extractIndex(rewriter, loc, adaptor.getShape(),
                                             i - shapeOff)
                              : Value();
      Value d = i >= off && in.getDimSize(i - off) != 1
                    ? dimValue(rewriter, loc, x, i - off)
                    : Value();
      if (s && d) {
        Value isOne =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, s,
                                  indexConstant(rewriter, loc, 1));
        s = arith::SelectOp::create(rewriter, loc, isOne, d, s);
      }
      dyn.push_back(s ? s : d);
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType(), dyn);
    SmallVector<AffineMap> maps{
        getBroadcastMap(rewriter.getContext(), in, type.getShape()),
        rewriter.getMultiDimIdentityMap(r)};
    SmallVector<utils::IteratorType> iters(r, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, x, init, maps, iters,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateDataMovementLoweringPatterns(GraphTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ShapeLowering, ReshapeLowering, FlattenLowering, SqueezeLowering,
               UnsqueezeLowering, TransposeLowering, ConcatLowering,
               SplitLowering, ExpandLowering>(converter, ctx);
  populateIndexedMovementPatterns(converter, patterns);
  populateResizePatterns(converter, patterns);
  populateIndexingPatterns(converter, patterns);
}

} // namespace kiln
