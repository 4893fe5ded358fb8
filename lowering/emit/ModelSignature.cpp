//===- ModelSignature.cpp - Graph inputs/outputs as the ABI sees them -----===//

#include "lowering/emit/ModelSignature.h"
#include "dialects/graph/ElementTypes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace kiln {

std::string sanitizeIdentifier(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) ? c : '_');
  if (out.empty() || llvm::isDigit(out[0]))
    out.insert(out.begin(), '_');
  return out;
}

static std::string getName(DictionaryAttr attrs, llvm::StringRef fallback) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("kiln.name"))
      return name.str();
  return fallback.str();
}

static std::string getDimParam(DictionaryAttr attrs, unsigned dim) {
  if (!attrs)
    return "";
  auto params = attrs.getAs<ArrayAttr>("kiln.dim_params");
  if (!params || dim >= params.size())
    return "";
  auto s = dyn_cast<StringAttr>(params[dim]);
  return s ? s.str() : "";
}

llvm::Expected<ModelSignature> extractModelSignature(func::FuncOp entry) {
  ModelSignature sig;
  auto graphName = entry->getAttrOfType<StringAttr>("kiln.graph_name");
  sig.name = sanitizeIdentifier(graphName && !graphName.getValue().empty()
                                    ? graphName.getValue()
                                    : "model");
  llvm::StringMap<int64_t> symbolIds;
  auto symbolFor = [&](const std::string &name) {
    auto [it, inserted] = symbolIds.try_emplace(name, sig.symbols.size());
    if (inserted)
      sig.symbols.push_back(name);
    return -(it->second + 1);
  };
  auto makeTensor = [&](Type type, DictionaryAttr attrs, llvm::StringRef role,
                        unsigned index) -> llvm::Expected<TensorSignature> {
    TensorSignature t;
    t.name = getName(attrs, (role + llvm::Twine(index)).str());
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked)
      return llvm::createStringError(role + " '" + t.name +
                                     "' has unknown rank; not supported");
    t.dtype = graph::getOnnxCodeForElementType(ranked.getElementType());
    if (!t.dtype)
      return llvm::createStringError(role + " '" + t.name +
                                     "' has an unsupported element type");
    for (auto [d, extent] : llvm::enumerate(ranked.getShape()))
      t.dims.push_back(extent);
    return t;
  };

  FunctionType fnType = entry.getFunctionType();
  for (unsigned i = 0; i < fnType.getNumInputs(); ++i) {
    auto t =
        makeTensor(fnType.getInput(i), entry.getArgAttrDict(i), "input", i);
    if (!t)
      return t.takeError();
    for (auto [d, extent] : llvm::enumerate(t->dims)) {
      if (!ShapedType::isDynamic(extent))
        continue;
      std::string param = getDimParam(entry.getArgAttrDict(i), d);
      extent = symbolFor(param.empty() ? t->name + "_dim" + std::to_string(d)
                                       : param);
    }
    sig.inputs.push_back(std::move(*t));
  }
  // The symbol of the leading dim shared by the inputs, for batch outputs.
  std::optional<int64_t> batchSymbol;
  for (const TensorSignature &in : sig.inputs)
    if (!in.dims.empty() && in.dims[0] < 0)
      batchSymbol = batchSymbol.value_or(in.dims[0]);

  for (unsigned i = 0; i < fnType.getNumResults(); ++i) {
    auto t = makeTensor(fnType.getResult(i), entry.getResultAttrDict(i),
                        "output", i);
    if (!t)
      return t.takeError();
    for (auto [d, extent] : llvm::enumerate(t->dims)) {
      if (!ShapedType::isDynamic(extent))
        continue;
      std::string param = getDimParam(entry.getResultAttrDict(i), d);
      if (!param.empty() && symbolIds.count(param))
        extent = symbolFor(param);
      else if (d == 0 && batchSymbol)
        extent = *batchSymbol;
      else
        return llvm::createStringError(
            "output '" + t->name + "' dim " + std::to_string(d) +
            " is dynamic and not tied to an input dimension; only a "
            "dynamic batch (leading) dimension is supported");
    }
    sig.outputs.push_back(std::move(*t));
  }
  return sig;
}

} // namespace kiln
