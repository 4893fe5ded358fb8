//===- ComputeType.h - Reduced-precision contractions -----------*- C++ -*-===//
//
// `--precision bf16|fp16` marks the convolutions and matrix products that
// run in reduced precision with a discardable attribute (kiln-reduce-
// precision, the last graph pass, so no later graph rewrite drops it): their
// inputs and constant weights are rounded to the attribute's type (bf16 or
// f16), the products are summed in f32, and the result stays f32. Every
// other op keeps f32.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_GRAPH_COMPUTETYPE_H
#define KILN_DIALECTS_GRAPH_COMPUTETYPE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

namespace kiln::graph {

inline constexpr llvm::StringLiteral kComputeTypeAttr = "kiln.compute_type";

/// The reduced type `op` computes its products in, or null for f32.
inline mlir::Type getComputeType(mlir::Operation *op) {
  auto attr = op->getAttrOfType<mlir::TypeAttr>(kComputeTypeAttr);
  return attr ? attr.getValue() : mlir::Type();
}

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_COMPUTETYPE_H
