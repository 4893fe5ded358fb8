//===- ControlFlowOps.td - kiln.graph If -------------------*- tablegen -*-===//
//
// ONNX If with its two subgraphs as regions. Subgraphs read outer values
// directly (the regions are not isolated); each ends in kiln_graph.Yield.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_CONTROL_FLOW_OPS
#define KILN_GRAPH_CONTROL_FLOW_OPS

include "dialects/graph/GraphDialect.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Graph_IfOp : Op<Graph_Dialect, "If", [RecursiveMemoryEffects,
                                          NoRegionArguments]> {
  let summary = "ONNX If: the results of then_branch or else_branch";
  let description = [{
    `cond` holds one boolean. A result's type is the join of the two
    branches' yields: dims that differ are dynamic.
  }];
  let arguments = (ins TensorOf<[I1]>:$cond);
  let results = (outs Variadic<AnyTensor>:$outputs);
  let regions = (region SizedRegion<1>:$then_branch,
                        SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $cond `:` type($cond) (`->` type($outputs)^)? $then_branch $else_branch
    attr-dict
  }];
  let hasVerifier = 1;
}

def Graph_YieldOp : Op<Graph_Dialect, "Yield", [Pure, Terminator, ReturnLike,
                                                ParentOneOf<["IfOp"]>]> {
  let summary = "The outputs of an If branch";
  let arguments = (ins Variadic<AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // KILN_GRAPH_CONTROL_FLOW_OPS
