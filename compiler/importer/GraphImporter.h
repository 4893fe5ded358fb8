//===- GraphImporter.h - ONNX graph to func.func ----------------*- C++ -*-===//
//
// Internal to the importer. GraphImporter walks one GraphProto, keeps the map
// from ONNX value names to SSA values and emits kiln_graph ops generically by
// name. Node-level pieces live in NodeImporter.cpp, legacy operator forms in
// OpsetUpgrades.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_IMPORTER_GRAPHIMPORTER_H
#define KILN_COMPILER_IMPORTER_GRAPHIMPORTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "compiler/importer/TensorConversion.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace onnx {
class OpSchema;
} // namespace onnx

namespace kiln::importer {

struct ImportOptions;

/// Newest default-domain opset whose schemas the linked libonnx knows.
constexpr int64_t kMaxSchemaOpset = 17;

/// One ONNX node on its way to a kiln_graph op; upgrades rewrite it in place.
struct NodeForm {
  /// kiln_graph op name without the dialect prefix.
  std::string opType;
  /// Positional operands; a null value is an absent optional input.
  llvm::SmallVector<mlir::Value> operands;
  mlir::NamedAttrList attrs;
  /// ONNX attribute type names ("ints", ...) of `attrs`, for messages.
  llvm::StringMap<std::string> onnxAttrTypes;
  /// Results the op gets; only variadic ops (Split) use more than one.
  unsigned numResults = 1;
};

class GraphImporter {
public:
  GraphImporter(mlir::MLIRContext &ctx, std::string fileName, int64_t opset,
                std::string &error, const ImportOptions *options = nullptr);

  /// Fills `module` with `func.func @main` built from `graph`.
  mlir::LogicalResult importGraph(const onnx::GraphProto &graph,
                                  mlir::ModuleOp module);

  //===--- Used by NodeImporter.cpp and OpsetUpgrades.cpp ----------------===//

  mlir::MLIRContext &getContext() { return ctx; }
  mlir::OpBuilder &getBuilder() { return builder; }
  int64_t getOpset() const { return opset; }
  const onnx::NodeProto &currentNode() const { return *node; }

  /// Records "<file>: node '<name>' (<op>, opset N): <msg>" and fails.
  mlir::LogicalResult nodeError(const llvm::Twine &msg);
  /// Records "<file>: <msg>" and fails.
  mlir::LogicalResult modelError(const llvm::Twine &msg);

  /// Creates `kiln_graph.<form.opType>`, pads absent operands with NoValue,
  /// checks every attribute reads back, infers result types and verifies.
  mlir::FailureOr<mlir::Operation *> emitOp(NodeForm &form);

  /// Builds a kiln_graph.Constant holding `values` as tensor<Nxi64>.
  mlir::FailureOr<mlir::Value> constantI64(llvm::ArrayRef<int64_t> values);
  /// Builds a rank-0 constant of `value` with the element type of `like`.
  mlir::FailureOr<mlir::Value> scalarLike(double value, mlir::Value like);
  /// Builds a kiln_graph.Constant from `value`.
  mlir::FailureOr<mlir::Value> constant(mlir::ElementsAttr value);

