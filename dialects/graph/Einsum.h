//===- Einsum.h - ONNX Einsum equations ------------------------*- C++ -*-===//
//
// Parses an Einsum equation ("bij,bjk->bik", "...ii->...i", "ij" with the
// implicit output) against the input ranks into label numbers per dim.
// Shape inference and the linalg lowering share it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_GRAPH_EINSUM_H
#define KILN_DIALECTS_GRAPH_EINSUM_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace kiln::graph {

struct EinsumSpec {
  /// Per input, the label of each dim (left to right).
  llvm::SmallVector<llvm::SmallVector<unsigned>> inputs;
  /// The label of each output dim.
  llvm::SmallVector<unsigned> output;
  unsigned numLabels = 0;
};

/// Parses `equation` for inputs of ranks `ranks`. Ellipses stand for the
/// same trailing-aligned dims in every input (broadcast as in numpy).
mlir::FailureOr<EinsumSpec> parseEinsum(std::optional<mlir::Location> loc,
                                        llvm::StringRef equation,
                                        llvm::ArrayRef<int64_t> ranks);

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_EINSUM_H
