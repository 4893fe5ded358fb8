//===- FunctionExpansion.cpp - ONNX function ops as their bodies ----------===//
//
// ONNX defines some operators as functions of other operators
// (NegativeLogLikelihoodLoss, Range, HardSwish, CastLike, ...), in the libonnx
// schemas as a fixed body or one built from the node's input types. A node
// whose op kiln_graph does not model is imported as that body, with the
// node's inputs, outputs and attributes substituted, so it compiles whenever
// the body's ops do. Bodies may use other function ops; those expand too.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/GraphImporter.h"
#include "compiler/importer/OnnxImporter.h"
#include "dialects/graph/ElementTypes.h"

#include "llvm/ADT/StringSet.h"

#include <onnx/defs/schema.h>

using namespace mlir;

namespace kiln::importer {
namespace {

/// The ONNX TypeProto of a tensor type, for context-dependent bodies.
bool toTypeProto(Type type, onnx::TypeProto &out) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return false;
  int64_t code = graph::getOnnxCodeForElementType(tensor.getElementType());
  if (!code)
    return false;
  onnx::TypeProto_Tensor *t = out.mutable_tensor_type();
  t->set_elem_type(int32_t(code));
  if (tensor.hasRank()) {
    onnx::TensorShapeProto *shape = t->mutable_shape();
    for (int64_t d : tensor.getShape()) {
      onnx::TensorShapeProto_Dimension *dim = shape->add_dim();
      if (!ShapedType::isDynamic(d))
        dim->set_dim_value(d);
    }
  }
  return true;
}

/// Builds `schema`'s body for `node` whose inputs have `types`. libonnx's
/// builders may throw on forms they do not handle; that is "no body" here.
bool buildBody(const onnx::OpSchema &schema, const onnx::NodeProto &node,
               const std::vector<onnx::TypeProto> &types,
               onnx::FunctionProto &body) {
  if (buildKilnBody(node, types, body))
    return true;
  try {
    if (schema.HasFunction()) {
      body = *schema.GetFunction();
      return true;
    }
    onnx::FunctionBodyBuildContextImpl ctx(node, types);
    return schema.BuildContextDependentFunction(ctx, body);
  } catch (...) {
    return false;
  }
}

/// The default-domain opset a function body is written in.
int64_t bodyOpset(const onnx::FunctionProto &body, int64_t fallback) {
  for (const onnx::OperatorSetIdProto &id : body.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      return id.version();
  return fallback;
}
} // namespace

const onnx::OpSchema *findFunctionSchema(llvm::StringRef opType,
                                         int64_t opset) {
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      opType.str(), int(std::min(opset, kMaxSchemaOpset)), "");
  if (!schema ||
      !(schema->HasFunction() || schema->HasContextDependentFunction() ||
        hasKilnBody(opType)))
    return nullptr;
  return schema;
}

