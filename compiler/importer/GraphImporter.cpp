//===- GraphImporter.cpp - ONNX graph to func.func ------------------------===//
//
// Graph-level import: function signature from graph inputs and outputs,
// initializers as constants, the name -> value map and result refinement
// from value_info.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/GraphImporter.h"
#include "compiler/importer/OnnxImporter.h"
#include "compiler/importer/TensorConversion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln::importer {

std::string escaped(llvm::StringRef name) {
  // Names come from the file; keep messages on one printable line.
  std::string out;
  for (char c : name.take_front(120))
    if (llvm::isPrint(c))
      out += c;
    else
      out += "\\x" + llvm::utohexstr(uint8_t(c), /*LowerCase=*/true, 2);
  if (name.size() > 120)
    out += "...";
  return out;
}

std::string quoted(llvm::StringRef name) { return "'" + escaped(name) + "'"; }

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

GraphImporter::GraphImporter(MLIRContext &ctx, std::string fileName,
                             int64_t opset, std::string &error,
                             const ImportOptions *options)
    : ctx(ctx), builder(&ctx), fileName(std::move(fileName)), opset(opset),
      error(error), options(options) {}

LogicalResult GraphImporter::applyInputShape(llvm::StringRef name,
                                             ValueTypeInfo &info) {
  auto it = options->inputShapes.find(name.str());
  if (it == options->inputShapes.end())
    return success();
  const llvm::SmallVector<int64_t> &dims = it->second;
  auto what = [&] { return "--input-shape for " + quoted(name) + ": "; };
  auto ranked = dyn_cast<RankedTensorType>(info.type);
  if (ranked && ranked.getRank() != int64_t(dims.size()))
    return modelError(what() + "the model's input has rank " +
                      std::to_string(ranked.getRank()) + ", the flag gives " +
                      std::to_string(dims.size()) + " dims");
  for (size_t i = 0; ranked && i < dims.size(); ++i) {
    int64_t have = ranked.getDimSize(i);
    if (!ShapedType::isDynamic(have) && have != dims[i])
      return modelError(what() + "dim " + std::to_string(i) + " is " +
                        std::to_string(have) +
                        " in the model and cannot be changed");
  }
  info.type = RankedTensorType::get(dims, info.type.getElementType());
  info.dimParams.resize(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    if (!ShapedType::isDynamic(dims[i]))
      info.dimParams[i].clear();
  return success();
}

LogicalResult GraphImporter::modelError(const llvm::Twine &msg) {
  error = fileName + ": " + msg.str();
  return failure();
}

LogicalResult GraphImporter::nodeError(const llvm::Twine &msg) {
  if (!node)
    return modelError(msg);
  std::string where = node->name().empty()
                          ? "node #" + std::to_string(nodeIndex)
                          : "node " + quoted(node->name());
  return modelError(where + " (" + escaped(node->op_type()) + ", opset " +
                    std::to_string(opset) + "): " + msg);
}

Location GraphImporter::nodeLoc() {
  Location file = FileLineColLoc::get(&ctx, fileName, 0, 0);
  if (!node)
    return file;
  std::string name = node->name();
  if (name.empty())
    name = node->output_size() ? node->output(0) : node->op_type();
  return NameLoc::get(StringAttr::get(&ctx, name), file);
}

Value GraphImporter::noValue() {
  if (noneValue)
    return noneValue;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  OperationState state(FileLineColLoc::get(&ctx, fileName, 0, 0),
                       "kiln_graph.NoValue");
  state.addTypes(NoneType::get(&ctx));
  noneValue = builder.create(state)->getResult(0);
  return noneValue;
}

LogicalResult GraphImporter::define(llvm::StringRef name, Value value) {
  if (!values.try_emplace(name, value).second)
    return nodeError("value " + quoted(name) + " is defined more than once");
  return success();
}

FailureOr<Value> GraphImporter::constant(ElementsAttr value) {
  NodeForm form;
  form.opType = "Constant";
  form.attrs.append("value", value);
  form.onnxAttrTypes["value"] = "tensor";
  FailureOr<Operation *> op = emitOp(form);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

FailureOr<Value> GraphImporter::constantI64(llvm::ArrayRef<int64_t> values) {
  auto type =
      RankedTensorType::get({int64_t(values.size())}, builder.getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

FailureOr<Value> GraphImporter::scalarLike(double value, Value like) {
  Type elt = getElementTypeOrSelf(like.getType());
  auto type = RankedTensorType::get({}, elt);
  if (auto ft = dyn_cast<FloatType>(elt)) {
    llvm::APFloat v(value);
    bool lost;
    v.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return constant(DenseElementsAttr::get(type, v));
  }
  if (auto it = dyn_cast<IntegerType>(elt)) {
    // Clamp first: converting an out-of-range double to int is undefined.
    double clamped = std::max(-9.2e18, std::min(9.2e18, value));
    llvm::APInt v(it.getWidth(), uint64_t(int64_t(clamped)), /*isSigned=*/true,
                  /*implicitTrunc=*/true);
    return constant(DenseElementsAttr::get(type, v));
  }
  return nodeError("cannot build a constant of element type " +
                   typeString(elt));
}

/// Merges a declared ONNX type into an inferred one: element types must
/// match, and each dim takes whichever side is static; conflicts fail.
static FailureOr<Type> refineType(Type inferred, TensorType declared) {
  auto have = dyn_cast<TensorType>(inferred);
  if (!have || have.getElementType() != declared.getElementType())
    return failure();
  if (!declared.hasRank())
    return inferred;
  if (!have.hasRank())
    return Type(declared);
  if (have.getRank() != declared.getRank())
    return failure();
  llvm::SmallVector<int64_t> dims;
  for (auto [a, b] : llvm::zip(have.getShape(), declared.getShape())) {
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return failure();
    dims.push_back(ShapedType::isDynamic(a) ? b : a);
  }
  return Type(RankedTensorType::get(dims, have.getElementType()));
}

LogicalResult GraphImporter::bindOutputs(const onnx::NodeProto &n,
                                         ValueRange results) {
  for (int i = 0, e = n.output_size(); i < e; ++i) {
    const std::string &name = n.output(i);
    if (name.empty())
      continue;
    if (i >= int(results.size())) {
      // Optional outputs kiln_graph does not model (MaxPool Indices,
      // LayerNormalization Mean, Dropout mask) are fine while unused.
      if (isUsed(name))
        return nodeError("unsupported: output #" + std::to_string(i) + " " +
                         quoted(name) + " is used, but only the first " +
                         std::to_string(results.size()) +
                         " output(s) are supported");
      continue;
    }
    Value v = results[i];
    if (auto it = declaredTypes.find(name); it != declaredTypes.end()) {
      std::string why;
      FailureOr<ValueTypeInfo> declared =
          convertTypeProto(ctx, *it->second, why);
      if (failed(declared))
        return nodeError("declared type of " + quoted(name) + ": " + why);
      FailureOr<Type> merged = refineType(v.getType(), declared->type);
      if (failed(merged))
        return nodeError("shape mismatch: " + quoted(name) +
                         " is declared as " + typeString(declared->type) +
                         " but inferred as " + typeString(v.getType()));
      v.setType(*merged);
    }
    // Shape inference multiplies dims without bounds (ConstantOfShape,
    // Expand, Tile of constant shapes); such a size would wrap later.
    if (auto shaped = dyn_cast<ShapedType>(v.getType());
        shaped && shaped.hasRank() && !hasAddressableSize(shaped.getShape()))
      return nodeError("output " + quoted(name) + " of type " +
                       typeString(shaped) + " has too many elements");
    if (failed(define(name, v)))
      return failure();
  }
  return success();
}

LogicalResult GraphImporter::importInitializers(const onnx::GraphProto &g) {
  for (const onnx::TensorProto &t : g.initializer()) {
    if (t.name().empty())
      return modelError("initializer without a name");
    std::string why;
    FailureOr<ElementsAttr> attr = convertTensorProto(ctx, t, t.name(), why);
    if (failed(attr)) {
      return modelError("initializer " + quoted(t.name()) + ": " + why);
    }
    FailureOr<Value> v = constant(*attr);
    if (failed(v))
      return failure();
    if (values.contains(t.name()))
      return modelError("initializer " + quoted(t.name()) +
                        " is defined more than once");
    values[t.name()] = *v;
  }
  return success();
}

static ArrayAttr dimParamsAttr(Builder &b, llvm::ArrayRef<std::string> ps) {
  llvm::SmallVector<Attribute> attrs;
  for (const std::string &p : ps)
    attrs.push_back(b.getStringAttr(p));
  return b.getArrayAttr(attrs);
}

LogicalResult GraphImporter::importGraph(const onnx::GraphProto &g,
                                         ModuleOp module) {
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      lastDiagnostic = diag.str();
      std::replace(lastDiagnostic.begin(), lastDiagnostic.end(), '\n', ' ');
    }
    return success();
  });

  if (g.sparse_initializer_size())
    return modelError("sparse initializers are not supported");
  if (g.output_size() == 0)
    return modelError("graph has no outputs");
  for (const onnx::NodeProto &n : g.node()) {
    for (const std::string &name : n.output())
      if (!name.empty())
        producedNames.insert(name);
    for (const std::string &name : n.input())
      usedNames.insert(name);
  }
  for (const onnx::ValueInfoProto &vi : g.output())
    usedNames.insert(vi.name());
  for (const onnx::ValueInfoProto &vi : g.value_info())
    if (vi.has_type())
      declaredTypes[vi.name()] = &vi.type();
  for (const onnx::ValueInfoProto &vi : g.output())
    if (vi.has_type())
      declaredTypes[vi.name()] = &vi.type();
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &t : g.initializer())
    initializerNames.insert(t.name());

  // Graph inputs that are also initializers (exporters before IR version 4
  // list every weight as an input) become constants, not arguments: kiln
  // compiles the weights in, so they cannot be overridden at run time.
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<const onnx::ValueInfoProto *> argInfos;
  llvm::SmallVector<ValueTypeInfo> argTypeInfos;
  llvm::StringSet<> inputNames;
  for (const onnx::ValueInfoProto &vi : g.input()) {
    if (vi.name().empty())
      return modelError("graph input without a name");
    if (!inputNames.insert(vi.name()).second)
      return modelError("graph input " + quoted(vi.name()) +
                        " is listed more than once");
    if (initializerNames.contains(vi.name()))
      continue;
    std::string why;
    FailureOr<ValueTypeInfo> info = convertTypeProto(ctx, vi.type(), why);
    if (failed(info))
      return modelError("graph input " + quoted(vi.name()) + ": " + why);
    if (options && failed(applyInputShape(vi.name(), *info)))
      return failure();
    argTypes.push_back(info->type);
    argInfos.push_back(&vi);
    argTypeInfos.push_back(std::move(*info));
  }

  if (options)
    for (const auto &[name, dims] : options->inputShapes)
      if (!inputNames.contains(name) || initializerNames.contains(name)) {
        std::string known;
        for (const onnx::ValueInfoProto *vi : argInfos)
          known += (known.empty() ? "" : ", ") + quoted(vi->name());
        return modelError("--input-shape names " + quoted(name) +
                          ", which is not a graph input (inputs: " + known +
                          ")");
      }

  Location loc = FileLineColLoc::get(&ctx, fileName, 0, 0);
  auto func =
      func::FuncOp::create(loc, "main", FunctionType::get(&ctx, argTypes, {}));
  module.push_back(func);
  func->setAttr("kiln.graph_name", builder.getStringAttr(g.name()));
  body = func.addEntryBlock();
  for (auto [i, vi] : llvm::enumerate(argInfos)) {
    func.setArgAttr(i, "kiln.name", builder.getStringAttr(vi->name()));
    if (argTypeInfos[i].type.hasRank())
      func.setArgAttr(i, "kiln.dim_params",
                      dimParamsAttr(builder, argTypeInfos[i].dimParams));
    values[vi->name()] = body->getArgument(i);
  }
  builder.setInsertionPointToEnd(body);

  if (failed(importInitializers(g)))
    return failure();
  for (const onnx::NodeProto &n : g.node()) {
    ++nodeIndex;
    if (failed(importNode(n)))
      return failure();
  }
  node = nullptr;

  llvm::SmallVector<Value> results;
  llvm::SmallVector<Type> resultTypes;
  for (const onnx::ValueInfoProto &vi : g.output()) {
    Value v = values.lookup(vi.name());
    if (!v)
      return modelError("graph output " + quoted(vi.name()) +
                        " is not produced by any node, input or initializer");
    results.push_back(v);
    resultTypes.push_back(v.getType());
  }
  func::ReturnOp::create(builder, loc, results);
  func.setFunctionType(FunctionType::get(&ctx, argTypes, resultTypes));

  for (auto [i, vi] : llvm::enumerate(g.output())) {
    func.setResultAttr(i, "kiln.name", builder.getStringAttr(vi.name()));
    auto resultType = dyn_cast<TensorType>(resultTypes[i]);
    if (!resultType || !resultType.hasRank())
      continue;
    // dim_params come from the declared type; a value that bypasses every
    // node (an input or initializer returned directly) is checked here.
    llvm::SmallVector<std::string> params(resultType.getRank());
    if (vi.has_type()) {
      std::string why;
      FailureOr<ValueTypeInfo> info = convertTypeProto(ctx, vi.type(), why);
      if (failed(info))
        return modelError("graph output " + quoted(vi.name()) + ": " + why);
      if (failed(refineType(resultType, info->type)))
        return modelError("shape mismatch: graph output " + quoted(vi.name()) +
                          " is declared as " + typeString(info->type) +
                          " but computed as " + typeString(resultType));
      if (info->type.hasRank())
        params = info->dimParams;
    }
    func.setResultAttr(i, "kiln.dim_params", dimParamsAttr(builder, params));
  }
  return success();
}

} // namespace kiln::importer
