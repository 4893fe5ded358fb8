//===- GraphOps.td - kiln.graph operations -----------------*- tablegen -*-===//
//
// One def per ONNX operator, in the operator's newest form. Attribute names,
// types and defaults follow the ONNX schema so the importer maps them 1:1.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_OPS
#define KILN_GRAPH_OPS

include "dialects/graph/GraphDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "dialects/graph/TensorOps.td"
include "dialects/graph/MathOps.td"
include "dialects/graph/IndexingOps.td"
include "dialects/graph/QuantOps.td"
include "dialects/graph/RecurrentOps.td"
include "dialects/graph/ControlFlowOps.td"
include "dialects/graph/DataDependentOps.td"

//===----------------------------------------------------------------------===//
// Graph plumbing
//===----------------------------------------------------------------------===//

def Graph_NoValueOp : Op<Graph_Dialect, "NoValue", [Pure, ConstantLike]> {
  let summary = "Placeholder for an absent optional ONNX input";
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict `:` type($none)";
  let builders = [OpBuilder<(ins), [{
    $_state.addTypes($_builder.getNoneType());
  }]>];
  let hasFolder = 1;
}

def Graph_ConstantOp : Graph_Op<"Constant", [ConstantLike]> {
  let summary = "ONNX Constant; also holds graph initializers";
  let description = [{
    All of ONNX's `value_*` attribute forms are normalized to `value` by the
    importer. Large initializers use dense resource attributes so weights are
    not copied into the IR.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    types.push_back(adaptor.getValue().getShapedType());
    return ::mlir::success();
  }];
  let hasFolder = 1;
}

def Graph_IdentityOp : Graph_UnaryOp<"Identity"> {
  let hasFolder = 1;
}

def Graph_CastOp : Graph_Op<"Cast"> {
  let summary = "ONNX Cast; `to` is an ONNX TensorProto.DataType code";
  let arguments = (ins AnyTensor:$input, I64Attr:$to,
                   DefaultValuedAttr<I64Attr, "1">:$saturate);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferCast(loc, adaptor, types); }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Graph_AddOp : Graph_BinaryOp<"Add", [Commutative]> {
  let hasFolder = 1;
}
def Graph_SubOp : Graph_BinaryOp<"Sub"> {
  let hasFolder = 1;
}
def Graph_MulOp : Graph_BinaryOp<"Mul", [Commutative]> {
  let hasFolder = 1;
}
def Graph_DivOp : Graph_BinaryOp<"Div"> {
  let hasFolder = 1;
}
def Graph_PowOp : Graph_BinaryOp<"Pow"> {
  let summary = "ONNX Pow: the result has the element type of the base";
  let inferBody = [{
    return ::kiln::graph::inferBroadcast(loc, {adaptor.getA(), adaptor.getB()},
        ::mlir::getElementTypeOrSelf(adaptor.getA().getType()), types,
        /*firstSameElt=*/-1);
  }];
}
def Graph_EqualOp : Graph_CompareOp<"Equal"> {
  let hasFolder = 1;
}
def Graph_LessOp : Graph_CompareOp<"Less">;
def Graph_GreaterOp : Graph_CompareOp<"Greater">;

def Graph_WhereOp : Graph_Op<"Where"> {
  let arguments = (ins TensorOf<[I1]>:$condition, AnyTensor:$X, AnyTensor:$Y);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferBroadcast(loc,
        {adaptor.getCondition(), adaptor.getX(), adaptor.getY()},
        ::mlir::getElementTypeOrSelf(adaptor.getX().getType()), types,
        /*firstSameElt=*/1);
  }];
  let hasFolder = 1;
}

def Graph_ReluOp : Graph_UnaryOp<"Relu">;
def Graph_SigmoidOp : Graph_FloatUnaryOp<"Sigmoid">;
def Graph_TanhOp : Graph_FloatUnaryOp<"Tanh">;
def Graph_ExpOp : Graph_FloatUnaryOp<"Exp">;
def Graph_LogOp : Graph_FloatUnaryOp<"Log">;
def Graph_SqrtOp : Graph_FloatUnaryOp<"Sqrt">;
def Graph_ErfOp : Graph_FloatUnaryOp<"Erf">;
def Graph_NegOp : Graph_UnaryOp<"Neg"> {
  let hasFolder = 1;
}
def Graph_AbsOp : Graph_UnaryOp<"Abs">;

