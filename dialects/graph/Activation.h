//===- Activation.h - Activations fused into kiln.graph ops -----*- C++ -*-===//
//
// The activation of a fused op (FusedConv, FusedMatMul), named as in ONNX
// Runtime's com.microsoft FusedConv: `activation` is an ONNX op name and
// `activation_params` its float attributes in schema order.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_GRAPH_ACTIVATION_H
#define KILN_DIALECTS_GRAPH_ACTIVATION_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace kiln::graph {

enum class Activation {
  None,        // identity; spelled ""
  Relu,        // max(x, 0)
  LeakyRelu,   // params: alpha
  Clip,        // params: min, max
  HardSigmoid, // params: alpha, beta
  HardSwish,   // x * HardSigmoid(x; 1/6, 1/2)
  Sigmoid,
  Tanh,
  Gelu,  // exact (erf) form
  Swish, // x * Sigmoid(x), SiLU (EfficientNet, YOLO exports)
};

std::optional<Activation> parseActivation(llvm::StringRef name);
llvm::StringRef getActivationName(Activation act);
/// Number of `activation_params` the activation takes.
unsigned getNumActivationParams(Activation act);

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_ACTIVATION_H
