//===- NodeImporter.cpp - one ONNX node to kiln_graph ops -----------------===//
//
// Validates a node (domain, schema, inputs, attributes), converts its
// attributes, lets OpsetUpgrades.cpp rewrite legacy forms and creates the
// op generically by name, with result types from its InferTypeOpInterface.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/GraphImporter.h"
#include "compiler/importer/OnnxImporter.h"
#include "compiler/importer/TensorConversion.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <onnx/defs/schema.h>

using namespace mlir;

namespace kiln::importer {
namespace {
using AttrType = onnx::AttributeProto_AttributeType;

/// The attribute's type; old producers sometimes leave `type` unset, so
/// fall back to the field that holds a value.
int attributeType(const onnx::AttributeProto &a) {
  if (a.type() != onnx::AttributeProto_AttributeType_UNDEFINED)
    return a.type();
  if (a.has_f())
    return onnx::AttributeProto_AttributeType_FLOAT;
  if (a.has_i())
    return onnx::AttributeProto_AttributeType_INT;
  if (a.has_s())
    return onnx::AttributeProto_AttributeType_STRING;
  if (a.has_t())
    return onnx::AttributeProto_AttributeType_TENSOR;
  if (a.has_g())
    return onnx::AttributeProto_AttributeType_GRAPH;
  if (a.floats_size())
    return onnx::AttributeProto_AttributeType_FLOATS;
  if (a.ints_size())
    return onnx::AttributeProto_AttributeType_INTS;
  if (a.strings_size())
    return onnx::AttributeProto_AttributeType_STRINGS;
  return onnx::AttributeProto_AttributeType_UNDEFINED;
}

/// Operand count of ops with a fixed count; nullopt for variadic ones.
std::optional<unsigned> fixedOperandCount(RegisteredOperationName name) {
  if (name.hasTrait<OpTrait::ZeroOperands>())
    return 0;
  if (name.hasTrait<OpTrait::OneOperand>())
    return 1;
  if (name.hasTrait<OpTrait::NOperands<2>::Impl>())
    return 2;
  if (name.hasTrait<OpTrait::NOperands<3>::Impl>())
    return 3;
  if (name.hasTrait<OpTrait::NOperands<4>::Impl>())
    return 4;
  if (name.hasTrait<OpTrait::NOperands<5>::Impl>())
    return 5;
  if (name.hasTrait<OpTrait::NOperands<6>::Impl>())
    return 6;
  if (name.hasTrait<OpTrait::NOperands<7>::Impl>())
    return 7;
  if (name.hasTrait<OpTrait::NOperands<8>::Impl>())
    return 8;
  return std::nullopt;
}

/// Result count of ops with a fixed count; nullopt for variadic ones.
std::optional<unsigned> fixedResultCount(RegisteredOperationName name) {
  if (name.hasTrait<OpTrait::ZeroResults>())
    return 0;
  if (name.hasTrait<OpTrait::OneResult>())
    return 1;
  if (name.hasTrait<OpTrait::NResults<2>::Impl>())
    return 2;
  if (name.hasTrait<OpTrait::NResults<3>::Impl>())
    return 3;
  return std::nullopt;
}

/// ONNX ops the importer rewrites into other kiln_graph ops.
bool isRewrittenOp(llvm::StringRef opType) {
  return llvm::is_contained(getRewrittenOpTypes(), opType);
}
} // namespace

std::vector<std::string> getRewrittenOpTypes() {
  return {"Dropout", "Scatter", "Upsample"};
}

std::string onnxAttrTypeName(int type) {
  switch (type) {
  case onnx::AttributeProto_AttributeType_FLOAT:
    return "float";
  case onnx::AttributeProto_AttributeType_INT:
    return "int";
  case onnx::AttributeProto_AttributeType_STRING:
    return "string";
  case onnx::AttributeProto_AttributeType_TENSOR:
    return "tensor";
  case onnx::AttributeProto_AttributeType_GRAPH:
    return "graph";
  case onnx::AttributeProto_AttributeType_SPARSE_TENSOR:
    return "sparse tensor";
  case onnx::AttributeProto_AttributeType_TYPE_PROTO:
    return "type";
  case onnx::AttributeProto_AttributeType_FLOATS:
    return "floats";
  case onnx::AttributeProto_AttributeType_INTS:
    return "ints";
  case onnx::AttributeProto_AttributeType_STRINGS:
    return "strings";
  case onnx::AttributeProto_AttributeType_TENSORS:
    return "tensors";
  case onnx::AttributeProto_AttributeType_GRAPHS:
    return "graphs";
  case onnx::AttributeProto_AttributeType_SPARSE_TENSORS:
    return "sparse tensors";
  case onnx::AttributeProto_AttributeType_TYPE_PROTOS:
    return "types";
  default:
    return "undefined";
  }
}

LogicalResult GraphImporter::checkSchema(const onnx::NodeProto &n) {
  if (opset > kMaxSchemaOpset)
    return success();
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(n.op_type(), int(opset), "");
  if (!schema)
    return nodeError("op " + quoted(n.op_type()) + " does not exist in opset " +
                     std::to_string(opset));
  auto range = [](int lo, int hi) {
    if (lo == hi)
      return std::to_string(lo);
    if (hi == std::numeric_limits<int>::max())
      return "at least " + std::to_string(lo);
    return std::to_string(lo) + " to " + std::to_string(hi);
  };
  if (n.input_size() < schema->min_input() ||
      n.input_size() > schema->max_input())
    return nodeError("expects " +
                     range(schema->min_input(), schema->max_input()) +
                     " inputs, got " + std::to_string(n.input_size()));
  if (n.output_size() < schema->min_output() ||
      n.output_size() > schema->max_output())
    return nodeError("expects " +
                     range(schema->min_output(), schema->max_output()) +
                     " outputs, got " + std::to_string(n.output_size()));
  const auto &declared = schema->attributes();
  for (const onnx::AttributeProto &a : n.attribute()) {
    auto it = declared.find(a.name());
    if (it == declared.end())
      return nodeError("unknown attribute " + quoted(a.name()));
    int have = attributeType(a);
    if (have != it->second.type)
      return nodeError("attribute " + quoted(a.name()) + " must be " +
                       onnxAttrTypeName(it->second.type) + ", got " +
                       onnxAttrTypeName(have));
  }
  for (const auto &[name, attr] : declared) {
    if (!attr.required)
      continue;
    if (llvm::none_of(n.attribute(), [&, &name = name](const auto &a) {
          return a.name() == name;
        }))
      return nodeError("missing required attribute " + quoted(name));
  }
  return success();
}

LogicalResult GraphImporter::convertAttributes(const onnx::NodeProto &n,
                                               NodeForm &form) {
  for (const onnx::AttributeProto &a : n.attribute()) {
    if (a.name().empty())
      return nodeError("attribute without a name");
    if (form.onnxAttrTypes.contains(a.name()))
      return nodeError("attribute " + quoted(a.name()) + " is set twice");
    if (!a.ref_attr_name().empty())
      return nodeError("attribute " + quoted(a.name()) +
                       " refers to a function attribute (unsupported)");
    int type = attributeType(a);
    Attribute attr;
    switch (type) {
    case onnx::AttributeProto_AttributeType_FLOAT:
      attr = builder.getF32FloatAttr(a.f());
      break;
    case onnx::AttributeProto_AttributeType_INT:
      attr = builder.getI64IntegerAttr(a.i());
      break;
    case onnx::AttributeProto_AttributeType_STRING:
      attr = builder.getStringAttr(a.s());
      break;
    case onnx::AttributeProto_AttributeType_FLOATS:
      attr = builder.getDenseF32ArrayAttr(
          llvm::SmallVector<float>(a.floats().begin(), a.floats().end()));
      break;
    case onnx::AttributeProto_AttributeType_INTS:
      attr = builder.getDenseI64ArrayAttr(
          llvm::SmallVector<int64_t>(a.ints().begin(), a.ints().end()));
      break;
    case onnx::AttributeProto_AttributeType_STRINGS: {
      llvm::SmallVector<Attribute> strs;
      for (const std::string &s : a.strings())
        strs.push_back(builder.getStringAttr(s));
      attr = builder.getArrayAttr(strs);
      break;
    }
    case onnx::AttributeProto_AttributeType_TENSOR: {
      std::string why;
      std::string blob =
          (n.output_size() ? n.output(0) : n.op_type()) + "_" + a.name();
      FailureOr<ElementsAttr> t = convertTensorProto(ctx, a.t(), blob, why);
      if (failed(t))
        return nodeError("attribute " + quoted(a.name()) + ": " + why);
      attr = *t;
      break;
    }
    default:
      return nodeError("attribute " + quoted(a.name()) + " has type " +
                       onnxAttrTypeName(type) + ", which is not supported");
    }
    form.attrs.append(a.name(), attr);
    form.onnxAttrTypes[a.name()] = onnxAttrTypeName(type);
  }
  return success();
}

LogicalResult GraphImporter::importConstantNode(const onnx::NodeProto &n) {
  if (n.output_size() != 1 || n.input_size() != 0 || n.attribute_size() != 1)
    return nodeError("Constant needs no inputs, one output and exactly one "
                     "attribute");
  const onnx::AttributeProto &a = n.attribute(0);
  int type = attributeType(a);
  Attribute value;
  Type f32 = builder.getF32Type(), i64 = builder.getI64Type();
  auto vec = [](int64_t n) { return llvm::SmallVector<int64_t>{n}; };
  if (a.name() == "value" &&
      type == onnx::AttributeProto_AttributeType_TENSOR) {
    std::string why;
    FailureOr<ElementsAttr> t =
        convertTensorProto(ctx, a.t(), n.output(0), why);
    if (failed(t))
      return nodeError("attribute 'value': " + why);
    value = *t;
  } else if (a.name() == "value_float" &&
             type == onnx::AttributeProto_AttributeType_FLOAT) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, f32), a.f());
  } else if (a.name() == "value_int" &&
             type == onnx::AttributeProto_AttributeType_INT) {
    value =
        DenseElementsAttr::get(RankedTensorType::get({}, i64), int64_t(a.i()));
  } else if (a.name() == "value_floats" &&
             type == onnx::AttributeProto_AttributeType_FLOATS) {
    llvm::SmallVector<float> v(a.floats().begin(), a.floats().end());
    value = DenseElementsAttr::get(RankedTensorType::get(vec(v.size()), f32),
                                   llvm::ArrayRef(v));
  } else if (a.name() == "value_ints" &&
             type == onnx::AttributeProto_AttributeType_INTS) {
    llvm::SmallVector<int64_t> v(a.ints().begin(), a.ints().end());
    value = DenseElementsAttr::get(RankedTensorType::get(vec(v.size()), i64),
                                   llvm::ArrayRef(v));
  } else {
    return nodeError("Constant attribute " + quoted(a.name()) + " of type " +
                     onnxAttrTypeName(type) + " is not supported");
  }
  FailureOr<Value> v = constant(cast<ElementsAttr>(value));
  if (failed(v))
    return failure();
  return bindOutputs(n, *v);
}

