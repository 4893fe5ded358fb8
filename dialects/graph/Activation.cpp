//===- Activation.cpp - Activations fused into kiln.graph ops -------------===//

#include "dialects/graph/Activation.h"

#include "llvm/ADT/StringSwitch.h"

namespace kiln::graph {

std::optional<Activation> parseActivation(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Activation>>(name)
      .Case("", Activation::None)
      .Case("Relu", Activation::Relu)
      .Case("LeakyRelu", Activation::LeakyRelu)
      .Case("Clip", Activation::Clip)
      .Case("HardSigmoid", Activation::HardSigmoid)
      .Case("HardSwish", Activation::HardSwish)
      .Case("Sigmoid", Activation::Sigmoid)
      .Case("Tanh", Activation::Tanh)
      .Case("Gelu", Activation::Gelu)
      .Case("Swish", Activation::Swish)
      .Default(std::nullopt);
}

llvm::StringRef getActivationName(Activation act) {
  switch (act) {
  case Activation::None:
    return "";
  case Activation::Relu:
    return "Relu";
  case Activation::LeakyRelu:
    return "LeakyRelu";
  case Activation::Clip:
    return "Clip";
  case Activation::HardSigmoid:
    return "HardSigmoid";
  case Activation::HardSwish:
    return "HardSwish";
  case Activation::Sigmoid:
    return "Sigmoid";
  case Activation::Tanh:
    return "Tanh";
  case Activation::Gelu:
    return "Gelu";
  case Activation::Swish:
    return "Swish";
  }
  return "";
}

unsigned getNumActivationParams(Activation act) {
  switch (act) {
  case Activation::LeakyRelu:
    return 1;
  case Activation::Clip:
  case Activation::HardSigmoid:
    return 2;
  default:
    return 0;
  }
}

} // namespace kiln::graph
