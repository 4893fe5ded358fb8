//===- ControlFlowImporter.cpp - ONNX If to kiln_graph.If -----------------===//
//
// An If's then_branch and else_branch subgraphs become the op's two regions.
// Their nodes import like the main graph's, into the region's block, reading
// outer values by name; names a subgraph defines are visible only inside it.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/GraphImporter.h"
#include "compiler/importer/TensorConversion.h"
#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace kiln::importer {

/// The value of a one-element integer or bool constant, if `v` is one.
static std::optional<int64_t> constantInt(Value v) {
  std::optional<ConstantData> data = getConstantData(v);
  if (!data || data->getNumElements() != 1)
    return std::nullopt;
  return (int64_t)data->getDouble(0);
}

static bool isConstantTrue(Value v) {
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)) && attr.getNumElements() == 1 &&
      attr.getElementType().isInteger(1))
    return *attr.getValues<bool>().begin();
  std::optional<int64_t> c = constantInt(v);
  return c && *c != 0;
}

LogicalResult GraphImporter::importSubgraph(const onnx::GraphProto &g,
                                            Region &region,
                                            llvm::SmallVectorImpl<Value> &outs,
                                            ArrayRef<Type> inputTypes) {
  if (g.input_size() != (int)inputTypes.size())
    return nodeError("subgraph " + quoted(g.name()) + " takes " +
                     std::to_string(g.input_size()) + " inputs, expected " +
                     std::to_string(inputTypes.size()));
  if (g.sparse_initializer_size())
    return nodeError("sparse initializers are not supported");
  Block *block = new Block();
  region.push_back(block);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);

  // Names this subgraph defines, to hide again afterwards (an input may
  // shadow an outer name: the outer value comes back after).
  llvm::SmallVector<std::string> local;
  llvm::SmallVector<std::pair<std::string, Value>> shadowed;
  for (auto [i, type] : llvm::enumerate(inputTypes)) {
    const std::string &name = g.input(i).name();
    if (Value outer = values.lookup(name))
      shadowed.emplace_back(name, outer);
    values[name] = block->addArgument(type, nodeLoc());
    local.push_back(name);
  }
  for (const onnx::TensorProto &t : g.initializer()) {
    std::string why;
    FailureOr<ElementsAttr> attr = convertTensorProto(ctx, t, t.name(), why);
    if (failed(attr))
      return nodeError("subgraph initializer " + quoted(t.name()) + ": " + why);
    FailureOr<Value> v = constant(*attr);
    if (failed(v))
      return failure();
    if (failed(define(t.name(), *v)))
      return failure();
    local.push_back(t.name());
  }
  for (const onnx::NodeProto &n : g.node()) {
    for (const std::string &name : n.output())
      if (!name.empty()) {
        producedNames.insert(name);
        local.push_back(name);
      }
    for (const std::string &name : n.input())
      usedNames.insert(name);
  }
  for (const onnx::ValueInfoProto &vi : g.output())
    usedNames.insert(vi.name());

  const onnx::NodeProto *outer = node;
  int outerIndex = nodeIndex;
  LogicalResult result = success();
  for (const onnx::NodeProto &n : g.node()) {
    ++nodeIndex;
    if (failed(result = importNode(n)))
      break;
  }
  node = outer;
  nodeIndex = outerIndex;
  if (failed(result))
    return failure();
  for (const onnx::ValueInfoProto &vi : g.output()) {
    Value v = values.lookup(vi.name());
    if (!v)
      return nodeError("subgraph output " + quoted(vi.name()) +
                       " is not produced by any node");
    outs.push_back(v);
  }
  OperationState state(nodeLoc(), "kiln_graph.Yield");
  state.addOperands(outs);
  builder.create(state);
  for (const std::string &name : local)
    values.erase(name);
  for (auto &[name, v] : shadowed)
    values[name] = v;
  return success();
}