FailureOr<Value> GraphImporter::lookupInput(const std::string &name) {
  if (name.empty())
    return Value();
  if (Value v = values.lookup(name))
    return v;
  if (producedNames.contains(name))
    return nodeError("input " + quoted(name) +
                     " is used before the node that produces it (nodes "
                     "must be topologically sorted)");
  return nodeError("input " + quoted(name) +
                   " is not produced by any node, graph input or "
                   "initializer");
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &n) {
  node = &n;
  const std::string &domain = n.domain();
  if (!domain.empty() && domain != "ai.onnx")
    return modelError((n.name().empty() ? "node #" + std::to_string(nodeIndex)
                                        : "node " + quoted(n.name())) +
                      ": unsupported op " + quoted(n.op_type()) + " (domain " +
                      quoted(domain) + ")");
  std::string opName = "kiln_graph." + n.op_type();
  bool modelled = isRewrittenOp(n.op_type()) ||
                  (n.op_type() != "NoValue" &&
                   RegisteredOperationName::lookup(opName, &ctx));
  if (!modelled)
    if (const onnx::OpSchema *schema = findFunctionSchema(n.op_type(), opset))
      return succeeded(checkSchema(n)) ? importFunctionNode(n, *schema)
                                       : failure();
  if (!modelled)
    return modelError((n.name().empty() ? "node #" + std::to_string(nodeIndex)
                                        : "node " + quoted(n.name())) +
                      ": unsupported op " + quoted(n.op_type()) +
                      " (domain '', opset " + std::to_string(opset) + ")");
  if (failed(checkSchema(n)))
    return failure();
  if (n.op_type() == "Constant")
    return importConstantNode(n);
  if (n.op_type() == "If")
    return importIfNode(n);
  if (n.op_type() == "Scan")
    return importScanNode(n);
  if (n.op_type() == "Loop")
    return importLoopNode(n);

  NodeForm form;
  form.opType = n.op_type();
  form.numResults = n.output_size();
  // LayerNormalization's statistics outputs are computed only when used.
  if (form.opType == "LayerNormalization")
    while (form.numResults > 1 && (n.output(form.numResults - 1).empty() ||
                                   !isUsed(n.output(form.numResults - 1))))
      --form.numResults;
  for (const std::string &name : n.input()) {
    FailureOr<Value> v = lookupInput(name);
    if (failed(v))
      return failure();
    form.operands.push_back(*v);
  }
  if (failed(convertAttributes(n, form)))
    return failure();

  llvm::SmallVector<Value> results;
  if (failed(upgradeNode(*this, form, results)))
    return failure();
  if (results.empty()) {
    FailureOr<Operation *> op = emitOp(form);
    if (failed(op))
      return failure();
    results.assign((*op)->result_begin(), (*op)->result_end());
  }
  return bindOutputs(n, results);
}

