//===- ModelSignature.cpp - Graph inputs/outputs as the ABI sees them -----===//

#include "lowering/emit/ModelSignature.h"
#include "dialects/graph/ElementTypes.h"
#include "kiln_model_abi.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace kiln {

std::string formatDims(const TensorSignature &t, const ModelSignature &sig) {
  std::string s = "[";
  for (auto [d, extent] : llvm::enumerate(t.dims)) {
    if (d)
      s += ", ";
    if (extent >= 0)
      s += std::to_string(extent);
    else if (extent == KILN_DIM_AT_RUN_TIME)
      s += "(run time)";
    else
      s += sig.symbols[-extent - 1];
  }
  return s + "]";
}

std::string sanitizeIdentifier(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) ? c : '_');
  if (out.empty() || llvm::isDigit(out[0]))
    out.insert(out.begin(), '_');
  return out;
}

static void markSizedAtRunTime(TensorSignature &t) {
  t.sizedAtRunTime = true;
  for (int64_t &extent : t.dims)
    if (extent < 0)
      extent = KILN_DIM_AT_RUN_TIME;
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
  // The symbol of the leading dim shared by the inputs, for batch outputs,
  // and the first input that has it.
  std::optional<int64_t> batchSymbol;
  int64_t batchInput = -1;
  for (auto [i, in] : llvm::enumerate(sig.inputs))
    if (!in.dims.empty() && in.dims[0] < 0 && !batchSymbol) {
      batchSymbol = in.dims[0];
      batchInput = i;
    }
  // The (input, dim) where a symbol first appears.
  auto firstInputDim = [&](int64_t symbol) -> std::pair<int64_t, int64_t> {
    for (auto [i, in] : llvm::enumerate(sig.inputs))
      for (auto [d, extent] : llvm::enumerate(in.dims))
        if (extent == symbol)
          return {int64_t(i), int64_t(d)};
    return {-1, -1};
  };

  for (unsigned i = 0; i < fnType.getNumResults(); ++i) {
    auto t = makeTensor(fnType.getResult(i), entry.getResultAttrDict(i),
                        "output", i);
    if (!t)
      return t.takeError();
    for (auto [d, extent] : llvm::enumerate(t->dims)) {
      if (!ShapedType::isDynamic(extent))
        continue;
      std::string param = getDimParam(entry.getResultAttrDict(i), d);
      if (!param.empty() && symbolIds.count(param)) {
        extent = symbolFor(param);
        t->ties.push_back({int64_t(d), firstInputDim(extent)});
      } else if (d == 0 && batchSymbol) {
        extent = *batchSymbol;
        t->ties.push_back({0, {batchInput, 0}});
      } else {
        t->sizedAtRunTime = true;
      }
    }
    sig.outputs.push_back(std::move(*t));
    if (sig.outputs.back().sizedAtRunTime)
      markSizedAtRunTime(sig.outputs.back());
  }
  return sig;
}

SmallVector<int64_t> checkOutputTies(func::FuncOp entry, ModelSignature &sig) {
  SmallVector<int64_t> runTime;
  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  for (auto [i, t] : llvm::enumerate(sig.outputs)) {
    for (const auto &[dim, input] : t.ties) {
      if (t.sizedAtRunTime)
        break;
      FailureOr<bool> same = ValueBoundsConstraintSet::areEqual(
          {ret.getOperand(i), dim},
          {entry.getArgument(input.first), input.second});
      if (failed(same) || !*same)
        markSizedAtRunTime(t);
    }
    if (t.sizedAtRunTime)
      runTime.push_back(i);
  }
  return runTime;
}

} // namespace kiln
