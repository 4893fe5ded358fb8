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

Type kiln::graph::joinTensorTypes(Type a, Type b) {
  auto ta = dyn_cast<TensorType>(a), tb = dyn_cast<TensorType>(b);
  if (!ta || !tb || ta.getElementType() != tb.getElementType())
    return {};
  if (a == b)
    return a;
  if (!ta.hasRank() || !tb.hasRank() || ta.getRank() != tb.getRank())
    return UnrankedTensorType::get(ta.getElementType());
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(ta.getShape(), tb.getShape()))
    dims.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(dims, ta.getElementType());
}

// Each result takes both branches' yields.
LogicalResult IfOp::verify() {
  if (auto c = dyn_cast<RankedTensorType>(getCond().getType()))
    if (c.hasStaticShape() && c.getNumElements() != 1)
      return emitOpError("cond must hold one element");
  for (Region *r : {&getThenBranch(), &getElseBranch()}) {
    auto yield = dyn_cast<YieldOp>(r->front().getTerminator());
    if (!yield)
      return emitOpError("branches must end in kiln_graph.Yield");
    if (yield.getValues().size() != getNumResults())
      return emitOpError("a branch yields ")
             << yield.getValues().size() << " values for " << getNumResults()
             << " results";
    for (auto [v, res] : llvm::zip(yield.getValues(), getResults())) {
      Type joined = joinTensorTypes(v.getType(), res.getType());
      if (!joined || joined != res.getType())
        return emitOpError("result type ")
               << res.getType() << " does not fit the yielded " << v.getType();
    }
  }
  return success();
}

LogicalResult ScanOp::verify() {
  int64_t numScans = getNumScanInputs();
  int64_t numStates = (int64_t)getInputs().size() - numScans;
  int64_t numOutputs = (int64_t)getNumResults() - numStates;
  if (numScans < 1 || numStates < 0 || numOutputs < 0)
    return emitOpError("needs at least one scan input and a result per "
                       "state");
  if ((int64_t)getScanInputAxes().size() != numScans ||
      (int64_t)getScanInputDirections().size() != numScans ||
      (int64_t)getScanOutputAxes().size() != numOutputs ||
      (int64_t)getScanOutputDirections().size() != numOutputs)
    return emitOpError("needs one axis and direction per scan input and "
                       "output");
  Block &body = getBody().front();
  if ((int64_t)body.getNumArguments() != numStates + numScans)
    return emitOpError("body takes ")
           << body.getNumArguments() << " values, expected "
           << numStates + numScans;
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != getNumResults())
    return emitOpError("body must yield one value per result");
  return success();
}

LogicalResult LoopOp::verify() {
  for (auto [v, what] : {std::pair{getMaxTripCount(), "max_trip_count"},
                         std::pair{getCond(), "cond"}})
    if (!isa<NoneType>(v.getType())) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || (t.hasStaticShape() && t.getNumElements() != 1))
        return emitOpError() << what << " must be one element or absent";
    }
  int64_t numValues = getInits().size();
  Block &body = getBody().front();
  if ((int64_t)body.getNumArguments() != numValues + 2)
    return emitOpError("body takes ")
           << body.getNumArguments() << " values, expected " << numValues + 2;
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || (int64_t)yield.getValues().size() != getNumResults() + 1 ||
      (int64_t)getNumResults() < numValues)
    return emitOpError("body must yield the condition and one value per "
                       "result");
  return success();
}

#define GET_OP_CLASSES
#include "dialects/graph/GraphOps.cpp.inc"