LogicalResult GraphImporter::importFunctionNode(const onnx::NodeProto &n,
                                                const onnx::OpSchema &schema) {
  std::vector<onnx::TypeProto> types;
  for (const std::string &name : n.input()) {
    onnx::TypeProto t;
    if (!name.empty()) {
      FailureOr<Value> found = lookupInput(name);
      if (failed(found))
        return failure();
      Value v = *found;
      if (!toTypeProto(v.getType(), t))
        return nodeError("input " + quoted(name) + " has type " +
                         typeString(v.getType()) +
                         ", which the op's ONNX function cannot take");
    }
    types.push_back(std::move(t));
  }
  onnx::FunctionProto body;
  if (!buildBody(schema, n, types, body))
    return nodeError("unsupported op " + quoted(n.op_type()) +
                     ": libonnx has no function body for this form");

  // Function inputs and outputs are the node's; names internal to the body
  // get a prefix no other expansion shares.
  std::string prefix = "kiln.fn" + std::to_string(numExpansions++) + "/";
  llvm::StringMap<std::string> rename;
  for (int i = 0, e = body.input_size(); i < e; ++i)
    rename[body.input(i)] = i < n.input_size() ? n.input(i) : "";
  for (int i = 0, e = body.output_size(); i < e; ++i)
    rename[body.output(i)] = i < n.output_size() && !n.output(i).empty()
                                 ? n.output(i)
                                 : prefix + body.output(i);
  auto mapName = [&](const std::string &name) -> std::string {
    if (name.empty())
      return name;
    auto it = rename.find(name);
    return it != rename.end() ? it->second : prefix + name;
  };

  std::vector<onnx::NodeProto> nodes;
  for (const onnx::NodeProto &src : body.node()) {
    onnx::NodeProto dst = src;
    dst.set_name((n.name().empty() ? n.op_type() : n.name()) + "/" +
                 (src.name().empty() ? src.op_type() : src.name()));
    for (int i = 0, e = dst.input_size(); i < e; ++i)
      dst.set_input(i, mapName(src.input(i)));
    for (int i = 0, e = dst.output_size(); i < e; ++i)
      dst.set_output(i, mapName(src.output(i)));
    // Attributes that refer to the function's own take the node's value,
    // else the schema default, else they are left out.
    dst.clear_attribute();
    for (const onnx::AttributeProto &a : src.attribute()) {
      if (a.ref_attr_name().empty()) {
        *dst.add_attribute() = a;
        continue;
      }
      const onnx::AttributeProto *value = nullptr;
      for (const onnx::AttributeProto &given : n.attribute())
        if (given.name() == a.ref_attr_name())
          value = &given;
      auto declared = schema.attributes().find(a.ref_attr_name());
      if (!value && declared != schema.attributes().end() &&
          declared->second.default_value.type() !=
              onnx::AttributeProto_AttributeType_UNDEFINED)
        value = &declared->second.default_value;
      if (!value)
        continue;
      onnx::AttributeProto *copy = dst.add_attribute();
      *copy = *value;
      copy->set_name(a.name());
    }
    for (const std::string &name : dst.input())
      usedNames.insert(name);
    for (const std::string &name : dst.output())
      if (!name.empty())
        producedNames.insert(name);
    nodes.push_back(std::move(dst));
  }

  const onnx::NodeProto *outerNode = node;
  int64_t outerOpset = opset;
  opset = bodyOpset(body, opset);
  LogicalResult result = success();
  for (const onnx::NodeProto &inner : nodes)
    if (failed(result = importNode(inner)))
      break;
  opset = outerOpset;
  node = outerNode;
  if (failed(result))
    return failure();
  // Outputs the body does not write (an optional one it leaves out) are
  // errors only when read.
  for (const std::string &name : n.output())
    if (!name.empty() && !values.contains(name) && isUsed(name))
      return nodeError("output " + quoted(name) +
                       " is not computed by the op's ONNX function");
  return success();
}

std::vector<std::string>
getFunctionExpandedOpTypes(llvm::ArrayRef<std::string> supported) {
  llvm::StringSet<> known;
  for (const std::string &op : supported)
    known.insert(op);
  // Bodies built for float inputs and default attributes; an op whose body
  // depends on types (CastLike) is listed when that form's ops are known.
  std::vector<std::pair<std::string, std::set<std::string>>> candidates;
  for (const onnx::OpSchema &latest :
       onnx::OpSchemaRegistry::get_all_schemas()) {
    if (!latest.domain().empty() || known.contains(latest.Name()))
      continue;
    const onnx::OpSchema *schema =
        findFunctionSchema(latest.Name(), kMaxSchemaOpset);
    if (!schema || schema->Deprecated())
      continue;
    onnx::NodeProto probe;
    probe.set_op_type(schema->Name());
    std::vector<onnx::TypeProto> types;
    for (int i = 0; i < schema->min_input(); ++i) {
      onnx::TypeProto t;
      t.mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
      types.push_back(t);
      probe.add_input("x" + std::to_string(i));
    }
    for (int i = 0; i < schema->min_output(); ++i)
      probe.add_output("y" + std::to_string(i));
    onnx::FunctionProto body;
    if (!buildBody(*schema, probe, types, body))
      continue;
    std::set<std::string> ops;
    for (const onnx::NodeProto &b : body.node())
      ops.insert(b.op_type());
    candidates.emplace_back(schema->Name(), std::move(ops));
  }
  std::vector<std::string> out;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[name, ops] : candidates) {
      if (known.contains(name) || !llvm::all_of(ops, [&](const std::string &o) {
            return known.contains(o);
          }))
        continue;
      known.insert(name);
      out.push_back(name);
      changed = true;
    }
  }
  llvm::sort(out);
  return out;
}

} // namespace kiln::importer
