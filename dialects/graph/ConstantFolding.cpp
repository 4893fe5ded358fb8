//===- ConstantFolding.cpp - Folders for small constant computations ------===//
//
// Exporters compute reshape targets with Shape -> Gather/Slice -> Concat ->
// Reshape chains and integer arithmetic. Once Shape folds (static input),
// these folders turn the chain into constants, so shapes become static.
// They only fold small inline constants (never weights).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace kiln::graph;

static constexpr int64_t kMaxFoldElements = 1024;

/// The constant behind `attr` when it is a small dense integer tensor.
static DenseIntElementsAttr smallInts(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseIntElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldElements)
    return {};
  return dense;
}

static RankedTensorType staticResult(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.hasStaticShape() && r.getNumElements() <= kMaxFoldElements
             ? r
             : RankedTensorType();
}

/// Integer elementwise op on constants, with ONNX broadcasting; `fn` may
/// return a result of another width (comparisons return i1).
template <typename Fn>
static OpFoldResult foldIntBinary(Type resultType, Attribute lhs, Attribute rhs,
                                  Fn fn) {
  auto a = smallInts(lhs), b = smallInts(rhs);
  auto type = staticResult(resultType);
  if (!a || !b || !type || !type.getElementType().isSignlessInteger())
    return {};
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  SmallVector<APInt> av(a.getValues<APInt>()), bv(b.getValues<APInt>());
  SmallVector<APInt> out;
  bool ok = true;
  kiln::forEachIndex(type.getShape(), {at, bt}, {},
                     [&](int64_t, ArrayRef<int64_t> in) {
                       if (!ok)
                         return;
                       std::optional<APInt> r = fn(av[in[0]], bv[in[1]]);
                       ok = r.has_value();
                       if (ok)
                         out.push_back(*r);
                     });
  if (!ok)
    return {};
  return DenseElementsAttr::get(type, out);
}

OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldIntBinary(getType(), a.getA(), a.getB(),
                       [](const APInt &x, const APInt &y) { return x + y; });
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldIntBinary(getType(), a.getA(), a.getB(),
                       [](const APInt &x, const APInt &y) { return x - y; });
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  return foldIntBinary(getType(), a.getA(), a.getB(),
                       [](const APInt &x, const APInt &y) { return x * y; });
}
OpFoldResult DivOp::fold(FoldAdaptor a) {
  return foldIntBinary(
      getType(), a.getA(), a.getB(),
      [](const APInt &x, const APInt &y) -> std::optional<APInt> {
        if (y.isZero())
          return std::nullopt;
        return x.sdiv(y);
      });
}

// ONNX Mod on integers: fmod = 0 takes the divisor's sign (Python's %),
// fmod = 1 the dividend's (C's %).
OpFoldResult ModOp::fold(FoldAdaptor a) {
  bool cStyle = getFmod() != 0;
  return foldIntBinary(
      getType(), a.getA(), a.getB(),
      [&](const APInt &x, const APInt &y) -> std::optional<APInt> {
        if (y.isZero())
          return std::nullopt;
        APInt r = x.srem(y);
        if (!cStyle && !r.isZero() && r.isNegative() != y.isNegative())
          r += y;
        return r;
      });
}

// Shape code compares extents with constants (`Where(Equal(shape, -1),
// ones, shape)` before an Expand).
OpFoldResult EqualOp::fold(FoldAdaptor a) {
  return foldIntBinary(
      getType(), a.getA(), a.getB(),
      [](const APInt &x, const APInt &y) { return APInt(1, x == y ? 1 : 0); });
}

OpFoldResult WhereOp::fold(FoldAdaptor a) {
  auto cond = smallInts(a.getCondition());
  auto x = dyn_cast_if_present<DenseElementsAttr>(a.getX());
  auto y = dyn_cast_if_present<DenseElementsAttr>(a.getY());
  auto type = staticResult(getType());
  if (!cond || !x || !y || !type || x.getNumElements() > kMaxFoldElements ||
      y.getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<bool> cv(cond.getValues<bool>());
  SmallVector<Attribute> xv(x.getValues<Attribute>()),
      yv(y.getValues<Attribute>()), out;
  kiln::forEachIndex(type.getShape(),
                     {cast<RankedTensorType>(cond.getType()),
                      cast<RankedTensorType>(x.getType()),
                      cast<RankedTensorType>(y.getType())},
                     {}, [&](int64_t, ArrayRef<int64_t> in) {
                       out.push_back(cv[in[0]] ? xv[in[1]] : yv[in[2]]);
                     });
  return DenseElementsAttr::get(type, out);
}

OpFoldResult CastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  // Integer-to-integer casts of constants (shape arithmetic).
  auto ints = smallInts(a.getInput());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!ints || !type || !type.getElementType().isSignlessInteger() ||
      type.getElementType().isInteger(1) ||
      !ints.getElementType().isSignlessInteger())
    return {};
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  return ints.mapValues(type.getElementType(),
                        [&](const APInt &v) { return v.sextOrTrunc(width); });
}

