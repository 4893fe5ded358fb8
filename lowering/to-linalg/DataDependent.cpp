//===- DataDependent.cpp - NonZero, Compress, Unique, NonMaxSuppression ---===//
//
// Ops whose result extents come from their data. Each counts what it keeps,
// allocates its results at that size and fills them in sequential scf
// loops over a flat view of its input (these ops see at most thousands of
// elements in models: boxes, classes, token ids). A result whose type the
// model declares static is written up to that size and zero-padded past
// what the data gives, so a wrong declaration cannot write out of bounds.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/ScalarLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// The extents of a result whose data-dependent dim `dim` has `count`
/// entries: a static extent where the result type has one.
SmallVector<Value> resultSizes(ScalarLoops &ib, RankedTensorType type,
                               ArrayRef<Value> sizes, int64_t dim,
                               Value count) {
  SmallVector<Value> out(sizes);
  out[dim] = type.isDynamicDim(dim) ? count : ib.c(type.getDimSize(dim));
  return out;
}

SmallVector<Value> dynamicOf(RankedTensorType type, ArrayRef<Value> sizes) {
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(sizes[i]);
  return dyn;
}

/// 1 when scalar `v` is non-zero.
Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (t.isInteger(1))
    return v;
  Value zero = createScalarConstant(b, loc, t, 0);
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

/// Splits `x` around `axis`: (outer, axis extent, inner) as index values.
std::array<Value, 3> splitAround(ScalarLoops &ib, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<Value> before, after;
  for (int64_t i = 0; i < type.getRank(); ++i)
    (i < axis ? before : after).push_back(dimValue(ib.b, ib.loc, x, i));
  Value n = after.front();
  return {ib.product(before), n, ib.product(ArrayRef(after).drop_front())};
}

/// The items Compress and Unique select from: slices along `axis` of `x`
/// (outer x n x inner), or without an axis the n elements of `flat`.
struct Items {
  int64_t axis;
  Value outer, n, inner;
};
Items itemsOf(ScalarLoops &ib, Value x, Value flat,
              std::optional<int64_t> axis) {
  if (!axis)
    return {0, ib.c(1), dimValue(ib.b, ib.loc, flat, 0), ib.c(1)};
  int64_t a =
      *axis < 0 ? *axis + cast<RankedTensorType>(x.getType()).getRank() : *axis;
  std::array<Value, 3> split = splitAround(ib, x, a);
  return {a, split[0], split[1], split[2]};
}

struct NonZeroLowering : OpConversionPattern<g::NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::NonZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    if (!xt || !yt || yt.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    ScalarLoops ib{rewriter, op.getLoc()};
    int64_t rank = xt.getRank();
    SmallVector<Value> dims;
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(dimValue(rewriter, op.getLoc(), x, i));
    Value flat = ib.flatten(x);
    Value n = ib.product(dims);
    Value count =
        ib.loop(n, ib.c(0), [&](ScalarLoops &lb, Value i, ValueRange a) {
          Value nz = isNonZero(lb.b, lb.loc, lb.at(flat, i));
          return ScalarLoops::Values{lb.add(a[0], lb.oneIf(nz))};
        })[0];
    SmallVector<Value> sizes =
        resultSizes(ib, yt, {ib.c(rank), count}, 1, count);
    Value extent = sizes[1];
    Value out =
        ib.zeros(yt.getShape(), yt.getElementType(), dynamicOf(yt, sizes));
    // Row-major coordinates of each non-zero element, column by column.
    SmallVector<Value> filled =
        ib.loop(n, {out, ib.c(0)}, [&](ScalarLoops &lb, Value i, ValueRange a) {
          Value keep = lb.andI(isNonZero(lb.b, lb.loc, lb.at(flat, i)),
                               lb.lt(a[1], extent));
          return lb.ifThen(keep, a, [&](ScalarLoops &tb) {
            Value t = a[0], rest = i;
            for (int64_t d = rank - 1; d >= 0; --d) {
              Value coord = arith::RemUIOp::create(tb.b, tb.loc, rest, dims[d]);
              rest = arith::DivUIOp::create(tb.b, tb.loc, rest, dims[d]);
              t = tb.put(tb.toI64(coord), t, {tb.c(d), a[1]});
            }
            return ScalarLoops::Values{t, tb.add(a[1], tb.c(1))};
          });
        });
    rewriter.replaceOp(op, filled[0]);
    return success();
  }
};