FailureOr<Operation *> GraphImporter::emitOp(NodeForm &form) {
  std::string fullName = "kiln_graph." + form.opType;
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(fullName, &ctx);
  if (!name)
    return nodeError("unsupported op " + quoted(form.opType));
  Location loc = nodeLoc();

  // Operands: positional as in the newest schema, absent ones as NoValue.
  std::optional<unsigned> numOperands = fixedOperandCount(*name);
  if (numOperands) {
    if (form.operands.size() > *numOperands)
      return nodeError("has " + std::to_string(form.operands.size()) +
                       " inputs, but " + fullName + " takes at most " +
                       std::to_string(*numOperands));
    form.operands.resize(*numOperands);
  }
  llvm::SmallVector<Value> operands;
  for (auto [i, v] : llvm::enumerate(form.operands)) {
    if (!v && !numOperands)
      return nodeError("input #" + std::to_string(i) + " is empty, but " +
                       fullName + " needs all of its inputs");
    operands.push_back(v ? v : noValue());
  }

  // Attributes: check each against the op's declaration first, so a wrong
  // type is reported by name instead of being dropped by the properties.
  llvm::ArrayRef<StringAttr> declared = name->getAttributeNames();
  auto emitDiag = [&] { return mlir::emitError(loc); };
  NamedAttrList attrs;
  for (NamedAttribute a : form.attrs) {
    std::string onnxType = form.onnxAttrTypes.lookup(a.getName().getValue());
    std::string what = "bad attribute " + quoted(a.getName().getValue()) +
                       (onnxType.empty() ? "" : " (" + onnxType + ")");
    if (!llvm::is_contained(declared, a.getName()))
      return nodeError(what + ": " + fullName + " has no such attribute");
    NamedAttrList single;
    single.append(a);
    lastDiagnostic.clear();
    if (failed(name->verifyInherentAttrs(single, emitDiag))) {
      // ONNX ints are signed; ODS attributes declared SI64Attr want that
      // signedness in the type.
      auto intAttr = dyn_cast<IntegerAttr>(a.getValue());
      if (!intAttr || !intAttr.getType().isSignlessInteger(64))
        return nodeError(what + ": " + lastDiagnostic);
      a = NamedAttribute(
          a.getName(),
          IntegerAttr::get(IntegerType::get(&ctx, 64, IntegerType::Signed),
                           intAttr.getValue()));
      NamedAttrList retry;
      retry.append(a);
      if (failed(name->verifyInherentAttrs(retry, emitDiag)))
        return nodeError(what + ": " + lastDiagnostic);
    }
    attrs.append(a);
  }

  unsigned numResults = fixedResultCount(*name).value_or(form.numResults);
  OperationState state(loc, *name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  // Placeholders until inference below computes the real types.
  state.addTypes(llvm::SmallVector<Type>(numResults, NoneType::get(&ctx)));
  Operation *op = builder.create(state);

  for (NamedAttribute a : attrs) {
    std::optional<Attribute> got = op->getInherentAttr(a.getName());
    if (!got || *got != a.getValue())
      return nodeError("bad attribute " + quoted(a.getName().getValue()) +
                       ": " + fullName + " does not accept it as given");
  }

  // Check attributes and operands against the op's ODS constraints before
  // inference, which may assume them (a required attribute, a tensor
  // operand). Only the placeholder results may fail here; ODS checks
  // results last, so any other message is a real problem.
  lastDiagnostic.clear();
  if (failed(name->verifyInvariants(op)) &&
      lastDiagnostic.find("result #") == std::string::npos)
    return nodeError("invalid " + fullName + ": " + lastDiagnostic);

  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer)
    return nodeError(fullName + " does not infer its result types");
  llvm::SmallVector<Type> types;
  lastDiagnostic.clear();
  if (failed(infer.inferReturnTypes(
          &ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
          op->getPropertiesStorage(), op->getRegions(), types)))
    return nodeError("shape inference failed: " +
                     (lastDiagnostic.empty() ? std::string("invalid operands")
                                             : lastDiagnostic));
  if (types.size() != op->getNumResults())
    return nodeError("has " + std::to_string(op->getNumResults()) +
                     " outputs, but shape inference produced " +
                     std::to_string(types.size()));
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);

  lastDiagnostic.clear();
  if (failed(mlir::verify(op)))
    return nodeError("invalid " + fullName + ": " + lastDiagnostic);
  return op;
}

} // namespace kiln::importer
