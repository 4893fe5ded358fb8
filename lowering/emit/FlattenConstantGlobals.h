//===- FlattenConstantGlobals.h - One-dimensional weight globals -*- C++
//-*-===//
#ifndef KILN_LOWERING_EMIT_FLATTENCONSTANTGLOBALS_H
#define KILN_LOWERING_EMIT_FLATTENCONSTANTGLOBALS_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Gives every constant `llvm.mlir.global` of nested array type (a weight
/// tensor after memref lowering) a one-dimensional array type and a reshaped
/// initializer with the same bytes. Run just before translation to LLVM IR.
void flattenConstantGlobals(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_LOWERING_EMIT_FLATTENCONSTANTGLOBALS_H