OpFoldResult ConcatOp::fold(FoldAdaptor a) {
  auto type = staticResult(getType());
  if (!type || type.getRank() != 1)
    return {};
  SmallVector<Attribute> elems;
  for (Attribute in : a.getInputs()) {
    auto dense = dyn_cast_if_present<DenseElementsAttr>(in);
    if (!dense)
      return {};
    llvm::append_range(elems, dense.getValues<Attribute>());
  }
  return DenseElementsAttr::get(type, elems);
}

/// A constant of `type` whose element at each index is `data`'s element at
/// the linear index `forEach` gives for it.
template <typename ForEach>
static OpFoldResult gatherElements(RankedTensorType type,
                                   DenseElementsAttr data, ForEach forEach) {
  SmallVector<Attribute> in(data.getValues<Attribute>()), elems;
  forEach([&](int64_t, ArrayRef<int64_t> idx) { elems.push_back(in[idx[0]]); });
  return DenseElementsAttr::get(type, elems);
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  auto type = staticResult(getType());
  auto data = dyn_cast_if_present<DenseElementsAttr>(a.getData());
  if (!type || !data || data.getNumElements() > kMaxFoldElements)
    return {};
  auto bounds = computeSliceBounds(std::nullopt, SliceOp::Adaptor(*this));
  if (failed(bounds) || bounds->starts.size() != size_t(type.getRank()))
    return {};
  // Output dim d steps through the input by steps[d] rows of dim d.
  SmallVector<int64_t> inStrides =
      computeStrides(cast<RankedTensorType>(data.getType()).getShape());
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  for (auto [start, step, stride] :
       llvm::zip(bounds->starts, bounds->steps, inStrides)) {
    strides.push_back(step * stride);
    offset += start * stride;
  }
  return gatherElements(type, data, [&](auto fn) {
    kiln::forEachStridedIndex(type.getShape(), {strides}, {offset}, fn);
  });
}

// Pad amounts computed from shapes (Swin's window padding) are reordered
// with Transpose before they reach Pad.
OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  auto type = staticResult(getType());
  auto data = dyn_cast_if_present<DenseElementsAttr>(a.getData());
  if (!type || !data)
    return {};
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm;
  if (auto p = getPerm())
    perm.assign(p->begin(), p->end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  if (int64_t(perm.size()) != rank)
    return {};
  return gatherElements(type, data, [&](auto fn) {
    kiln::forEachIndex(type.getShape(),
                       {cast<RankedTensorType>(data.getType())}, perm, fn);
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor a) {
  auto type = staticResult(getType());
  auto data = dyn_cast_if_present<DenseElementsAttr>(a.getData());
  auto indices = smallInts(a.getIndices());
  if (!type || !data || !indices || data.getType().getRank() != 1)
    return {};
  SmallVector<Attribute> in(data.getValues<Attribute>()), elems;
  int64_t n = in.size();
  for (const APInt &i : indices.getValues<APInt>()) {
    int64_t idx = i.getSExtValue();
    if (idx < 0)
      idx += n;
    if (idx < 0 || idx >= n)
      return {};
    elems.push_back(in[idx]);
  }
  return DenseElementsAttr::get(type, elems);
}

/// Squeeze/Unsqueeze of a constant only changes the type.
static OpFoldResult foldReshapeLike(Type resultType, Attribute data) {
  auto type = staticResult(resultType);
  auto dense = dyn_cast_if_present<DenseElementsAttr>(data);
  if (!type || !dense)
    return {};
  return dense.reshape(type);
}

OpFoldResult SqueezeOp::fold(FoldAdaptor a) {
  return foldReshapeLike(getType(), a.getData());
}
OpFoldResult UnsqueezeOp::fold(FoldAdaptor a) {
  return foldReshapeLike(getType(), a.getData());
}

OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto t = dyn_cast<RankedTensorType>(getData().getType());
  if (!t || !t.hasStaticShape())
    return {};
  auto type = RankedTensorType::get({}, IntegerType::get(getContext(), 64));
  return DenseElementsAttr::get(type, int64_t(t.getNumElements()));
}

OpFoldResult NegOp::fold(FoldAdaptor a) {
  auto ints = smallInts(a.getX());
  auto type = staticResult(getType());
  if (!ints || !type || !type.getElementType().isSignlessInteger() ||
      ints.getType() != type)
    return {};
  return ints.mapValues(type.getElementType(),
                        [](const APInt &v) { return -v; });
}

// Shape computations build small tensors of ones (ConstantOfShape of a
// constant shape); they fold once the result type is static.
OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor a) {
  auto type = staticResult(getType());
  if (!type || !a.getInput())
    return {};
  if (ElementsAttr value = getValueAttr()) {
    auto dense = dyn_cast<DenseElementsAttr>(value);
    if (!dense || dense.getElementType() != type.getElementType())
      return {};
    return DenseElementsAttr::get(type, dense.getValues<Attribute>()[0]);
  }
  if (!type.getElementType().isF32())
    return {};
  return DenseElementsAttr::get(type, 0.0f);
}
