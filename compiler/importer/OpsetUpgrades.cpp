//===- OpsetUpgrades.cpp - older ONNX operator forms to the newest --------===//
//
// kiln_graph models each operator in its newest form. Attributes that later
// opsets turned into inputs become constant operands here, and operators
// kiln_graph does not model directly (Upsample, Dropout, coerced Softmax)
// are rewritten into ones it does.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/GraphImporter.h"
#include "dialects/graph/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln::importer {
namespace {

/// Removes attribute `name` from `form`, returning it if it was set.
Attribute take(NodeForm &form, llvm::StringRef name) {
  form.onnxAttrTypes.erase(name);
  return form.attrs.erase(name);
}

/// Moves INTS attribute `name` into operand `index` as a tensor<Nxi64>.
LogicalResult intsToInput(GraphImporter &im, NodeForm &form,
                          llvm::StringRef name, unsigned index,
                          bool required = false) {
  Attribute attr = take(form, name);
  if (!attr) {
    if (required)
      return im.nodeError("missing required attribute '" + name + "'");
    return success();
  }
  auto ints = dyn_cast<DenseI64ArrayAttr>(attr);
  if (!ints)
    return im.nodeError("attribute '" + name + "' must be ints");
  FailureOr<Value> v = im.constantI64(ints.asArrayRef());
  if (failed(v))
    return failure();
  if (form.operands.size() <= index)
    form.operands.resize(index + 1);
  form.operands[index] = *v;
  return success();
}

/// Moves FLOAT attribute `name` into operand `index` as a scalar with the
/// element type of operand 0.
LogicalResult floatToInput(GraphImporter &im, NodeForm &form,
                           llvm::StringRef name, unsigned index) {
  Attribute attr = take(form, name);
  if (!attr)
    return success();
  auto f = dyn_cast<FloatAttr>(attr);
  if (!f)
    return im.nodeError("attribute '" + name + "' must be float");
  if (form.operands.empty() || !form.operands[0])
    return im.nodeError("missing input #0");
  FailureOr<Value> v = im.scalarLike(f.getValueAsDouble(), form.operands[0]);
  if (failed(v))
    return failure();
  if (form.operands.size() <= index)
    form.operands.resize(index + 1);
  form.operands[index] = *v;
  return success();
}

/// Softmax and LogSoftmax before opset 13 normalize over all dims from
/// `axis` on (the input coerced to 2-D). When `axis` is the last dim that is
/// the newest semantics; otherwise Flatten -> op(axis=1) -> Reshape back.
LogicalResult upgradeCoercedSoftmax(GraphImporter &im, NodeForm &form,
                                    llvm::SmallVectorImpl<Value> &results) {
  Builder &b = im.getBuilder();
  int64_t axis = 1;
  if (Attribute a = take(form, "axis")) {
    auto i = dyn_cast<IntegerAttr>(a);
    if (!i)
      return im.nodeError("attribute 'axis' must be int");
    axis = i.getInt();
  }
  if (form.operands.size() != 1 || !form.operands[0])
    return im.nodeError("expects exactly one input");
  Value x = form.operands[0];
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type)
    return im.nodeError("before opset 13 the input must have a known rank");
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return im.nodeError("axis " + std::to_string(axis) +
                        " is out of range for rank " + std::to_string(rank));
  if (axis < 0)
    axis += rank;
  if (axis >= rank - 1) {
    form.attrs.set("axis", b.getI64IntegerAttr(axis));
    return success();
  }

  NodeForm flatten;
  flatten.opType = "Flatten";
  flatten.operands = {x};
  flatten.attrs.set("axis", b.getI64IntegerAttr(axis));
  FailureOr<Operation *> flat = im.emitOp(flatten);
  if (failed(flat))
    return failure();

  NodeForm norm;
  norm.opType = form.opType;
  norm.operands = {(*flat)->getResult(0)};
  norm.attrs.set("axis", b.getI64IntegerAttr(1));
  FailureOr<Operation *> normalized = im.emitOp(norm);
  if (failed(normalized))
    return failure();

