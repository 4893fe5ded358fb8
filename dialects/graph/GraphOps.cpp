//===- GraphOps.cpp - kiln.graph op folders -------------------------------===//
//
// Folders for constants, Identity, Shape of a static tensor and Reshape of
// constants; those computing on small constants (Cast, Concat, Slice, integer
// arithmetic, ...) are in ConstantFolding.cpp.
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

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  auto out = dyn_cast<RankedTensorType>(getType());
  if (!in || !out || !out.hasStaticShape())
    return {};
  auto [start, end] = getShapeRange(in.getRank(), getStart(), getEnd());
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