def Graph_LeakyReluOp : Graph_FloatUnaryOp<"LeakyRelu"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<F32Attr, "0.01f">:$alpha);
}

def Graph_HardSigmoidOp : Graph_FloatUnaryOp<"HardSigmoid"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<F32Attr, "0.2f">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.5f">:$beta);
}

def Graph_GeluOp : Graph_FloatUnaryOp<"Gelu"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
}

def Graph_ClipOp : Graph_Op<"Clip"> {
  let summary = "ONNX Clip; min/max are optional scalar inputs";
  let arguments = (ins AnyTensor:$input, Graph_TensorOrNone:$min,
                   Graph_TensorOrNone:$max);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferSameAs(adaptor.getInput(), types);
  }];
}

//===----------------------------------------------------------------------===//
// Linear algebra and neural-network ops
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_Op<"MatMul"> {
  let summary = "ONNX MatMul (numpy.matmul semantics)";
  let arguments = (ins AnyTensor:$A, AnyTensor:$B);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferMatMul(loc, adaptor, types); }];
}

def Graph_EinsumOp : Graph_Op<"Einsum"> {
  let summary = "ONNX Einsum (dialects/graph/Einsum.h parses the equation)";
  let arguments = (ins Variadic<AnyTensor>:$Inputs, StrAttr:$equation);
  let results = (outs AnyTensor:$Output);
  let inferBody = [{ return ::kiln::graph::inferEinsum(loc, adaptor, types); }];
}

def Graph_GemmOp : Graph_Op<"Gemm"> {
  let arguments = (ins AnyTensor:$A, AnyTensor:$B, Graph_TensorOrNone:$C,
                   DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0f">:$beta,
                   DefaultValuedAttr<I64Attr, "0">:$transA,
                   DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferGemm(loc, adaptor, types); }];
}

def Graph_ConvOp : Graph_Op<"Conv"> {
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, Graph_TensorOrNone:$B,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferConv(loc, adaptor, types); }];
}

def Graph_ConvTransposeOp : Graph_Op<"ConvTranspose"> {
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, Graph_TensorOrNone:$B,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                   OptionalAttr<DenseI64ArrayAttr>:$output_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferConvTranspose(loc, adaptor, types);
  }];
}

def Graph_MaxPoolOp : Graph_Op<"MaxPool"> {
  let summary = "ONNX MaxPool (the optional Indices output is not modelled)";
  let arguments = (ins AnyTensor:$X,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DenseI64ArrayAttr:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   DefaultValuedAttr<I64Attr, "0">:$storage_order,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferPool(loc, adaptor, types); }];
}

def Graph_AveragePoolOp : Graph_Op<"AveragePool"> {
  let arguments = (ins AnyTensor:$X,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                   DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DenseI64ArrayAttr:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferPool(loc, adaptor, types); }];
}

def Graph_GlobalAveragePoolOp : Graph_Op<"GlobalAveragePool"> {
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferGlobalPool(loc, adaptor.getX(), types);
  }];
}

def Graph_BatchNormalizationOp : Graph_Op<"BatchNormalization"> {
  let summary = "ONNX BatchNormalization in inference mode";
  let arguments = (ins AnyTensor:$X, AnyTensor:$scale, AnyTensor:$B,
                   AnyTensor:$input_mean, AnyTensor:$input_var,
                   DefaultValuedAttr<F32Attr, "1e-5f">:$epsilon,
                   DefaultValuedAttr<F32Attr, "0.9f">:$momentum,
                   DefaultValuedAttr<I64Attr, "0">:$training_mode);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferBatchNorm(loc, adaptor, types);
  }];
}

def Graph_LayerNormalizationOp : Graph_Op<"LayerNormalization"> {
  let summary = "ONNX LayerNormalization (Mean/InvStdDev outputs not modelled)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$Scale, Graph_TensorOrNone:$B,
                   DefaultValuedAttr<SI64Attr, "-1">:$axis,
                   DefaultValuedAttr<F32Attr, "1e-5f">:$epsilon,
                   DefaultValuedAttr<SI64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferLayerNorm(loc, adaptor, types);
  }];
}