LogicalResult GraphImporter::importIfNode(const onnx::NodeProto &n) {
  if (n.input_size() != 1 || n.input(0).empty())
    return nodeError("If takes one input (cond)");
  FailureOr<Value> cond = lookupInput(n.input(0));
  if (failed(cond))
    return failure();
  const onnx::GraphProto *branches[2] = {nullptr, nullptr};
  for (const onnx::AttributeProto &a : n.attribute()) {
    if (a.name() == "then_branch" && a.has_g())
      branches[0] = &a.g();
    else if (a.name() == "else_branch" && a.has_g())
      branches[1] = &a.g();
  }
  if (!branches[0] || !branches[1])
    return nodeError("If needs then_branch and else_branch graphs");
  for (const onnx::GraphProto *g : branches)
    if (g->input_size() != 0)
      return nodeError("subgraph " + quoted(g->name()) +
                       " has inputs; If branches take none");

  Location loc = nodeLoc();
  OperationState state(loc, "kiln_graph.If");
  state.addOperands(*cond);
  llvm::SmallVector<Value> yields[2];
  for (int i = 0; i < 2; ++i)
    if (failed(importSubgraph(*branches[i], *state.addRegion(), yields[i])))
      return failure();
  if (yields[0].size() != yields[1].size())
    return nodeError("then_branch yields " + std::to_string(yields[0].size()) +
                     " outputs, else_branch " +
                     std::to_string(yields[1].size()));
  if (int(yields[0].size()) < n.output_size())
    return nodeError("has " + std::to_string(n.output_size()) +
                     " outputs, but its branches yield " +
                     std::to_string(yields[0].size()));
  for (auto [i, pair] : llvm::enumerate(llvm::zip(yields[0], yields[1]))) {
    auto [t, e] = pair;
    Type joined = graph::joinTensorTypes(t.getType(), e.getType());
    if (!joined)
      return nodeError("output #" + std::to_string(i) +
                       ": the branches yield " + typeString(t.getType()) +
                       " and " + typeString(e.getType()));
    state.addTypes(joined);
  }
  return createAndBind(state, n, "If");
}

LogicalResult GraphImporter::createAndBind(OperationState &state,
                                           const onnx::NodeProto &n,
                                           llvm::StringRef opName) {
  lastDiagnostic.clear();
  Operation *op = builder.create(state);
  if (failed(mlir::verify(op)))
    return nodeError("invalid " + opName + ": " + lastDiagnostic);
  return bindOutputs(n, op->getResults());
}

LogicalResult GraphImporter::importScanNode(const onnx::NodeProto &n) {
  if (opset < 9)
    return nodeError("Scan before opset 9 (batched, with sequence_lens) is "
                     "not supported; re-export at opset 9 or later");
  const onnx::GraphProto *body = nullptr;
  int64_t numScans = -1;
  std::vector<int64_t> inAxes, inDirs, outAxes, outDirs;
  for (const onnx::AttributeProto &a : n.attribute()) {
    std::vector<int64_t> ints(a.ints().begin(), a.ints().end());
    if (a.name() == "body" && a.has_g())
      body = &a.g();
    else if (a.name() == "num_scan_inputs")
      numScans = a.i();
    else if (a.name() == "scan_input_axes")
      inAxes = ints;
    else if (a.name() == "scan_input_directions")
      inDirs = ints;
    else if (a.name() == "scan_output_axes")
      outAxes = ints;
    else if (a.name() == "scan_output_directions")
      outDirs = ints;
  }
  int64_t numInputs = n.input_size();
  if (!body || numScans < 1 || numScans > numInputs)
    return nodeError("Scan needs a body and 1 <= num_scan_inputs <= " +
                     std::to_string(numInputs));
  int64_t numStates = numInputs - numScans;
  int64_t numOutputs = body->output_size() - numStates;
  if (numOutputs < 0)
    return nodeError("the body yields fewer values than there are states");
  inAxes.resize(numScans, 0);
  inDirs.resize(numScans, 0);
  outAxes.resize(numOutputs, 0);
  outDirs.resize(numOutputs, 0);

  SmallVector<Value> operands;
  SmallVector<Type> argTypes;
  int64_t trips = ShapedType::kDynamic;
  for (int64_t i = 0; i < numInputs; ++i) {
    FailureOr<Value> found = lookupInput(n.input(i));
    if (failed(found))
      return failure();
    Value v = *found;
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    if (!t)
      return nodeError("Scan input #" + std::to_string(i) +
                       " must be a ranked tensor");
    operands.push_back(v);
    if (i < numStates) {
      argTypes.push_back(t);
      continue;
    }
    int64_t &axis = inAxes[i - numStates];
    if (axis < 0)
      axis += t.getRank();
    if (axis < 0 || axis >= t.getRank())
      return nodeError("scan_input_axes out of range");
    if (inDirs[i - numStates] != 0 && inDirs[i - numStates] != 1)
      return nodeError("scan directions are 0 or 1");
    int64_t extent = t.getDimSize(axis);
    if (!ShapedType::isDynamic(extent)) {
      if (!ShapedType::isDynamic(trips) && trips != extent)
        return nodeError("scan inputs disagree on the trip count");
      trips = extent;
    }
    SmallVector<int64_t> slice(t.getShape());
    slice.erase(slice.begin() + axis);
    argTypes.push_back(RankedTensorType::get(slice, t.getElementType()));
  }

  Location loc = nodeLoc();
  OperationState state(loc, "kiln_graph.Scan");
  state.addOperands(operands);
  llvm::SmallVector<Value> yields;
  if (failed(importSubgraph(*body, *state.addRegion(), yields, argTypes)))
    return failure();
  for (int64_t i = 0; i < numStates; ++i) {
    Type joined = graph::joinTensorTypes(yields[i].getType(), argTypes[i]);
    if (!joined)
      return nodeError("state #" + std::to_string(i) + ": the body yields " +
                       typeString(yields[i].getType()) + " for " +
                       typeString(argTypes[i]));
    state.addTypes(joined);
  }
  for (int64_t k = 0; k < numOutputs; ++k) {
    auto t = dyn_cast<RankedTensorType>(yields[numStates + k].getType());
    if (!t)
      return nodeError("scan output #" + std::to_string(k) +
                       " must be a ranked tensor");
    int64_t &axis = outAxes[k];
    if (axis < 0)
      axis += t.getRank() + 1;
    if (axis < 0 || axis > t.getRank() || (outDirs[k] != 0 && outDirs[k] != 1))
      return nodeError("scan_output_axes or directions out of range");
    SmallVector<int64_t> shape(t.getShape());
    shape.insert(shape.begin() + axis, trips);
    state.addTypes(RankedTensorType::get(shape, t.getElementType()));
  }
  state.addAttribute("num_scan_inputs", builder.getI64IntegerAttr(numScans));
  state.addAttribute("scan_input_axes", builder.getDenseI64ArrayAttr(inAxes));
  state.addAttribute("scan_input_directions",
                     builder.getDenseI64ArrayAttr(inDirs));
  state.addAttribute("scan_output_axes", builder.getDenseI64ArrayAttr(outAxes));
  state.addAttribute("scan_output_directions",
                     builder.getDenseI64ArrayAttr(outDirs));
  return createAndBind(state, n, "Scan");
}

