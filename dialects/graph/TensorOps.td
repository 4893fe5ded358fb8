//===- TensorOps.td - kiln.graph shape and data-movement ops -*- tablegen -*-===//
//
// Inputs that ONNX made dynamic (shape, axes, pads, ...) stay operands, as in
// the newest opsets; shape inference reads them when they are constants.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_TENSOR_OPS
#define KILN_GRAPH_TENSOR_OPS

include "dialects/graph/GraphDialect.td"

def Graph_ShapeOp : Graph_Op<"Shape"> {
  let arguments = (ins AnyTensor:$data, OptionalAttr<SI64Attr>:$start,
                   OptionalAttr<SI64Attr>:$end);
  let results = (outs TensorOf<[I64]>:$shape);
  let inferBody = [{ return ::kiln::graph::inferShape(loc, adaptor, types); }];
  let hasFolder = 1;
}

def Graph_ReshapeOp : Graph_Op<"Reshape"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$shape,
                   DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs AnyTensor:$reshaped);
  let inferBody = [{ return ::kiln::graph::inferReshape(loc, adaptor, types); }];
  let hasFolder = 1;
}

def Graph_FlattenOp : Graph_Op<"Flatten"> {
  let arguments = (ins AnyTensor:$input, DefaultValuedAttr<SI64Attr, "1">:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferFlatten(loc, adaptor, types); }];
}

def Graph_TransposeOp : Graph_Op<"Transpose"> {
  let arguments = (ins AnyTensor:$data, OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs AnyTensor:$transposed);
  let inferBody = [{
    return ::kiln::graph::inferTranspose(loc, adaptor, types);
  }];
  let hasFolder = 1;
}

def Graph_ConcatOp : Graph_Op<"Concat"> {
  let arguments = (ins Variadic<AnyTensor>:$inputs, SI64Attr:$axis);
  let results = (outs AnyTensor:$concat_result);
  let inferBody = [{ return ::kiln::graph::inferConcat(loc, adaptor, types); }];
  let hasFolder = 1;
}

def Graph_SplitOp : Graph_Op<"Split"> {
  let summary = "ONNX Split; one result per output";
  let arguments = (ins AnyTensor:$input, Graph_TensorOrNone:$split,
                   DefaultValuedAttr<SI64Attr, "0">:$axis,
                   OptionalAttr<I64Attr>:$num_outputs);
  let results = (outs Variadic<AnyTensor>:$outputs);
  let inferBody = [{ return ::kiln::graph::inferSplit(loc, adaptor, types); }];
}

def Graph_SliceOp : Graph_Op<"Slice"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I32, I64]>:$starts,
                   TensorOf<[I32, I64]>:$ends, Graph_TensorOrNone:$axes,
                   Graph_TensorOrNone:$steps);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferSlice(loc, adaptor, types); }];
  let hasFolder = 1;
}

def Graph_GatherOp : Graph_Op<"Gather"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I32, I64]>:$indices,
                   DefaultValuedAttr<SI64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferGather(loc, adaptor, types); }];
  let hasFolder = 1;
}

def Graph_SqueezeOp : Graph_Op<"Squeeze"> {
  let arguments = (ins AnyTensor:$data, Graph_TensorOrNone:$axes);
  let results = (outs AnyTensor:$squeezed);
  let inferBody = [{ return ::kiln::graph::inferSqueeze(loc, adaptor, types); }];
  let hasFolder = 1;
}

def Graph_UnsqueezeOp : Graph_Op<"Unsqueeze"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$axes);
  let results = (outs AnyTensor:$expanded);
  let inferBody = [{
    return ::kiln::graph::inferUnsqueeze(loc, adaptor, types);
  }];
  let hasFolder = 1;
}

def Graph_ExpandOp : Graph_Op<"Expand"> {
  let arguments = (ins AnyTensor:$input, TensorOf<[I64]>:$shape);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferExpand(loc, adaptor, types); }];
}

def Graph_PadOp : Graph_Op<"Pad"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$pads,
                   Graph_TensorOrNone:$constant_value, Graph_TensorOrNone:$axes,
                   DefaultValuedAttr<StrAttr, "\"constant\"">:$mode);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferPad(loc, adaptor, types); }];
}

def Graph_ResizeOp : Graph_Op<"Resize"> {
  let arguments = (ins AnyTensor:$X, Graph_TensorOrNone:$roi,
      Graph_TensorOrNone:$scales, Graph_TensorOrNone:$sizes,
      DefaultValuedAttr<I64Attr, "0">:$antialias,
      OptionalAttr<DenseI64ArrayAttr>:$axes,
      DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
      DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
      DefaultValuedAttr<I64Attr, "0">:$exclude_outside,
      DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value,
      DefaultValuedAttr<StrAttr, "\"stretch\"">:$keep_aspect_ratio_policy,
      DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
      DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferResize(loc, adaptor, types); }];
}

#endif // KILN_GRAPH_TENSOR_OPS
