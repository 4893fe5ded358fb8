//===- Passes.td - Graph-level kiln passes -----------------*- tablegen -*-===//
#ifndef KILN_LOWERING_GRAPH_PASSES
#define KILN_LOWERING_GRAPH_PASSES

include "mlir/Pass/PassBase.td"

def RefineShapes : Pass<"kiln-refine-shapes", "mlir::func::FuncOp"> {
  let summary = "Re-run shape inference and tighten result types";
  let description = [{
    After constant folding makes shape inputs constant (Reshape targets,
    Slice bounds, ...), re-infers every kiln_graph op's result types in
    program order and adopts them where they are more static, then tightens
    the function's result types. Repeats folding and refinement until
    nothing changes.
  }];
}

def FoldBatchNorm : Pass<"kiln-fold-batchnorm", "mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNormalization into the preceding op";
  let description = [{
    A BatchNormalization with constant scale, B, mean and var is a
    per-channel affine map. When it follows a Conv, ConvTranspose or Gemm
    with a constant weight and no other user, the map is folded into that
    op's weight and bias; otherwise it becomes Mul and Add by precomputed
    per-channel constants. Arithmetic is done in double at compile time.
  }];
}

def FoldConstants : Pass<"kiln-fold-constants", "mlir::func::FuncOp"> {
  let summary = "Evaluate float ops and layout changes on constant weights";
  let description = [{
    Replaces float elementwise ops (Add, Sub, Mul, Div, Pow, Neg, Abs, Sqrt,
    Exp, Log, Cast to a float type) whose inputs are all constants, and
    Transpose, Reshape, Flatten, Squeeze and Unsqueeze of constants, by a
    kiln_graph.Constant. Reads and creates resource blobs; results over
    64 Mi elements, or broadcasts far larger than their inputs, are left.
  }];
}

#endif // KILN_LOWERING_GRAPH_PASSES