  FailureOr<Value> shape;
  if (type.hasStaticShape()) {
    shape = im.constantI64(type.getShape());
  } else {
    NodeForm shapeOf;
    shapeOf.opType = "Shape";
    shapeOf.operands = {x};
    FailureOr<Operation *> s = im.emitOp(shapeOf);
    shape = failed(s) ? FailureOr<Value>(failure())
                      : FailureOr<Value>((*s)->getResult(0));
  }
  if (failed(shape))
    return failure();

  NodeForm reshape;
  reshape.opType = "Reshape";
  reshape.operands = {(*normalized)->getResult(0), *shape};
  FailureOr<Operation *> back = im.emitOp(reshape);
  if (failed(back))
    return failure();
  results.push_back((*back)->getResult(0));
  return success();
}

/// Resize before opset 11 and Upsample scale with "asymmetric" coordinates
/// and, for nearest, floor rounding.
void setLegacyResizeModes(GraphImporter &im, NodeForm &form) {
  Builder &b = im.getBuilder();
  auto mode = dyn_cast_or_null<StringAttr>(form.attrs.get("mode"));
  std::string m = mode ? mode.getValue().str() : "nearest";
  if (m == "bilinear" || m == "trilinear")
    m = "linear";
  form.attrs.set("mode", b.getStringAttr(m));
  form.onnxAttrTypes["mode"] = "string";
  form.attrs.set("coordinate_transformation_mode",
                 b.getStringAttr("asymmetric"));
  if (m == "nearest")
    form.attrs.set("nearest_mode", b.getStringAttr("floor"));
}

