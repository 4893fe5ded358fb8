//===- IndexingOps.td - kiln.graph gather/scatter and generators -*- tablegen -*-===//
//
// Ops that read or write at positions computed from data (GatherElements,
// GatherND, ScatterElements, ScatterND, OneHot), that compute from positions
// alone (Trilu, EyeLike, Range, ConstantOfShape, CumSum) and block
// rearrangements (DepthToSpace, SpaceToDepth, Tile). Shape inference is in
// IndexingShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_INDEXING_OPS
#define KILN_GRAPH_INDEXING_OPS

include "dialects/graph/GraphDialect.td"

def Graph_GatherElementsOp : Graph_Op<"GatherElements"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I32, I64]>:$indices,
                   DefaultValuedAttr<SI64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferGatherElements(loc, adaptor, types);
  }];
}

def Graph_GatherNDOp : Graph_Op<"GatherND"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferGatherND(loc, adaptor, types); }];
}

def Graph_ScatterElementsOp : Graph_Op<"ScatterElements"> {
  let summary = "ONNX ScatterElements (and the deprecated Scatter)";
  let arguments = (ins AnyTensor:$data, TensorOf<[I32, I64]>:$indices,
                   AnyTensor:$updates, DefaultValuedAttr<SI64Attr, "0">:$axis,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferSameAs(adaptor.getData(), types);
  }];
}

def Graph_ScatterNDOp : Graph_Op<"ScatterND"> {
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$indices,
                   AnyTensor:$updates,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferSameAs(adaptor.getData(), types);
  }];
}

def Graph_OneHotOp : Graph_Op<"OneHot"> {
  let arguments = (ins AnyTensor:$indices, AnyTensor:$depth, AnyTensor:$values,
                   DefaultValuedAttr<SI64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferOneHot(loc, adaptor, types); }];
}

def Graph_TriluOp : Graph_Op<"Trilu"> {
  let arguments = (ins AnyTensor:$input, Graph_TensorOrNone:$k,
                   DefaultValuedAttr<I64Attr, "1">:$upper);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferSameAs(adaptor.getInput(), types);
  }];
}

def Graph_CumSumOp : Graph_Op<"CumSum"> {
  let arguments = (ins AnyTensor:$x, TensorOf<[I32, I64]>:$axis,
                   DefaultValuedAttr<I64Attr, "0">:$exclusive,
                   DefaultValuedAttr<I64Attr, "0">:$reverse);
  let results = (outs AnyTensor:$y);
  let inferBody = [{ return ::kiln::graph::inferSameAs(adaptor.getX(), types); }];
}

def Graph_EyeLikeOp : Graph_Op<"EyeLike"> {
  let arguments = (ins AnyTensor:$input, OptionalAttr<I64Attr>:$dtype,
                   DefaultValuedAttr<SI64Attr, "0">:$k);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferEyeLike(loc, adaptor, types); }];
}

def Graph_RangeOp : Graph_Op<"Range"> {
  let arguments = (ins AnyTensor:$start, AnyTensor:$limit, AnyTensor:$delta);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferRange(loc, adaptor, types); }];
}

def Graph_ConstantOfShapeOp : Graph_Op<"ConstantOfShape"> {
  let arguments = (ins TensorOf<[I64]>:$input, OptionalAttr<ElementsAttr>:$value);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferConstantOfShape(loc, adaptor, types);
  }];
  let hasFolder = 1;
}

def Graph_SizeOp : Graph_Op<"Size"> {
  let arguments = (ins AnyTensor:$data);
  let results = (outs TensorOf<[I64]>:$size);
  let inferBody = [{
    types.push_back(::mlir::RankedTensorType::get({},
                                                  ::mlir::IntegerType::get(ctx, 64)));
    return ::mlir::success();
  }];
  let hasFolder = 1;
}

def Graph_DepthToSpaceOp : Graph_Op<"DepthToSpace"> {
  let arguments = (ins AnyTensor:$input, I64Attr:$blocksize,
                   DefaultValuedAttr<StrAttr, "\"DCR\"">:$mode);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferBlockRearrange(loc, adaptor.getInput(),
        adaptor.getBlocksize(), /*toSpace=*/true, types);
  }];
}

def Graph_SpaceToDepthOp : Graph_Op<"SpaceToDepth"> {
  let arguments = (ins AnyTensor:$input, I64Attr:$blocksize);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferBlockRearrange(loc, adaptor.getInput(),
        adaptor.getBlocksize(), /*toSpace=*/false, types);
  }];
}

def Graph_TileOp : Graph_Op<"Tile"> {
  let arguments = (ins AnyTensor:$input, TensorOf<[I64]>:$repeats);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferTile(loc, adaptor, types); }];
}

def Graph_ReverseSequenceOp : Graph_Op<"ReverseSequence"> {
  let arguments = (ins AnyTensor:$input, TensorOf<[I64]>:$sequence_lens,
                   DefaultValuedAttr<I64Attr, "1">:$batch_axis,
                   DefaultValuedAttr<I64Attr, "0">:$time_axis);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferSameAs(adaptor.getInput(), types); }];
}

def Graph_TopKOp : Graph_Op<"TopK"> {
  let summary = "ONNX TopK: values and int64 indices (K constant or run-time)";
  let arguments = (ins AnyTensor:$X, TensorOf<[I64]>:$K,
                   DefaultValuedAttr<SI64Attr, "-1">:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$largest,
                   DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs AnyTensor:$Values, TensorOf<[I64]>:$Indices);
  let inferBody = [{ return ::kiln::graph::inferTopK(loc, adaptor, types); }];
}

def Graph_GridSampleOp : Graph_Op<"GridSample"> {
  let summary = "ONNX GridSample (4-D): X sampled at the grid's (x, y) points";
  let arguments = (ins Graph_FloatTensor:$X, Graph_FloatTensor:$grid,
                   DefaultValuedAttr<I64Attr, "0">:$align_corners,
                   DefaultValuedAttr<StrAttr, "\"bilinear\"">:$mode,
                   DefaultValuedAttr<StrAttr, "\"zeros\"">:$padding_mode);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferGridSample(loc, adaptor, types); }];
}

def Graph_GlobalMaxPoolOp : Graph_Op<"GlobalMaxPool"> {
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferGlobalPool(loc, adaptor.getX(), types);
  }];
}

#endif // KILN_GRAPH_INDEXING_OPS
