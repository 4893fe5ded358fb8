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

#endif // KILN_GRAPH_FUSED_OPS
