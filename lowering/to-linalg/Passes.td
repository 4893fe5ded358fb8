//===- Passes.td - kiln.graph to linalg conversion ---------*- tablegen -*-===//
#ifndef KILN_LOWERING_TOLINALG_PASSES
#define KILN_LOWERING_TOLINALG_PASSES

include "mlir/Pass/PassBase.td"

def ConvertGraphToLinalg : Pass<"convert-graph-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower kiln.graph ops to linalg, tensor, arith and math";
  let description = [{
    Full conversion: every kiln_graph op must be lowered, else the pass fails
    naming the op. Unsigned element types become signless (the signedness is
    carried by the ops chosen), function signatures included.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::bufferization::BufferizationDialect"
  ];
}

def OutputsToDestinations : Pass<"kiln-outputs-to-destinations",
                                 "mlir::func::FuncOp"> {
  let summary = "Make the entry function write its results into caller buffers";
  let description = [{
    Rewrites `kiln_entry(inputs) -> results` on tensors into
    `kiln_entry(inputs, out memrefs)`: each returned tensor is materialized in
    a caller-owned memref argument, so bufferization can compute results in
    place instead of copying them out. Inputs are marked non-writable since
    the caller owns them. Argument attributes (names) are kept. Results
    listed in `kiln.run_time_outputs` (extents only the run knows) stay
    results: bufferization returns them as owned allocations.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def FuseElementwise : Pass<"kiln-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg chains without recomputation";
  let description = [{
    Upstream elementwise-op fusion (plus reshape propagation and constant
    folding of linalg ops), restricted to fusions where the consumer reads
    each produced element once: its indexing map for the fused operand is a
    permutation. Producers of contractions (matmul operands, im2col) stay
    separate, so they are computed once and the contraction keeps its named
    form for the register kernels.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // KILN_LOWERING_TOLINALG_PASSES