LogicalResult GraphImporter::importLoopNode(const onnx::NodeProto &n) {
  const onnx::GraphProto *body = nullptr;
  for (const onnx::AttributeProto &a : n.attribute())
    if (a.name() == "body" && a.has_g())
      body = &a.g();
  if (!body || n.input_size() < 2)
    return nodeError("Loop needs a body and the inputs M and cond");
  SmallVector<Value> operands;
  SmallVector<Type> argTypes = {RankedTensorType::get({}, builder.getI64Type()),
                                RankedTensorType::get({}, builder.getI1Type())};
  for (int i = 0; i < n.input_size(); ++i) {
    FailureOr<Value> found = lookupInput(n.input(i));
    if (failed(found))
      return failure();
    Value v = *found;
    if (i >= 2) {
      if (!v)
        return nodeError("Loop's loop-carried values cannot be absent");
      argTypes.push_back(v.getType());
    }
    operands.push_back(v ? v : noValue());
  }
  int64_t numValues = n.input_size() - 2;
  Location loc = nodeLoc();
  OperationState state(loc, "kiln_graph.Loop");
  state.addOperands(operands);
  llvm::SmallVector<Value> yields;
  if (failed(importSubgraph(*body, *state.addRegion(), yields, argTypes)))
    return failure();
  if ((int64_t)yields.size() < numValues + 1)
    return nodeError("the body yields fewer values than cond and the "
                     "loop-carried values");
  for (int64_t i = 0; i < numValues; ++i) {
    Type joined =
        graph::joinTensorTypes(yields[1 + i].getType(), argTypes[2 + i]);
    if (!joined)
      return nodeError("loop-carried value #" + std::to_string(i) +
                       ": the body yields " +
                       typeString(yields[1 + i].getType()) + " for " +
                       typeString(argTypes[2 + i]));
    state.addTypes(joined);
  }
  // Scan outputs: a leading axis of the trip count, static when M is a
  // constant and the body's condition cannot end the loop early.
  int64_t trips = ShapedType::kDynamic;
  Region &region = *state.regions.back();
  Value condOut = yields[0];
  bool runsAll =
      condOut == region.front().getArgument(1) || isConstantTrue(condOut);
  bool condInitTrue = n.input(1).empty() || isConstantTrue(operands[1]);
  if (!n.input(0).empty() && runsAll && condInitTrue)
    if (std::optional<int64_t> m = constantInt(operands[0]))
      trips = std::max<int64_t>(*m, 0);
  for (size_t k = numValues + 1; k < yields.size(); ++k) {
    auto t = dyn_cast<RankedTensorType>(yields[k].getType());
    if (!t)
      return nodeError("scan output #" + std::to_string(k - numValues - 1) +
                       " must be a ranked tensor");
    SmallVector<int64_t> shape(t.getShape());
    shape.insert(shape.begin(), trips);
    state.addTypes(RankedTensorType::get(shape, t.getElementType()));
  }
  return createAndBind(state, n, "Loop");
}

} // namespace kiln::importer