  /// Whether a node or the graph outputs read ONNX value `name`.
  bool isUsed(llvm::StringRef name) const { return usedNames.contains(name); }

private:
  mlir::LogicalResult importInitializers(const onnx::GraphProto &graph);
  /// Applies `--input-shape` to graph input `name` of type `info`.
  mlir::LogicalResult applyInputShape(llvm::StringRef name,
                                      ValueTypeInfo &info);
  mlir::LogicalResult importNode(const onnx::NodeProto &node);
  /// libonnx schema checks (input/output counts, attribute names and types)
  /// for opsets libonnx knows.
  mlir::LogicalResult checkSchema(const onnx::NodeProto &node);
  mlir::LogicalResult convertAttributes(const onnx::NodeProto &node,
                                        NodeForm &form);
  mlir::LogicalResult importConstantNode(const onnx::NodeProto &node);
  /// If with its branches as regions (ControlFlowImporter.cpp).
  mlir::LogicalResult importIfNode(const onnx::NodeProto &node);
  /// Imports subgraph `g` into a new block of `region`, ending it with a
  /// kiln_graph.Yield of the graph's outputs (returned in `outs`); the
  /// block takes one argument of each of `inputTypes` for g's inputs.
  mlir::LogicalResult
  importSubgraph(const onnx::GraphProto &g, mlir::Region &region,
                 llvm::SmallVectorImpl<mlir::Value> &outs,
                 llvm::ArrayRef<mlir::Type> inputTypes = {});
  /// Scan (opset 9+) with its body as a region whose block takes the
  /// states and one slice of each scan input (ControlFlowImporter.cpp).
  mlir::LogicalResult importScanNode(const onnx::NodeProto &node);
  /// Loop with its body as a region taking the iteration number, the
  /// condition and the loop-carried values (ControlFlowImporter.cpp).
  mlir::LogicalResult importLoopNode(const onnx::NodeProto &node);
  /// Imports `node` as the body of its ONNX function (FunctionExpansion.cpp).
  mlir::LogicalResult importFunctionNode(const onnx::NodeProto &node,
                                         const onnx::OpSchema &schema);
  /// Binds ONNX output names to `results`, refining types with value_info.
  mlir::LogicalResult bindOutputs(const onnx::NodeProto &node,
                                  mlir::ValueRange results);
  mlir::LogicalResult define(llvm::StringRef name, mlir::Value value);
  mlir::Value noValue();
  /// The value of node input `name`: null for an empty (absent) name, an
  /// error naming it when no node, graph input or initializer produces it.
  mlir::FailureOr<mlir::Value> lookupInput(const std::string &name);
  /// Creates the op of `state` (a control-flow op whose types the importer
  /// computed), verifies it and binds the node's outputs to its results.
  mlir::LogicalResult createAndBind(mlir::OperationState &state,
                                    const onnx::NodeProto &node,
                                    llvm::StringRef opName);
  mlir::Location nodeLoc();

  mlir::MLIRContext &ctx;
  mlir::OpBuilder builder;
  std::string fileName;
  int64_t opset;
  std::string &error;
  const ImportOptions *options;

  const onnx::NodeProto *node = nullptr;
  int nodeIndex = -1;
  mlir::Block *body = nullptr;
  mlir::Value noneValue;
  llvm::StringMap<mlir::Value> values;
  /// Every name some node defines, to tell "undefined" from "out of order".
  llvm::StringSet<> producedNames;
  llvm::StringSet<> usedNames;
  /// value_info and graph output types by name, for result refinement.
  llvm::StringMap<const onnx::TypeProto *> declaredTypes;
  /// Function bodies expanded so far, to give each its own value names.
  int numExpansions = 0;
  /// Message of the last error diagnostic MLIR emitted.
  std::string lastDiagnostic;
};

/// The libonnx schema of `opType` at `opset` when it defines the op as a
/// function (a fixed or a context-dependent body), else null.
const onnx::OpSchema *findFunctionSchema(llvm::StringRef opType, int64_t opset);
/// Ops without an ONNX function body that kiln gives one (QuantizedOps.cpp):
/// MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.
bool hasKilnBody(llvm::StringRef opType);
/// Builds that body for `node` with input `types`; false for other ops.
bool buildKilnBody(const onnx::NodeProto &node,
                   const std::vector<onnx::TypeProto> &types,
                   onnx::FunctionProto &body);

/// Rewrites older-opset and legacy forms of `form` into the newest form the
/// dialect models. When an upgrade emits the whole node itself (Softmax
/// before opset 13), it fills `results` and the caller binds those.
mlir::LogicalResult upgradeNode(GraphImporter &importer, NodeForm &form,
                                llvm::SmallVectorImpl<mlir::Value> &results);

/// `name` made printable and short, for one-line messages; `quoted` adds
/// single quotes.
std::string escaped(llvm::StringRef name);
std::string quoted(llvm::StringRef name);
/// The textual form of `type`, e.g. "tensor<2x?xf32>".
std::string typeString(mlir::Type type);

/// Name of an AttributeProto type code, e.g. "ints".
std::string onnxAttrTypeName(int type);

} // namespace kiln::importer

#endif // KILN_COMPILER_IMPORTER_GRAPHIMPORTER_H
