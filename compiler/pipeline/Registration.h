//===- Registration.h - Dialects and passes kiln tools use ------*- C++ -*-===//
#ifndef KILN_COMPILER_PIPELINE_REGISTRATION_H
#define KILN_COMPILER_PIPELINE_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace kiln {
/// Every dialect that appears between import and LLVM IR.
void registerAllDialects(mlir::DialectRegistry &registry);
/// kiln's own passes plus the upstream ones its pipelines use, so that
/// kiln-opt can run any pipeline stage in isolation.
void registerAllPasses();
} // namespace kiln

#endif // KILN_COMPILER_PIPELINE_REGISTRATION_H
