//===- DataDependentShapeInference.cpp - Inference for DataDependentOps.td ===//
//
// The extents these ops compute from data are dynamic; the others follow
// the input shapes.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ShapeInference.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace kiln::graph {

static constexpr int64_t kDyn = ShapedType::kDynamic;

static Type i64Type(Value v) { return IntegerType::get(v.getContext(), 64); }

LogicalResult inferNonZero(Loc loc, NonZeroOp::Adaptor op, Types &types) {
  auto x = rankedOrNull(op.getX());
  types.push_back(RankedTensorType::get({x ? x.getRank() : kDyn, kDyn},
                                        i64Type(op.getX())));
  return success();
}

LogicalResult inferCompress(Loc loc, CompressOp::Adaptor op, Types &types) {
  auto x = rankedOrNull(op.getInput());
  auto cond = rankedOrNull(op.getCondition());
  Type elt = getElementTypeOrSelf(op.getInput().getType());
  if (cond && cond.getRank() != 1)
    return emitOptionalError(loc, "condition must be 1-D, got rank ",
                             cond.getRank());
  if (!op.getAxis()) {
    types.push_back(RankedTensorType::get({kDyn}, elt));
    return success();
  }
  if (!x) {
    types.push_back(UnrankedTensorType::get(elt));
    return success();
  }
  auto axis = normalizeAxis(loc, *op.getAxis(), x.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  shape[*axis] = kDyn;
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

LogicalResult inferUnique(Loc loc, UniqueOp::Adaptor op, Types &types) {
  auto x = rankedOrNull(op.getX());
  Type elt = getElementTypeOrSelf(op.getX().getType());
  Type i64 = i64Type(op.getX());
  int64_t items = kDyn; // elements or slices: what inverse_indices indexes
  if (!op.getAxis()) {
    types.push_back(RankedTensorType::get({kDyn}, elt));
    if (x && x.hasStaticShape())
      items = x.getNumElements();
  } else if (!x) {
    types.push_back(UnrankedTensorType::get(elt));
  } else {
    auto axis = normalizeAxis(loc, *op.getAxis(), x.getRank());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> shape(x.getShape());
    items = shape[*axis];
    shape[*axis] = kDyn;
    types.push_back(RankedTensorType::get(shape, elt));
  }
  types.push_back(RankedTensorType::get({kDyn}, i64));
  types.push_back(RankedTensorType::get({items}, i64));
  types.push_back(RankedTensorType::get({kDyn}, i64));
  return success();
}

LogicalResult inferNonMaxSuppression(Loc loc, NonMaxSuppressionOp::Adaptor op,
                                     Types &types) {
  auto boxes = rankedOrNull(op.getBoxes());
  auto scores = rankedOrNull(op.getScores());
  if (boxes && (boxes.getRank() != 3 ||
                (!boxes.isDynamicDim(2) && boxes.getDimSize(2) != 4)))
    return emitOptionalError(loc, "boxes must be [batch, boxes, 4]");
  if (scores && scores.getRank() != 3)
    return emitOptionalError(loc, "scores must be [batch, classes, boxes]");
  if (op.getCenterPointBox() > 1)
    return emitOptionalError(loc, "center_point_box must be 0 or 1");
  types.push_back(RankedTensorType::get({kDyn, 3}, i64Type(op.getBoxes())));
  return success();
}

} // namespace kiln::graph
