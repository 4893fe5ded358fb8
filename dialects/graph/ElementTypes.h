//===- ElementTypes.h - ONNX data type codes <-> MLIR types -----*- C++ -*-===//
#ifndef KILN_DIALECTS_GRAPH_ELEMENTTYPES_H
#define KILN_DIALECTS_GRAPH_ELEMENTTYPES_H

#include "mlir/IR/Types.h"

namespace kiln::graph {
/// MLIR element type for an ONNX TensorProto.DataType code; null when kiln
/// does not support it. Signed integers are signless, unsigned ones `uiN`,
/// bool is i1.
mlir::Type getElementTypeForOnnxCode(mlir::MLIRContext *ctx, int64_t code);
/// The ONNX TensorProto.DataType code of an element type, or 0.
int64_t getOnnxCodeForElementType(mlir::Type type);
/// Human readable ONNX name of a data type code ("float", "int64", ...).
const char *getOnnxTypeName(int64_t code);
} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_ELEMENTTYPES_H
