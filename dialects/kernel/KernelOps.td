//===- KernelOps.td - kiln.kernel operations ---------------*- tablegen -*-===//
#ifndef KILN_KERNEL_OPS
#define KILN_KERNEL_OPS

include "dialects/kernel/KernelDialect.td"

def Kernel_Conv2DNhwcOp
    : Kernel_Op<"conv_2d_nhwc", [InferTypeOpAdaptor]> {
  let summary = "2-D convolution on channels-last activations";
  let description = [{
    `input` is [N, H, W, C]. With `group` = 1 the filter is HWCF
    ([KH, KW, C, F]); a depthwise convolution has `group` = C and a HWC
    filter ([KH, KW, C], one output channel per input channel). The
    optional `bias` has one entry per output channel. `pads` are
    [top, left, bottom, right] (ONNX order), applied with zeros. The result
    is [N, OH, OW, F] with OH = (H + top + bottom - (KH - 1) * dh - 1) / sh
    + 1 and likewise OW.

    `activation` and `activation_params` name an activation applied to the
    result, as in `kiln_graph.FusedConv` (ONNX Runtime's com.microsoft
    FusedConv; see dialects/graph/Activation.h): Relu, LeakyRelu (alpha),
    Clip (min, max), HardSigmoid (alpha, beta), HardSwish, Sigmoid, Tanh,
    Gelu.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$filter,
                   Optional<AnyRankedTensor>:$bias,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   OptionalAttr<StrAttr>:$activation,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_params);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True for the depthwise form (HWC filter, group = C).
    bool isDepthwise() { return getFilter().getType().getRank() == 3; }
  }];
}

def Kernel_MaxPool2DNhwcOp
    : Kernel_Op<"max_pool_2d_nhwc", [InferTypeOpAdaptor]> {
  let summary = "2-D max pooling on channels-last activations";
  let description = [{
    `input` is [N, H, W, C]; the result is [N, OH, OW, C], the maximum over
    each `kernel` window (with `strides` and `dilations`). `pads` are [top,
    left, bottom, right] and never win the maximum (they read the lowest
    value of the element type); ONNX MaxPool's ceil_mode is expressed as
    extra bottom/right padding. OH = (H + top + bottom - (KH - 1) * dh - 1)
    / sh + 1 and likewise OW.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                   DenseI64ArrayAttr:$kernel,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

#endif // KILN_KERNEL_OPS
