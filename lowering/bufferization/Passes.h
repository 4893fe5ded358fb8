//===- Passes.h - Bufferization-level kiln passes ---------------*- C++ -*-===//
#ifndef KILN_LOWERING_BUFFERIZATION_PASSES_H
#define KILN_LOWERING_BUFFERIZATION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace kiln {
#define GEN_PASS_DECL
#include "lowering/bufferization/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "lowering/bufferization/Passes.h.inc"

/// Adds upstream passes given as pipeline text (passes without options);
/// a malformed text is a bug in kiln.
void addPipelineText(mlir::OpPassManager &pm, llvm::StringRef text);
/// One-shot bufferization of the entry function, after one initializer per
/// destination (kiln-unshare-initializers), then border-only padding fills
/// (kiln-mark-pad-interiors, kiln-fill-pad-borders): outputs are already caller
/// buffers (kiln-outputs-to-destinations), function boundaries keep identity
/// layouts, loops may return new buffers.
void addEntryBufferization(mlir::OpPassManager &pm);

/// On a padding fill: the interior that an insert overwrites whole, its
/// offsets then its sizes (kiln-mark-pad-interiors).
inline constexpr const char *kPadInteriorAttr = "kiln.pad_interior";

/// Module attributes written by kiln-plan-memory.
inline constexpr const char *kArenaBytesAttr = "kiln.arena_bytes";
inline constexpr const char *kArenaLowerBoundAttr = "kiln.arena_lower_bound";
/// On the arena view of a buffer with one slot per parallel iteration (its
/// offset depends on the iteration): the bytes [lo, hi) of all its slots.
inline constexpr const char *kArenaRangeAttr = "kiln.arena_range";
/// With symbolic sizes, the function (the entry's arguments without the
/// arena -> index) that computes the arena bytes a run needs.
inline constexpr const char *kArenaBytesFunction = "kiln_entry_arena_bytes";
} // namespace kiln

#endif // KILN_LOWERING_BUFFERIZATION_PASSES_H