struct CompressLowering : OpConversionPattern<g::CompressOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::CompressOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput(), cond = adaptor.getCondition();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getOutput().getType()));
    if (!xt || !yt || !isa<RankedTensorType>(cond.getType()))
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    ScalarLoops ib{rewriter, op.getLoc()};
    Value flat = ib.flatten(x);
    Items items = itemsOf(ib, x, flat, op.getAxis());
    int64_t axis = items.axis;
    Value outer = items.outer, n = items.n, inner = items.inner;
    Value len = ib.min(dimValue(rewriter, op.getLoc(), cond, 0), n);
    Value count =
        ib.loop(len, ib.c(0), [&](ScalarLoops &lb, Value j, ValueRange a) {
          return ScalarLoops::Values{lb.add(a[0], lb.oneIf(lb.at(cond, j)))};
        })[0];
    SmallVector<Value> sizes;
    if (op.getAxis())
      for (int64_t i = 0; i < xt.getRank(); ++i)
        sizes.push_back(dimValue(rewriter, op.getLoc(), x, i));
    else
      sizes.push_back(count);
    sizes = resultSizes(ib, yt, sizes, axis, count);
    Value extent = sizes[axis];
    Value outFlat = ib.zeros({ShapedType::kDynamic}, yt.getElementType(),
                             ib.mul(ib.mul(outer, extent), inner));
    SmallVector<Value> filled = ib.loop(
        len, {outFlat, ib.c(0)}, [&](ScalarLoops &lb, Value j, ValueRange a) {
          Value keep = lb.andI(lb.at(cond, j), lb.lt(a[1], extent));
          return lb.ifThen(keep, a, [&](ScalarLoops &tb) {
            Value t = tb.loop(
                outer, a[0], [&](ScalarLoops &ob, Value o, ValueRange ta) {
                  return ob.loop(
                      inner, ta, [&](ScalarLoops &kb, Value i, ValueRange ka) {
                        Value src =
                            kb.add(kb.mul(kb.add(kb.mul(o, n), j), inner), i);
                        Value dst = kb.add(
                            kb.mul(kb.add(kb.mul(o, extent), a[1]), inner), i);
                        return ScalarLoops::Values{
                            kb.put(kb.at(flat, src), ka[0], dst)};
                      });
                })[0];
            return ScalarLoops::Values{t, tb.add(a[1], tb.c(1))};
          });
        });
    rewriter.replaceOp(op, ib.unflatten(filled[0], yt, sizes));
    return success();
  }
};

/// Lexicographic comparison of items j and k of Unique's input (elements,
/// or slices along the axis): (j < k, j == k).
struct ItemCompare {
  Value flat, n, inner, slice;
  bool isFloat, isUnsigned;

  Value element(ScalarLoops &lb, Value item, Value t) const {
    Value o = arith::DivUIOp::create(lb.b, lb.loc, t, inner);
    Value i = arith::RemUIOp::create(lb.b, lb.loc, t, inner);
    return lb.at(flat, lb.add(lb.mul(lb.add(lb.mul(o, n), item), inner), i));
  }
  /// 0: equal, 1: j before k, 2: j after k.
  Value order(ScalarLoops &ib, Value j, Value k) const {
    return ib.loop(slice, ib.c(0), [&](ScalarLoops &lb, Value t, ValueRange a) {
      Value x = element(lb, j, t), y = element(lb, k, t);
      Value less, greater;
      if (isFloat) {
        less = arith::CmpFOp::create(lb.b, lb.loc, arith::CmpFPredicate::OLT, x,
                                     y);
        greater = arith::CmpFOp::create(lb.b, lb.loc, arith::CmpFPredicate::OGT,
                                        x, y);
      } else {
        using P = arith::CmpIPredicate;
        less = arith::CmpIOp::create(lb.b, lb.loc, isUnsigned ? P::ult : P::slt,
                                     x, y);
        greater = arith::CmpIOp::create(lb.b, lb.loc,
                                        isUnsigned ? P::ugt : P::sgt, x, y);
      }
      Value here =
          lb.select(less, lb.c(1), lb.select(greater, lb.c(2), lb.c(0)));
      return ScalarLoops::Values{lb.select(lb.eq(a[0], lb.c(0)), here, a[0])};
    })[0];
  }
};

