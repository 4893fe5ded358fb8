//===- Passes.h - Bufferization-level kiln passes ---------------*- C++ -*-===//
#ifndef KILN_LOWERING_BUFFERIZATION_PASSES_H
#define KILN_LOWERING_BUFFERIZATION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {
#define GEN_PASS_DECL
#include "lowering/bufferization/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "lowering/bufferization/Passes.h.inc"

/// Module attributes written by kiln-plan-memory.
inline constexpr const char *kArenaBytesAttr = "kiln.arena_bytes";
inline constexpr const char *kArenaLowerBoundAttr = "kiln.arena_lower_bound";
} // namespace kiln

#endif // KILN_LOWERING_BUFFERIZATION_PASSES_H