LogicalResult upgradeUpsample(GraphImporter &im, NodeForm &form) {
  form.opType = "Resize";
  Value x = form.operands.empty() ? Value() : form.operands[0];
  Value scales;
  if (Attribute a = take(form, "scales")) {
    auto floats = dyn_cast<DenseF32ArrayAttr>(a);
    if (!floats)
      return im.nodeError("attribute 'scales' must be floats");
    auto type = RankedTensorType::get({int64_t(floats.size())},
                                      im.getBuilder().getF32Type());
    FailureOr<Value> v =
        im.constant(DenseElementsAttr::get(type, floats.asArrayRef()));
    if (failed(v))
      return failure();
    scales = *v;
  } else if (form.operands.size() == 2) {
    scales = form.operands[1];
  }
  if (!x || !scales)
    return im.nodeError("Upsample needs an input and scales");
  form.operands = {x, Value(), scales, Value()};
  setLegacyResizeModes(im, form);
  return success();
}
/// Emits `opType(operands)` with `attrs` and returns its first result.
FailureOr<Value> emitSimple(GraphImporter &im, llvm::StringRef opType,
                            llvm::ArrayRef<Value> operands,
                            llvm::ArrayRef<NamedAttribute> attrs = {}) {
  NodeForm form;
  form.opType = opType.str();
  form.operands.assign(operands.begin(), operands.end());
  for (const NamedAttribute &a : attrs)
    form.attrs.set(a.getName(), a.getValue());
  FailureOr<Operation *> op = im.emitOp(form);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

/// Inference only: Dropout is the identity and its mask, when read, all
/// true. Training mode with a nonzero ratio draws random numbers: refused.
LogicalResult upgradeDropout(GraphImporter &im, NodeForm &form,
                             llvm::SmallVectorImpl<Value> &results) {
  if (form.operands.empty() || !form.operands[0])
    return im.nodeError("missing input #0");
  Value x = form.operands[0];
  if (form.operands.size() > 2 && form.operands[2]) {
    double ratio = 0.5;
    if (form.operands.size() > 1 && form.operands[1]) {
      auto r = graph::getConstantFloats(form.operands[1]);
      ratio = r && r->size() == 1 ? (*r)[0] : -1;
    }
    auto training = graph::getConstantInts(form.operands[2]);
    bool inference = training && training->size() == 1 && (*training)[0] == 0;
    if (ratio != 0 && !inference)
      return im.nodeError("unsupported: Dropout in training mode (or with a "
                          "training_mode input) drops at random");
  }
  FailureOr<Value> y = emitSimple(im, "Identity", {x});
  if (failed(y))
    return failure();
  results.push_back(*y);
  const onnx::NodeProto &n = im.currentNode();
  if (n.output_size() > 1 && !n.output(1).empty() && im.isUsed(n.output(1))) {
    FailureOr<Value> shape = emitSimple(im, "Shape", {x});
    if (failed(shape))
      return failure();
    Builder &b = im.getBuilder();
    auto one = RankedTensorType::get({1}, b.getI1Type());
    NamedAttribute value(b.getStringAttr("value"),
                         DenseElementsAttr::get(one, true));
    FailureOr<Value> mask =
        emitSimple(im, "ConstantOfShape", {*shape}, {value});
    if (failed(mask))
      return failure();
    results.push_back(*mask);
  }
  return success();
}

/// BatchNormalization with training_mode = 1: normalizes with the batch's
/// statistics (mean and population variance over every dim but the
/// channel) and also yields running_mean = mean * momentum + batch mean *
/// (1 - momentum), and likewise running_var, as primitive ops.
LogicalResult expandTrainingBatchNorm(GraphImporter &im, NodeForm &form,
                                      llvm::SmallVectorImpl<Value> &results) {
  Builder &b = im.getBuilder();
  if (form.operands.size() != 5 || llvm::is_contained(form.operands, Value()))
    return im.nodeError("expects 5 inputs");
  Value x = form.operands[0];
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || xt.getRank() < 2)
    return im.nodeError("unsupported: training mode needs a ranked input of "
                        "rank >= 2");
  double eps = 1e-5, momentum = 0.9;
  if (auto e = dyn_cast_or_null<FloatAttr>(form.attrs.get("epsilon")))
    eps = e.getValueAsDouble();
  if (auto m = dyn_cast_or_null<FloatAttr>(form.attrs.get("momentum")))
    momentum = m.getValueAsDouble();
  llvm::SmallVector<int64_t> axes{0};
  for (int64_t i = 2; i < xt.getRank(); ++i)
    axes.push_back(i);
  // Per-channel vectors [C] broadcast as [C, 1, ...].
  llvm::SmallVector<int64_t> trailing;
  for (int64_t i = 1; i + 1 < xt.getRank(); ++i)
    trailing.push_back(i);
  FailureOr<Value> axesV = im.constantI64(axes);
  FailureOr<Value> trailingV = im.constantI64(trailing);
  FailureOr<Value> epsV = im.scalarLike(eps, x);
  FailureOr<Value> momV = im.scalarLike(momentum, x);
  FailureOr<Value> restV = im.scalarLike(1 - momentum, x);
  if (failed(axesV) || failed(trailingV) || failed(epsV) || failed(momV) ||
      failed(restV))
    return failure();
  NamedAttribute keep(b.getStringAttr("keepdims"), b.getI64IntegerAttr(1));
  NamedAttribute drop(b.getStringAttr("keepdims"), b.getI64IntegerAttr(0));
  auto chain = [&](llvm::StringRef op, llvm::ArrayRef<Value> in,
                   llvm::ArrayRef<NamedAttribute> attrs = {}) {
    return emitSimple(im, op, in, attrs);
  };
  FailureOr<Value> mean = chain("ReduceMean", {x, *axesV}, {keep});
  if (failed(mean))
    return failure();
  FailureOr<Value> d = chain("Sub", {x, *mean});
  FailureOr<Value> sq = succeeded(d) ? chain("Mul", {*d, *d}) : d;
  FailureOr<Value> var =
      succeeded(sq) ? chain("ReduceMean", {*sq, *axesV}, {keep}) : sq;
  FailureOr<Value> shifted = succeeded(var) ? chain("Add", {*var, *epsV}) : var;
  FailureOr<Value> std =
      succeeded(shifted) ? chain("Sqrt", {*shifted}) : shifted;
  FailureOr<Value> norm = succeeded(std) ? chain("Div", {*d, *std}) : std;
  auto perChannel = [&](Value v) -> FailureOr<Value> {
    if (trailing.empty())
      return v;
    return chain("Unsqueeze", {v, *trailingV});
  };
  FailureOr<Value> scale = perChannel(form.operands[1]);
  FailureOr<Value> bias = perChannel(form.operands[2]);
  if (failed(norm) || failed(scale) || failed(bias))
    return failure();
  FailureOr<Value> scaled = chain("Mul", {*norm, *scale});
  FailureOr<Value> y =
      succeeded(scaled) ? chain("Add", {*scaled, *bias}) : scaled;
  if (failed(y))
    return failure();
  results.push_back(*y);
  // Running statistics, [C].
  for (auto [running, batch] : {std::pair{form.operands[3], *mean},
                                std::pair{form.operands[4], *var}}) {
    FailureOr<Value> flat = chain("ReduceMean", {batch, *axesV}, {drop});
    FailureOr<Value> a =
        succeeded(flat) ? chain("Mul", {running, *momV}) : flat;
    FailureOr<Value> c = succeeded(a) ? chain("Mul", {*flat, *restV}) : a;
    FailureOr<Value> r = succeeded(c) ? chain("Add", {*a, *c}) : c;
    if (failed(r))
      return failure();
    results.push_back(*r);
  }
  return success();
}

