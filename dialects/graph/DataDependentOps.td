//===- DataDependentOps.td - kiln.graph ops sized by their data -*- tablegen -*-===//
//
// Ops whose result extents depend on the values of their inputs: NonZero,
// Compress, Unique and NonMaxSuppression. Their data-dependent dims are
// dynamic; a graph output with such a dim is sized at run time (the run
// allocates it, see kiln_model_abi.h). Shape inference is in
// DataDependentShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_DATA_DEPENDENT_OPS
#define KILN_GRAPH_DATA_DEPENDENT_OPS

include "dialects/graph/GraphDialect.td"

def Graph_NonZeroOp : Graph_Op<"NonZero"> {
  let summary = "ONNX NonZero: [rank, count] int64 indices of non-zero elements";
  let arguments = (ins AnyTensor:$X);
  let results = (outs TensorOf<[I64]>:$Y);
  let inferBody = [{ return ::kiln::graph::inferNonZero(loc, adaptor, types); }];
}

def Graph_CompressOp : Graph_Op<"Compress"> {
  let summary = "ONNX Compress: the slices along axis where condition is true";
  let description = [{
    Without `axis`, the flattened input. A condition shorter than the axis
    selects from its first elements only.
  }];
  let arguments = (ins AnyTensor:$input, TensorOf<[I1]>:$condition,
                   OptionalAttr<SI64Attr>:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferCompress(loc, adaptor, types); }];
}

def Graph_UniqueOp : Graph_Op<"Unique"> {
  let summary = "ONNX Unique: distinct elements or slices, with their indices";
  let description = [{
    Y holds the distinct elements (without `axis`, of the flattened input) or
    slices along `axis`, sorted ascending (lexicographically for slices) when
    `sorted` is 1, else in order of first occurrence; indices the first
    occurrence of each, inverse_indices the position in Y of every input
    element or slice, counts how often each occurs.
  }];
  let arguments = (ins AnyTensor:$X, OptionalAttr<SI64Attr>:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs AnyTensor:$Y, TensorOf<[I64]>:$indices,
                      TensorOf<[I64]>:$inverse_indices,
                      TensorOf<[I64]>:$counts);
  let inferBody = [{ return ::kiln::graph::inferUnique(loc, adaptor, types); }];
}

def Graph_NonMaxSuppressionOp : Graph_Op<"NonMaxSuppression"> {
  let summary = "ONNX NonMaxSuppression: [count, 3] (batch, class, box) indices";
  let description = [{
    Per batch and class, greedy selection in descending score order of the
    boxes scoring above score_threshold, dropping those whose IoU with a
    selected box exceeds iou_threshold, at most max_output_boxes_per_class
    (absent or 0: none).
  }];
  let arguments = (ins Graph_FloatTensor:$boxes, Graph_FloatTensor:$scores,
                   Graph_TensorOrNone:$max_output_boxes_per_class,
                   Graph_TensorOrNone:$iou_threshold,
                   Graph_TensorOrNone:$score_threshold,
                   DefaultValuedAttr<I64Attr, "0">:$center_point_box);
  let results = (outs TensorOf<[I64]>:$selected_indices);
  let inferBody = [{
    return ::kiln::graph::inferNonMaxSuppression(loc, adaptor, types);
  }];
}

#endif // KILN_GRAPH_DATA_DEPENDENT_OPS
