//===- ControlFlowOps.td - kiln.graph If, Scan, Loop -------*- tablegen -*-===//
//
// ONNX If with its two subgraphs as regions, Scan and Loop with their body
// as one. Subgraphs read outer values
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

def Graph_LoopOp : Op<Graph_Dialect, "Loop", [RecursiveMemoryEffects]> {
  let summary = "ONNX Loop: a body run while a count and a condition allow";
  let description = [{
    `max_trip_count` (an i64 scalar) and `cond` (a bool scalar) are
    NoValue when absent. The body's block takes the iteration number, the
    condition and the N loop-carried values, and yields the next condition,
    the N next values and one slice of each scan output. Results: the final
    values, then the scan outputs stacked along a new leading axis.
  }];
  let arguments = (ins AnyType:$max_trip_count, AnyType:$cond,
                   Variadic<AnyTensor>:$inits);
  let results = (outs Variadic<AnyTensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $max_trip_count `,` $cond (`,` $inits^)? attr-dict `:` type($max_trip_count)
    `,` type($cond) (`,` type($inits)^)? (`->` type($outputs)^)? $body
  }];
  let hasVerifier = 1;
}

def Graph_YieldOp : Op<Graph_Dialect, "Yield", [Pure, Terminator, ReturnLike,
                                                ParentOneOf<["IfOp", "ScanOp",
                                                             "LoopOp"]>]> {
  let summary = "The outputs of an If branch or a Scan or Loop body";
  let arguments = (ins Variadic<AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // KILN_GRAPH_CONTROL_FLOW_OPS
