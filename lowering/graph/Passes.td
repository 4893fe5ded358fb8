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

#endif // KILN_LOWERING_GRAPH_PASSES
