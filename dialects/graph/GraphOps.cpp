//===- GraphOps.cpp - kiln.graph op folders -------------------------------===//
//
// Folders cover the cases that make shape computations static: constants,
// Identity, no-op Casts, Shape of a static tensor and Reshape of constants.
// Verification lives in the result-type inference (ShapeInference.cpp).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"

using namespace mlir;
using namespace kiln::graph;

OpFoldResult NoValueOp::fold(FoldAdaptor) {
  return UnitAttr::get(getContext());
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

// The result type may be more precise than the operand's; folding then would
// change the type users see.
OpFoldResult IdentityOp::fold(FoldAdaptor) {
  return getX().getType() == getType() ? getX() : Value();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Integer-to-integer casts of small constants (shape arithmetic).
  auto ints = dyn_cast_if_present<DenseIntElementsAttr>(adaptor.getInput());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!ints || !type || ints.getNumElements() > 1024 ||
      !type.getElementType().isSignlessInteger() ||
      type.getElementType().isInteger(1) ||
      !ints.getElementType().isSignlessInteger())
    return {};
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  return ints.mapValues(type.getElementType(),
                        [&](const APInt &v) { return v.sextOrTrunc(width); });
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  auto out = dyn_cast<RankedTensorType>(getType());
  if (!in || !out || !out.hasStaticShape())
    return {};
  int64_t r = in.getRank();
  int64_t start = getStart().value_or(0), end = getEnd().value_or(r);
  start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
  end = std::clamp<int64_t>(end < 0 ? end + r : end, 0, r);
  // Only the selected dims need to be static.
  SmallVector<int64_t> dims(in.getShape().begin() + start,
                            in.getShape().begin() + std::max(start, end));
  if (llvm::any_of(dims, ShapedType::isDynamic) ||
      out.getNumElements() != (int64_t)dims.size())
    return {};
  return DenseIntElementsAttr::get(out, dims);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  auto out = dyn_cast<RankedTensorType>(getType());
  if (!out || !out.hasStaticShape())
    return {};
  if (getData().getType() == out)
    return getData();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getData()))
    return dense.reshape(out);
  return {};
}

#define GET_OP_CLASSES
#include "dialects/graph/GraphOps.cpp.inc"