def Graph_InstanceNormalizationOp : Graph_Op<"InstanceNormalization"> {
  let arguments = (ins Graph_FloatTensor:$input, AnyTensor:$scale,
                   AnyTensor:$B, DefaultValuedAttr<F32Attr, "1e-5f">:$epsilon);
  let results = (outs AnyTensor:$output);
  let inferBody = [{ return ::kiln::graph::inferSameAs(adaptor.getInput(), types); }];
}

def Graph_LRNOp : Graph_Op<"LRN"> {
  let summary = "ONNX LRN: x / (bias + alpha / size * sum of squares)^beta";
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<F32Attr, "0.0001f">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.75f">:$beta,
                   DefaultValuedAttr<F32Attr, "1.0f">:$bias, I64Attr:$size);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferSameAs(adaptor.getX(), types); }];
}

def Graph_SoftmaxOp : Graph_Op<"Softmax"> {
  let arguments = (ins Graph_FloatTensor:$input,
                   DefaultValuedAttr<SI64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferAxisPreserving(loc, adaptor.getInput(),
                                              adaptor.getAxis(), types);
  }];
}

def Graph_LogSoftmaxOp : Graph_Op<"LogSoftmax"> {
  let arguments = (ins Graph_FloatTensor:$input,
                   DefaultValuedAttr<SI64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferAxisPreserving(loc, adaptor.getInput(),
                                              adaptor.getAxis(), types);
  }];
}

//===----------------------------------------------------------------------===//
// Reductions (opset 18 form: axes is an optional input)
//===----------------------------------------------------------------------===//

class Graph_ReduceOp<string mnemonic> : Graph_Op<mnemonic> {
  let arguments = (ins AnyTensor:$data, Graph_TensorOrNone:$axes,
                   DefaultValuedAttr<I64Attr, "1">:$keepdims,
                   DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let inferBody = [{ return ::kiln::graph::inferReduce(loc, adaptor, types); }];
}

def Graph_ReduceMeanOp : Graph_ReduceOp<"ReduceMean">;
def Graph_ReduceSumOp : Graph_ReduceOp<"ReduceSum">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"ReduceMax">;
def Graph_ReduceMinOp : Graph_ReduceOp<"ReduceMin">;
def Graph_ReduceProdOp : Graph_ReduceOp<"ReduceProd">;
def Graph_ReduceL1Op : Graph_ReduceOp<"ReduceL1">;
def Graph_ReduceL2Op : Graph_ReduceOp<"ReduceL2">;
def Graph_ReduceLogSumOp : Graph_ReduceOp<"ReduceLogSum">;
def Graph_ReduceLogSumExpOp : Graph_ReduceOp<"ReduceLogSumExp">;
def Graph_ReduceSumSquareOp : Graph_ReduceOp<"ReduceSumSquare">;

// ArgMax/ArgMin: int64 indices of the first (or last) extreme along `axis`.
class Graph_ArgReduceOp<string mnemonic> : Graph_Op<mnemonic> {
  let arguments = (ins AnyTensor:$data, DefaultValuedAttr<SI64Attr, "0">:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$keepdims,
                   DefaultValuedAttr<I64Attr, "0">:$select_last_index);
  let results = (outs TensorOf<[I64]>:$reduced);
  let inferBody = [{
    return ::kiln::graph::inferArgReduce(loc, adaptor.getData(),
        adaptor.getAxis(), adaptor.getKeepdims() != 0, types);
  }];
}
def Graph_ArgMaxOp : Graph_ArgReduceOp<"ArgMax">;
def Graph_ArgMinOp : Graph_ArgReduceOp<"ArgMin">;

def Graph_HardmaxOp : Graph_Op<"Hardmax"> {
  let summary = "ONNX Hardmax: 1 at the first maximum along `axis`, else 0";
  let arguments = (ins Graph_FloatTensor:$input,
                   DefaultValuedAttr<SI64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let inferBody = [{
    return ::kiln::graph::inferAxisPreserving(loc, adaptor.getInput(),
                                              adaptor.getAxis(), types);
  }];
}

include "dialects/graph/FusedOps.td"

#endif // KILN_GRAPH_OPS