struct UniqueLowering : OpConversionPattern<g::UniqueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::UniqueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    SmallVector<RankedTensorType> types;
    for (Value r : op->getResults())
      if (auto t = dyn_cast_or_null<RankedTensorType>(
              getTypeConverter()->convertType(r.getType())))
        types.push_back(t);
    if (!xt || types.size() != 4)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    ScalarLoops ib{rewriter, loc};
    Value flat = ib.flatten(x);
    Items items = itemsOf(ib, x, flat, op.getAxis());
    int64_t axis = items.axis;
    Value outer = items.outer, n = items.n, inner = items.inner;
    Type elt = xt.getElementType();
    ItemCompare cmp{
        flat,
        n,
        inner,
        ib.mul(outer, inner),
        isa<FloatType>(elt),
        getElementTypeOrSelf(op.getX().getType()).isUnsignedInteger()};
    Type indexTy = rewriter.getIndexType();

    // The first occurrence of every item, and the number of distinct ones.
    Value firsts = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, indexTy,
        ValueRange{n});
    firsts = ib.loop(n, firsts, [&](ScalarLoops &lb, Value j, ValueRange a) {
      Value f = lb.loop(j, j, [&](ScalarLoops &kb, Value k, ValueRange fa) {
        Value same =
            kb.andI(kb.eq(fa[0], j), kb.eq(cmp.order(kb, k, j), kb.c(0)));
        return ScalarLoops::Values{kb.select(same, k, fa[0])};
      })[0];
      return ScalarLoops::Values{lb.put(f, a[0], j)};
    })[0];
    auto isFirst = [&](ScalarLoops &lb, Value j) {
      return lb.eq(lb.at(firsts, j), j);
    };
    Value u = ib.loop(n, ib.c(0), [&](ScalarLoops &lb, Value j, ValueRange a) {
      return ScalarLoops::Values{lb.add(a[0], lb.oneIf(isFirst(lb, j)))};
    })[0];
    // Each distinct item's position in Y: among the distinct items, those
    // smaller (sorted) or seen earlier.
    bool sorted = op.getSorted() != 0;
    Value ranks = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, indexTy,
        ValueRange{n});
    ranks = ib.loop(n, ranks, [&](ScalarLoops &lb, Value j, ValueRange a) {
      Value r =
          lb.loop(sorted ? n : j, lb.c(0),
                  [&](ScalarLoops &kb, Value k, ValueRange ra) {
                    Value counts = isFirst(kb, k);
                    if (sorted)
                      counts =
                          kb.andI(counts, kb.eq(cmp.order(kb, k, j), kb.c(1)));
                    return ScalarLoops::Values{kb.add(ra[0], kb.oneIf(counts))};
                  })[0];
      return ScalarLoops::Values{lb.put(r, a[0], j)};
    })[0];

    // Results: Y along the axis, indices and counts have u entries (or the
    // declared number), inverse_indices one per item.
    SmallVector<Value> ySizes;
    if (op.getAxis())
      for (int64_t i = 0; i < xt.getRank(); ++i)
        ySizes.push_back(dimValue(rewriter, loc, x, i));
    else
      ySizes.push_back(u);
    ySizes = resultSizes(ib, types[0], ySizes, axis, u);
    Value eY = ySizes[axis];
    Value eIdx = resultSizes(ib, types[1], {u}, 0, u)[0];
    Value eCnt = resultSizes(ib, types[3], {u}, 0, u)[0];
    Type i64 = rewriter.getI64Type();
    Value y =
        ib.zeros({ShapedType::kDynamic}, elt, ib.mul(ib.mul(outer, eY), inner));
    Value idx = ib.zeros(types[1].getShape(), i64, dynamicOf(types[1], {eIdx}));
    Value inv = ib.zeros(types[2].getShape(), i64, dynamicOf(types[2], {n}));
    Value cnt = ib.zeros(types[3].getShape(), i64, dynamicOf(types[3], {eCnt}));
    SmallVector<Value> res = ib.loop(
        n, {y, idx, inv, cnt}, [&](ScalarLoops &lb, Value j, ValueRange a) {
          Value f = lb.at(firsts, j);
          Value r = lb.at(ranks, f);
          Value newInv = lb.put(lb.toI64(r), a[2], j);
          Value newCnt = lb.ifThen(lb.lt(r, eCnt), a[3], [&](ScalarLoops &tb) {
            Value old = tb.at(a[3], r);
            Value one = createScalarConstant(tb.b, tb.loc, i64, 1);
            return ScalarLoops::Values{
                tb.put(arith::AddIOp::create(tb.b, tb.loc, old, one), a[3], r)};
          })[0];
          Value newIdx = lb.ifThen(
              lb.andI(lb.eq(f, j), lb.lt(r, eIdx)), a[1], [&](ScalarLoops &tb) {
                return ScalarLoops::Values{tb.put(tb.toI64(j), a[1], r)};
              })[0];
          Value newY = lb.ifThen(
              lb.andI(lb.eq(f, j), lb.lt(r, eY)), a[0], [&](ScalarLoops &tb) {
                return tb.loop(
                    cmp.slice, a[0],
                    [&](ScalarLoops &kb, Value t, ValueRange ka) {
                      Value o = arith::DivUIOp::create(kb.b, kb.loc, t, inner);
                      Value i = arith::RemUIOp::create(kb.b, kb.loc, t, inner);
                      Value dst =
                          kb.add(kb.mul(kb.add(kb.mul(o, eY), r), inner), i);
                      return ScalarLoops::Values{
                          kb.put(cmp.element(kb, j, t), ka[0], dst)};
                    });
              })[0];
          return ScalarLoops::Values{newY, newIdx, newInv, newCnt};
        });
    res[0] = ib.unflatten(res[0], types[0], ySizes);
    rewriter.replaceOp(op, res);
    return success();
  }
};
} // namespace

void populateNonMaxSuppressionPatterns(GraphTypeConverter &converter,
                                       RewritePatternSet &patterns);

void populateDataDependentPatterns(GraphTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering, CompressLowering, UniqueLowering>(
      converter, patterns.getContext());
  populateNonMaxSuppressionPatterns(converter, patterns);
}

} // namespace kiln
