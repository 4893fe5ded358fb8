//===- ConstantFolding.cpp - Folders for small constant computations ------===//
//
// Exporters compute reshape targets with Shape -> Gather/Slice -> Concat ->
// Reshape chains and integer arithmetic. Once Shape folds (static input),
// these folders turn the chain into constants, so shapes become static.
// They only fold small inline constants (never weights).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"

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

/// Integer elementwise op on constants, with ONNX broadcasting.
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
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  SmallVector<APInt> out;
  for (int64_t linear = 0; linear < type.getNumElements(); ++linear) {
    // Index into each operand, right-aligned, with size-1 dims broadcast.
    auto index = [&](RankedTensorType t) {
      int64_t idx = 0, rem = linear, stride = 1;
      SmallVector<int64_t> coords(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        coords[d] = rem % shape[d];
        rem /= shape[d];
      }
      for (int64_t d = t.getRank() - 1; d >= 0; --d) {
        int64_t c = coords[d + rank - t.getRank()];
        idx += (t.getDimSize(d) == 1 ? 0 : c) * stride;
        stride *= t.getDimSize(d);
      }
      return idx;
    };
    std::optional<APInt> r = fn(av[index(at)], bv[index(bt)]);
    if (!r)
      return {};
    out.push_back(*r);
  }
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

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  auto type = staticResult(getType());
  auto data = dyn_cast_if_present<DenseElementsAttr>(a.getData());
  if (!type || !data || type.getRank() != 1)
    return {};
  auto bounds = computeSliceBounds(std::nullopt, SliceOp::Adaptor(*this));
  if (failed(bounds))
    return {};
  SmallVector<Attribute> in(data.getValues<Attribute>()), elems;
  for (int64_t i = 0; i < bounds->sizes[0]; ++i)
    elems.push_back(in[bounds->starts[0] + i * bounds->steps[0]]);
  return DenseElementsAttr::get(type, elems);
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
