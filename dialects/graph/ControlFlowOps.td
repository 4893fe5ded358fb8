//===- ControlFlowOps.td - kiln.graph If and Scan ----------*- tablegen -*-===//
//
// ONNX If with its two subgraphs as regions, Scan with its body as one. Subgraphs read outer values
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

def Graph_ScanOp : Op<Graph_Dialect, "Scan", [RecursiveMemoryEffects]> {
  let summary = "ONNX Scan (opset 9+): a body over slices of scan inputs";
  let description = [{
    `inputs` are the N initial state values followed by the
    `num_scan_inputs` scan inputs. The body's block takes the N states and
    one slice of each scan input (the scan axis removed) and yields the N
    next states followed by one slice of each scan output. The trip count
    is the scan inputs' extent along their axes; a direction of 1 walks a
    scan input or fills a scan output from the end. Results: the final
    states, then the scan outputs, each with the trip count inserted at its
    axis.
  }];
  let arguments = (ins Variadic<AnyTensor>:$inputs, I64Attr:$num_scan_inputs,
                   DenseI64ArrayAttr:$scan_input_axes,
                   DenseI64ArrayAttr:$scan_input_directions,
                   DenseI64ArrayAttr:$scan_output_axes,
                   DenseI64ArrayAttr:$scan_output_directions);
  let results = (outs Variadic<AnyTensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) (`->` type($outputs)^)? $body
  }];
  let hasVerifier = 1;
}

def Graph_YieldOp : Op<Graph_Dialect, "Yield", [Pure, Terminator, ReturnLike,
                                                ParentOneOf<["IfOp",
                                                             "ScanOp"]>]> {
  let summary = "The outputs of an If branch or a Scan body";
  let arguments = (ins Variadic<AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // KILN_GRAPH_CONTROL_FLOW_OPS
