//===- Passes.h - Graph-level kiln passes -----------------------*- C++ -*-===//
#ifndef KILN_LOWERING_GRAPH_PASSES_H
#define KILN_LOWERING_GRAPH_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kiln {
#define GEN_PASS_DECL
#include "lowering/graph/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "lowering/graph/Passes.h.inc"

/// Module attribute of kiln-annotate-profile: node name -> {op, fused,
/// flops}.
inline constexpr const char *kProfileNodesAttr = "kiln.profile.nodes";

/// BatchNormalization with constant parameters into Conv/ConvTranspose/Gemm
/// weights, or into Mul + Add by constants.
void populateFoldBatchNormPatterns(mlir::RewritePatternSet &patterns);
/// Activations and biases after Conv/MatMul into FusedConv/FusedMatMul.
void populateFuseEpiloguePatterns(mlir::RewritePatternSet &patterns);
/// Float ops and layout changes of constants into constants.
void populateFoldConstantsPatterns(mlir::RewritePatternSet &patterns);
/// Sinking of layout transposes through layout-agnostic ops, and
/// cancellation of inverse pairs (part of kiln-convert-layout).
void populateConvertLayoutPatterns(mlir::RewritePatternSet &patterns);
} // namespace kiln

#endif // KILN_LOWERING_GRAPH_PASSES_H
