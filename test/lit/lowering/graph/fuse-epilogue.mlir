// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-fuse-epilogue))' -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @conv_relu
//       CHECK: %[[F:.*]] = kiln_graph.FusedConv %arg0, %arg1, %arg2 {activation = "Relu", pads = array<i64: 1, 1, 1, 1>}
//   CHECK-NOT: kiln_graph.Relu
//       CHECK: return %[[F]]
func.func @conv_relu(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %c = kiln_graph.Conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = kiln_graph.Relu %c : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// Clip's bounds become the parameters; an absent max is +inf.
// CHECK-LABEL: func.func @conv_clip
//       CHECK: kiln_graph.FusedConv {{.*}} {activation = "Clip", activation_params = array<f32: 0.000000e+00, 0x7F800000>}
func.func @conv_clip(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %lo = kiln_graph.Constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = kiln_graph.Clip %c, %lo, %n : (tensor<1x8x8x8xf32>, tensor<f32>, none) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// HardSwish as PaddleOCR exports it: x * Clip(x + 3, 0, 6) / 6.
// CHECK-LABEL: func.func @conv_hardswish
//       CHECK: %[[F:.*]] = kiln_graph.FusedConv {{.*}} {activation = "HardSwish"}
//   CHECK-NOT: kiln_graph.Clip
//   CHECK-NOT: kiln_graph.Div
//       CHECK: return %[[F]]
func.func @conv_hardswish(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %three = kiln_graph.Constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %zero = kiln_graph.Constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %six = kiln_graph.Constant {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %a = kiln_graph.Add %c, %three : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
  %k = kiln_graph.Clip %a, %zero, %six : (tensor<1x8x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x8x8xf32>
  %m = kiln_graph.Mul %c, %k : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %d = kiln_graph.Div %m, %six : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
  return %d : tensor<1x8x8x8xf32>
}

// -----

// HardSwish as x * HardSigmoid(x; 1/6, 1/2), the product in either order.
// CHECK-LABEL: func.func @conv_hardswish_hardsigmoid
//       CHECK: kiln_graph.FusedConv {{.*}} {activation = "HardSwish"
func.func @conv_hardswish_hardsigmoid(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %h = kiln_graph.HardSigmoid %c {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %m = kiln_graph.Mul %h, %c : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %m : tensor<1x8x8x8xf32>
}

// -----

// The conv result is also returned: nothing to fuse.
// CHECK-LABEL: func.func @conv_two_uses
//   CHECK-NOT: kiln_graph.FusedConv
//       CHECK: kiln_graph.Relu
func.func @conv_two_uses(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = kiln_graph.Relu %c : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r, %c : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// A transformer MLP: MatMul + bias + the exact GELU subgraph PyTorch
// exports, x * (Erf(x / sqrt 2) + 1) * 0.5.
// CHECK-LABEL: func.func @matmul_bias_gelu
//       CHECK: %[[B:.*]] = kiln_graph.Constant
//       CHECK: %[[F:.*]] = kiln_graph.FusedMatMul %arg0, %arg1, %[[B]] {activation = "Gelu"}
//   CHECK-NOT: kiln_graph.Erf
//       CHECK: return %[[F]]
func.func @matmul_bias_gelu(%x: tensor<2x3x4xf32>, %w: tensor<4x6xf32>) -> tensor<2x3x6xf32> {
  %bias = kiln_graph.Constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>} : () -> tensor<6xf32>
  %sqrt2 = kiln_graph.Constant {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = kiln_graph.Constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %m = kiln_graph.MatMul %x, %w : (tensor<2x3x4xf32>, tensor<4x6xf32>) -> tensor<2x3x6xf32>
  %y = kiln_graph.Add %m, %bias : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  %d = kiln_graph.Div %y, %sqrt2 : (tensor<2x3x6xf32>, tensor<f32>) -> tensor<2x3x6xf32>
  %e = kiln_graph.Erf %d : (tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %p = kiln_graph.Add %e, %one : (tensor<2x3x6xf32>, tensor<f32>) -> tensor<2x3x6xf32>
  %q = kiln_graph.Mul %y, %p : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %r = kiln_graph.Mul %q, %half : (tensor<2x3x6xf32>, tensor<f32>) -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// -----

// GELU with the half taken first, (x * 0.5) * (Erf(x * 1/sqrt 2) + 1); no
// bias (the Add's operand is not a constant).
// CHECK-LABEL: func.func @matmul_gelu_half_first
//       CHECK: %[[N:.*]] = kiln_graph.NoValue : none
//       CHECK: %[[F:.*]] = kiln_graph.FusedMatMul %arg0, %arg1, %[[N]] {activation = "Gelu"
//       CHECK: return %[[F]]
func.func @matmul_gelu_half_first(%x: tensor<3x4xf32>, %w: tensor<4x6xf32>) -> tensor<3x6xf32> {
  %rsqrt2 = kiln_graph.Constant {value = dense<0.707106769> : tensor<f32>} : () -> tensor<f32>
  %one = kiln_graph.Constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %y = kiln_graph.MatMul %x, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %h = kiln_graph.Mul %y, %half : (tensor<3x6xf32>, tensor<f32>) -> tensor<3x6xf32>
  %d = kiln_graph.Mul %y, %rsqrt2 : (tensor<3x6xf32>, tensor<f32>) -> tensor<3x6xf32>
  %e = kiln_graph.Erf %d : (tensor<3x6xf32>) -> tensor<3x6xf32>
  %p = kiln_graph.Add %e, %one : (tensor<3x6xf32>, tensor<f32>) -> tensor<3x6xf32>
  %r = kiln_graph.Mul %h, %p : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// -----

// A residual Add of two computed values is not a bias.
// CHECK-LABEL: func.func @matmul_not_bias
//   CHECK-NOT: kiln_graph.FusedMatMul
//       CHECK: kiln_graph.Add
func.func @matmul_not_bias(%x: tensor<3x4xf32>, %w: tensor<4x6xf32>, %r: tensor<3x6xf32>) -> tensor<3x6xf32> {
  %y = kiln_graph.MatMul %x, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %a = kiln_graph.Add %y, %r : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  return %a : tensor<3x6xf32>
}

// -----

// Bias, then Relu: one FusedMatMul.
// CHECK-LABEL: func.func @matmul_bias_relu
//       CHECK: kiln_graph.FusedMatMul %arg0, %arg1, %[[B:.*]] {activation = "Relu"
//   CHECK-NOT: kiln_graph.Relu
func.func @matmul_bias_relu(%x: tensor<3x4xf32>, %w: tensor<4x6xf32>) -> tensor<3x6xf32> {
  %b = kiln_graph.Constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>} : () -> tensor<6xf32>
  %y = kiln_graph.MatMul %x, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %a = kiln_graph.Add %b, %y : (tensor<6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  %r = kiln_graph.Relu %a : (tensor<3x6xf32>) -> tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// -----

// The ONNX HardSwish op (opset 14) fuses like its decomposed form.
// CHECK-LABEL: func.func @conv_hardswish_op
//       CHECK: %[[F:.*]] = kiln_graph.FusedConv %arg0, %arg1, %arg2 {activation = "HardSwish"}
//   CHECK-NOT: kiln_graph.HardSwish
//       CHECK: return %[[F]]
func.func @conv_hardswish_op(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %h = kiln_graph.HardSwish %c : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %h : tensor<1x8x8x8xf32>
}

// -----

// SiLU as exporters write it, x * Sigmoid(x), in either operand order.
// CHECK-LABEL: func.func @conv_silu
//       CHECK: %[[F:.*]] = kiln_graph.FusedConv {{.*}} {activation = "Swish"}
//   CHECK-NOT: kiln_graph.Sigmoid
//   CHECK-NOT: kiln_graph.Mul
//       CHECK: return %[[F]]
func.func @conv_silu(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %s = kiln_graph.Sigmoid %c : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %m = kiln_graph.Mul %s, %c : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %m : tensor<1x8x8x8xf32>
}

// -----

// The Sigmoid has another user: nothing to fuse, as the Sigmoid stays.
// CHECK-LABEL: func.func @conv_silu_shared_sigmoid
//       CHECK: kiln_graph.Conv
//       CHECK: kiln_graph.Sigmoid
//       CHECK: kiln_graph.Mul
func.func @conv_silu_shared_sigmoid(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %s = kiln_graph.Sigmoid %c : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %m = kiln_graph.Mul %c, %s : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %m, %s : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}
