//===- ControlFlowImporter.cpp - ONNX If to kiln_graph.If -----------------===//
//
// An If's then_branch and else_branch subgraphs become the op's two regions.
// Their nodes import like the main graph's, into the region's block, reading
// outer values by name; names a subgraph defines are visible only inside it.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/GraphImporter.h"
#include "compiler/importer/TensorConversion.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace kiln::importer {

LogicalResult
GraphImporter::importSubgraph(const onnx::GraphProto &g, Region &region,
                              llvm::SmallVectorImpl<Value> &outs) {
  if (g.input_size() != 0)
    return nodeError("subgraph " + quoted(g.name()) +
                     " has inputs; If branches take none");
  if (g.sparse_initializer_size())
    return nodeError("sparse initializers are not supported");
  Block *block = new Block();
  region.push_back(block);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);

  // Names this subgraph defines, to hide again afterwards.
  llvm::SmallVector<std::string> local;
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
  return success();
}

LogicalResult GraphImporter::importIfNode(const onnx::NodeProto &n) {
  if (n.input_size() != 1 || n.input(0).empty())
    return nodeError("If takes one input (cond)");
  Value cond = values.lookup(n.input(0));
  if (!cond)
    return nodeError("input " + quoted(n.input(0)) +
                     " is not produced by any node, graph input or "
                     "initializer");
  const onnx::GraphProto *branches[2] = {nullptr, nullptr};
  for (const onnx::AttributeProto &a : n.attribute()) {
    if (a.name() == "then_branch" && a.has_g())
      branches[0] = &a.g();
    else if (a.name() == "else_branch" && a.has_g())
      branches[1] = &a.g();
  }
  if (!branches[0] || !branches[1])
    return nodeError("If needs then_branch and else_branch graphs");

  Location loc = nodeLoc();
  OperationState state(loc, "kiln_graph.If");
  state.addOperands(cond);
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
  lastDiagnostic.clear();
  Operation *op = builder.create(state);
  if (failed(mlir::verify(op)))
    return nodeError("invalid If: " + lastDiagnostic);
  return bindOutputs(n, op->getResults());
}

} // namespace kiln::importer
