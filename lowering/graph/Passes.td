//===- Passes.td - Graph-level kiln passes -----------------*- tablegen -*-===//
#ifndef KILN_LOWERING_GRAPH_PASSES
#define KILN_LOWERING_GRAPH_PASSES

include "mlir/Pass/PassBase.td"

def RefineShapes : Pass<"kiln-refine-shapes", "mlir::func::FuncOp"> {
  let summary = "Re-run shape inference and tighten result types";
  let description = [{
    After constant folding makes shape inputs constant (Reshape targets,
    Slice bounds, ...), re-infers every kiln_graph op's result types in
    program order and adopts them where they are more static, then tightens
    the function's result types. Repeats folding and refinement until
    nothing changes.
  }];
}

def FoldBatchNorm : Pass<"kiln-fold-batchnorm", "mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNormalization into the preceding op";
  let description = [{
    A BatchNormalization with constant scale, B, mean and var is a
    per-channel affine map. When it follows a Conv, ConvTranspose or Gemm
    with a constant weight and no other user, the map is folded into that
    op's weight and bias; otherwise it becomes Mul and Add by precomputed
    per-channel constants. A Mul or Add by a per-channel or scalar constant
    right after such a producer folds the same way. Arithmetic is done in
    double at compile time.
  }];
}

def FuseEpilogue : Pass<"kiln-fuse-epilogue", "mlir::func::FuncOp"> {
  let summary = "Fuse activations and biases into Conv and MatMul";
  let description = [{
    A Conv whose result only feeds an activation becomes a
    `kiln_graph.FusedConv`; a MatMul followed by an Add of a constant 1-D
    bias along its last dim, by an activation, or by both, becomes a
    `kiln_graph.FusedMatMul`. Activations: Relu, LeakyRelu, Clip with
    constant bounds, HardSigmoid, Sigmoid, Tanh, exact Gelu, and the
    decomposed HardSwish (x * Clip(x + 3, 0, 6) / 6, x * HardSigmoid(x; 1/6,
    1/2)) and exact GELU (x * (Erf(x / sqrt 2) + 1) * 0.5) subgraphs that
    exporters emit. Code generation applies the epilogue to the
    contraction's result block by block.
  }];
}

def ShareConcatPrefixes
    : Pass<"kiln-share-concat-prefixes", "mlir::func::FuncOp"> {
  let summary = "Concats whose leading inputs are an earlier concat's take it";
  let description = [{
    Concat(f0, f1, f2) after Concat(f0, f1) along the same axis becomes
    Concat(Concat(f0, f1), f2), the longest such earlier concat taken. A
    DenseNet block then holds one chain of concats, each a leading slice of
    the next, which bufferizes in place: each feature map is written once
    instead of once per later layer.
  }];
}

def FoldConstants : Pass<"kiln-fold-constants", "mlir::func::FuncOp"> {
  let summary = "Evaluate float ops and layout changes on constant weights";
  let description = [{
    Replaces float elementwise ops (Add, Sub, Mul, Div, Pow, Neg, Abs, Sqrt,
    Exp, Log, Cast to a float type) whose inputs are all constants, and
    Transpose, Reshape, Flatten, Squeeze and Unsqueeze of constants, by a
    kiln_graph.Constant. Reads and creates resource blobs; results over
    64 Mi elements, or broadcasts far larger than their inputs, are left.
    A Gemm with transB = 1 and a constant B gets B transposed once here
    (transB = 0), so that its kernel reads B along rows.
  }];
}

def FuseQuantizedContractions
    : Pass<"kiln-fuse-quantized-contractions", "mlir::func::FuncOp"> {
  let summary = "QDQ Conv and MatMul to integer contractions";
  let description = [{
    Conv, FusedConv, MatMul, FusedMatMul and Gemm whose input is a
    per-tensor DequantizeLinear of 8-bit values and whose weight is a
    DequantizeLinear of a constant int8 tensor (zero zero points, scales
    per tensor or per output channel) become `kiln_graph.QuantizedConv` /
    `QuantizedMatMul`, computed in 32-bit integers; a per-tensor
    QuantizeLinear that is the only user of the result joins the op, which
    then writes 8-bit values. Shapes must be static and convolutions 2-D and
    ungrouped; anything else stays float. The pipeline runs this pass only
    for targets with an 8-bit dot-product instruction.
  }];
}

def ConvertLayout : Pass<"kiln-convert-layout", "mlir::func::FuncOp"> {
  let summary = "Run convolutions channels-last and cancel layout conversions";
  let description = [{
    With `layout=nhwc`, 2-D Convs and FusedConvs that are ungrouped or
    depthwise become `kiln_kernel.conv_2d_nhwc` (a FusedConv's activation
    as its epilogue) between an NCHW->NHWC and an NHWC->NCHW
    Transpose, with constant weights rearranged (HWCF, or HWC for
    depthwise) at compile time. The NHWC->NCHW transposes are then sunk
    through layout-agnostic ops (elementwise ops and activations, Add/Sub/
    Mul/Div of two transposed values or with a constant re-laid at compile
    time, Concat, GlobalAveragePool) so that inverse pairs meet and cancel;
    conversions remain only at graph inputs and outputs and around ops that
    need NCHW. QuantizedConvs (whose integer kernel is channels-last)
    become channels-last the same way under either layout, and the
    transposes are also sunk through per-tensor QuantizeLinear and
    DequantizeLinear; otherwise `layout=nchw` (the default) leaves the
    function unchanged.
  }];
  let options = [
    Option<"layout", "layout", "std::string", "\"nchw\"",
           "Convolution activation layout: nchw or nhwc">,
  ];
  let dependentDialects = ["kiln::kernel::KernelDialect"];
}

def ReducePrecision : Pass<"kiln-reduce-precision", "mlir::func::FuncOp"> {
  let summary = "Mark convolutions and matrix products for bf16 or f16";
  let description = [{
    For `kiln compile --precision bf16|fp16`, after kiln-convert-layout:
    every static f32 `kiln_kernel.conv_2d_nhwc` that is not depthwise and
    every static f32 MatMul, FusedMatMul and Gemm (transA = 0, beta = 1, C
    absent or one per column) whose weight is a constant 2-D tensor gets
    `kiln.compute_type` = bf16 or f16 (dialects/graph/ComputeType.h): its
    inputs and weight are rounded to that type, products are summed in f32.
    Depthwise convolutions (memory-bound), normalization, softmax,
    reductions and every other op stay f32, and so do products of two
    computed tensors (attention scores).
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"bf16\"",
           "Reduced precision: bf16 or fp16">,
  ];
}

def AnnotateProfile : Pass<"kiln-annotate-profile", "mlir::ModuleOp"> {
  let summary = "Record each ONNX node's op type, fused ops and FLOPs";
  let description = [{
    For `kiln compile --profile`: writes `kiln.profile.nodes` on the module,
    a dictionary from ONNX node name (the first name in an op's location) to
    `{op, fused, flops}`: the ONNX op type (FusedConv and
    kiln_kernel.conv_2d_nhwc are Conv), what graph passes fused into it
    (`bias`, the activation) and its floating-point operations (2 per
    multiply-add of Conv, ConvTranspose, MatMul and Gemm; 0 for other ops
    and for dynamic shapes). The library's kernel table is written from it.
  }];
}

#endif // KILN_LOWERING_GRAPH_PASSES
