//===- GraphOps.h - kiln.graph operations -----------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_GRAPH_GRAPHOPS_H
#define KILN_DIALECTS_GRAPH_GRAPHOPS_H

#include "dialects/graph/GraphDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::graph {
/// Result types are compatible when element types match and shapes agree
/// wherever both are static, so inference may be less precise than the IR.
bool areCompatibleTypes(mlir::TypeRange lhs, mlir::TypeRange rhs);
/// The type both `a` and `b` fit: same element type, dims that differ
/// dynamic (unranked when the ranks differ); null for other element types.
mlir::Type joinTensorTypes(mlir::Type a, mlir::Type b);
} // namespace kiln::graph

#define GET_OP_CLASSES
#include "dialects/graph/GraphOps.h.inc"

#endif // KILN_DIALECTS_GRAPH_GRAPHOPS_H