/// LayerNormalization whose Mean / InvStdDev outputs are used: kiln_graph
/// models only Y, so the node becomes its defining primitive ops, which
/// produce all three.
LogicalResult expandLayerNormWithStats(GraphImporter &im, NodeForm &form,
                                       llvm::SmallVectorImpl<Value> &results) {
  Builder &b = im.getBuilder();
  int64_t axis = -1;
  double epsilon = 1e-5;
  if (auto a = dyn_cast_or_null<IntegerAttr>(take(form, "axis")))
    axis = a.getInt();
  if (auto e = dyn_cast_or_null<FloatAttr>(take(form, "epsilon")))
    epsilon = e.getValueAsDouble();
  take(form, "stash_type");
  if (form.operands.size() < 2 || !form.operands[0] || !form.operands[1])
    return im.nodeError("expects inputs X and Scale");
  Value x = form.operands[0];
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !type.getElementType().isF32())
    return im.nodeError("Mean/InvStdDev outputs need a ranked float input");
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return im.nodeError("axis " + std::to_string(axis) +
                        " is out of range for rank " + std::to_string(rank));
  if (axis < 0)
    axis += rank;
  llvm::SmallVector<int64_t> axesList;
  for (int64_t i = axis; i < rank; ++i)
    axesList.push_back(i);
  FailureOr<Value> axes = im.constantI64(axesList);
  FailureOr<Value> eps = im.scalarLike(epsilon, x);
  FailureOr<Value> one = im.scalarLike(1.0, x);
  if (failed(axes) || failed(eps) || failed(one))
    return failure();
  NamedAttribute keep(b.getStringAttr("keepdims"), b.getI64IntegerAttr(1));
  FailureOr<Value> mean = emitSimple(im, "ReduceMean", {x, *axes}, {keep});
  if (failed(mean))
    return failure();
  FailureOr<Value> d = emitSimple(im, "Sub", {x, *mean});
  if (failed(d))
    return failure();
  FailureOr<Value> sq = emitSimple(im, "Mul", {*d, *d});
  if (failed(sq))
    return failure();
  FailureOr<Value> var = emitSimple(im, "ReduceMean", {*sq, *axes}, {keep});
  if (failed(var))
    return failure();
  FailureOr<Value> shifted = emitSimple(im, "Add", {*var, *eps});
  if (failed(shifted))
    return failure();
  FailureOr<Value> stdDev = emitSimple(im, "Sqrt", {*shifted});
  if (failed(stdDev))
    return failure();
  FailureOr<Value> invStd = emitSimple(im, "Div", {*one, *stdDev});
  if (failed(invStd))
    return failure();
  FailureOr<Value> normalized = emitSimple(im, "Mul", {*d, *invStd});
  if (failed(normalized))
    return failure();
  FailureOr<Value> y = emitSimple(im, "Mul", {*normalized, form.operands[1]});
  if (failed(y))
    return failure();
  if (form.operands.size() > 2 && form.operands[2]) {
    y = emitSimple(im, "Add", {*y, form.operands[2]});
    if (failed(y))
      return failure();
  }
  results.assign({*y, *mean, *invStd});
  results.resize(form.numResults);
  return success();
}

} // namespace

