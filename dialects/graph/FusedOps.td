//===- FusedOps.td - kiln.graph ops made by graph fusion ---*- tablegen -*-===//
//
// Not ONNX operators: graph passes create these by fusing a contraction with
// the ops that follow it, so that code generation can apply them to the
// contraction's result while it is still in registers or cache. The
// activation is named as in ONNX Runtime's com.microsoft FusedConv (see
// dialects/graph/Activation.h).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_FUSED_OPS
#define KILN_GRAPH_FUSED_OPS

def Graph_FusedConvOp : Graph_Op<"FusedConv"> {
  let summary = "Conv, then an activation";
  let description = [{
    `activation(Conv(X, W, B))` with Conv's attributes and semantics;
    `activation` is one of Relu, LeakyRelu (alpha), Clip (min, max),
    HardSigmoid (alpha, beta), HardSwish, Sigmoid, Tanh, Gelu, Swish
    (x * Sigmoid(x)), with its float
    attributes in `activation_params`.
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, Graph_TensorOrNone:$B,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   StrAttr:$activation,
                   DefaultValuedAttr<DenseF32ArrayAttr, "{}">:$activation_params);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferFusedConv(loc, adaptor, types);
  }];
}

def Graph_FusedMatMulOp : Graph_Op<"FusedMatMul"> {
  let summary = "MatMul, plus a bias along the last dim, then an activation";
  let description = [{
    `activation(MatMul(A, B) + Bias)`: numpy.matmul semantics for A and B,
    an optional 1-D Bias of the result's last dim, and an optional
    activation (empty: none) as in FusedConv.
  }];
  let arguments = (ins AnyTensor:$A, AnyTensor:$B, Graph_TensorOrNone:$Bias,
                   DefaultValuedAttr<StrAttr, "\"\"">:$activation,
                   DefaultValuedAttr<DenseF32ArrayAttr, "{}">:$activation_params);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferFusedMatMul(loc, adaptor, types);
  }];
}

// Integer contractions: the fusion of DequantizeLinear inputs, a Conv or
// MatMul and (optionally) a QuantizeLinear of its result, made only for
// targets with an 8-bit dot-product instruction (kiln-fuse-quantized-
// contractions). The quantization parameters are attributes: the pass only
// fuses constant ones.
class Graph_QuantizedContractionOp<string mnemonic>
    : Graph_Op<mnemonic> {
  code commonDescription = [{
    X holds 8-bit integers (ui8 or i8) with `x_scale` and `x_zero_point`;
    W is a constant i8 weight with a zero zero point and `w_scales`, one
    per tensor or one per output channel. The product is computed exactly in
    32-bit integers, then `y = activation(float(acc) * x_scale * w_scale +
    B)` in f32. Without `quantized_type` the result is that f32; with it, y
    is quantized as QuantizeLinear does (round half to even, then add
    `y_zero_point` and saturate) to `quantized_type` (ui8 or i8).
  }];
}

def Graph_QuantizedConvOp : Graph_QuantizedContractionOp<"QuantizedConv"> {
  let summary = "DequantizeLinear, Conv (2-D, ungrouped), QuantizeLinear";
  let description = commonDescription # [{

    W is [F, C, KH, KW]; B (f32, optional) has F entries. `pads` are
    [top, left, bottom, right]; padding reads the value X's zero point
    stands for (0.0). With `channels_last`, X and the result are NHWC
    instead of NCHW.
  }];
  let arguments = (ins AnyRankedTensor:$X, AnyRankedTensor:$W,
                   Graph_TensorOrNone:$B, F32Attr:$x_scale,
                   I64Attr:$x_zero_point, DenseF32ArrayAttr:$w_scales,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<StrAttr, "\"\"">:$activation,
                   DefaultValuedAttr<DenseF32ArrayAttr, "{}">:$activation_params,
                   OptionalAttr<TypeAttr>:$quantized_type,
                   DefaultValuedAttr<F32Attr, "1.0f">:$y_scale,
                   DefaultValuedAttr<I64Attr, "0">:$y_zero_point,
                   DefaultValuedAttr<BoolAttr, "false">:$channels_last);
  let results = (outs AnyRankedTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferQuantizedConv(loc, adaptor, types);
  }];
}

def Graph_QuantizedMatMulOp : Graph_QuantizedContractionOp<"QuantizedMatMul"> {
  let summary = "DequantizeLinear, MatMul by a constant matrix, QuantizeLinear";
  let description = commonDescription # [{

    X is [..., K], W is [K, N] and B (f32, optional) has N entries; the
    result is [..., N].
  }];
  let arguments = (ins AnyRankedTensor:$X, AnyRankedTensor:$W,
                   Graph_TensorOrNone:$B, F32Attr:$x_scale,
                   I64Attr:$x_zero_point, DenseF32ArrayAttr:$w_scales,
                   DefaultValuedAttr<StrAttr, "\"\"">:$activation,
                   DefaultValuedAttr<DenseF32ArrayAttr, "{}">:$activation_params,
                   OptionalAttr<TypeAttr>:$quantized_type,
                   DefaultValuedAttr<F32Attr, "1.0f">:$y_scale,
                   DefaultValuedAttr<I64Attr, "0">:$y_zero_point);
  let results = (outs AnyRankedTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferQuantizedMatMul(loc, adaptor, types);
  }];
}

#endif // KILN_GRAPH_FUSED_OPS