LogicalResult upgradeNode(GraphImporter &im, NodeForm &form,
                          llvm::SmallVectorImpl<Value> &results) {
  int64_t opset = im.getOpset();
  llvm::StringRef op = form.opType;
  Builder &b = im.getBuilder();

  if (op == "Clip" && opset < 11) {
    if (failed(floatToInput(im, form, "min", 1)) ||
        failed(floatToInput(im, form, "max", 2)))
      return failure();
    return success();
  }
  if ((op == "Squeeze" || op == "Unsqueeze") && opset < 13)
    return intsToInput(im, form, "axes", 1, /*required=*/op == "Unsqueeze");
  if (op == "Split") {
    if (opset < 13 && failed(intsToInput(im, form, "split", 1)))
      return failure();
    // Before opset 18 a Split without sizes splits evenly into as many
    // parts as it has outputs; opset 18 says so with num_outputs.
    bool hasSplit = form.operands.size() > 1 && form.operands[1];
    if (opset < 18 && !hasSplit)
      form.attrs.set("num_outputs", b.getI64IntegerAttr(form.numResults));
    return success();
  }
  if ((op == "ReduceSum" && opset < 13) ||
      (op.starts_with("Reduce") && op != "ReduceSum" && opset < 18))
    return intsToInput(im, form, "axes", 1);
  if (op == "Slice" && opset < 10) {
    if (failed(intsToInput(im, form, "starts", 1, /*required=*/true)) ||
        failed(intsToInput(im, form, "ends", 2, /*required=*/true)) ||
        failed(intsToInput(im, form, "axes", 3)))
      return failure();
    return success();
  }
  if (op == "Pad" && opset < 11) {
    if (failed(intsToInput(im, form, "pads", 1, /*required=*/true)) ||
        failed(floatToInput(im, form, "value", 2)))
      return failure();
    return success();
  }
  if ((op == "Softmax" || op == "LogSoftmax") && opset < 13)
    return upgradeCoercedSoftmax(im, form, results);
  if (op == "Resize" && opset < 11) {
    if (form.operands.size() != 2)
      return im.nodeError("expects 2 inputs (X, scales)");
    form.operands = {form.operands[0], Value(), form.operands[1], Value()};
    setLegacyResizeModes(im, form);
    return success();
  }
  if (op == "Upsample")
    return upgradeUpsample(im, form);
  if (op == "LayerNormalization" && form.numResults > 1)
    return expandLayerNormWithStats(im, form, results);
  if (op == "Dropout")
    return upgradeDropout(im, form, results);
  if (op == "Scatter") {
    // Deprecated in opset 11 for ScatterElements, with the same meaning.
    form.opType = "ScatterElements";
    return success();
  }
  if (op == "BatchNormalization") {
    // Legacy attributes with no effect in inference, except spatial=0
    // (per-activation statistics), which kiln does not implement.
    if (auto spatial = dyn_cast_or_null<IntegerAttr>(take(form, "spatial")))
      if (spatial.getInt() == 0)
        return im.nodeError("unsupported: spatial=0");
    take(form, "consumed_inputs");
    take(form, "is_test");
    auto training =
        dyn_cast_or_null<IntegerAttr>(form.attrs.get("training_mode"));
    if (training && training.getInt() != 0)
      return expandTrainingBatchNorm(im, form, results);
    return success();
  }
  return success();
}

} // namespace kiln::importer
