// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-fuse-quantized-contractions))' -split-input-file | FileCheck %s

// DQ(u8) -> FusedConv(DQ(i8 weight, per channel), bias) -> Q: one integer
// convolution writing u8. The ui8 zero point reads as 128, not -128.
// CHECK-LABEL: func.func @conv_relu_quantized
//       CHECK: %[[Y:.*]] = kiln_graph.QuantizedConv %arg0, %{{.*}}, %{{.*}} {activation = "Relu", dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, quantized_type = ui8, strides = array<i64: 1, 1>, w_scales = array<f32: 5.000000e-01, 2.500000e-01>, x_scale = 2.000000e-02 : f32, x_zero_point = 128 : i64, y_scale = 5.000000e-02 : f32, y_zero_point = 3 : i64} : (tensor<1x4x8x8xui8>, tensor<2x4x3x3xi8>, tensor<2xf32>) -> tensor<1x2x8x8xui8>
//   CHECK-NOT: kiln_graph.QuantizeLinear
//   CHECK-NOT: kiln_graph.DequantizeLinear
//       CHECK: return %[[Y]]
func.func @conv_relu_quantized(%xq: tensor<1x4x8x8xui8>) -> tensor<1x2x8x8xui8> {
  %xs = kiln_graph.Constant {value = dense<0.02> : tensor<f32>} : () -> tensor<f32>
  %xz = kiln_graph.Constant {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %w = kiln_graph.Constant {value = dense<3> : tensor<2x4x3x3xi8>} : () -> tensor<2x4x3x3xi8>
  %ws = kiln_graph.Constant {value = dense<[0.5, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %ys = kiln_graph.Constant {value = dense<0.05> : tensor<f32>} : () -> tensor<f32>
  %yz = kiln_graph.Constant {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %n = kiln_graph.NoValue : none
  %x = kiln_graph.DequantizeLinear %xq, %xs, %xz : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %wd = kiln_graph.DequantizeLinear %w, %ws, %n {axis = 0 : si64} : (tensor<2x4x3x3xi8>, tensor<2xf32>, none) -> tensor<2x4x3x3xf32>
  %c = kiln_graph.FusedConv %x, %wd, %b {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %y = kiln_graph.QuantizeLinear %c, %ys, %yz : (tensor<1x2x8x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xui8>
  return %y : tensor<1x2x8x8xui8>
}

// -----

// A result with a second user stays f32 (the Q is not folded); Gemm with
// transB gets its weight transposed at compile time.
// CHECK-LABEL: func.func @gemm_float_result
//       CHECK: %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi8>}
//       CHECK: %[[Y:.*]] = kiln_graph.QuantizedMatMul %arg0, %[[W]], %{{.*}} {w_scales = array<f32: 1.000000e-01>, x_scale = 5.000000e-01 : f32, x_zero_point = -3 : i64} : (tensor<4x3xi8>, tensor<3x2xi8>, none) -> tensor<4x2xf32>
//       CHECK: kiln_graph.QuantizeLinear %[[Y]]
//       CHECK: return %[[Y]],
func.func @gemm_float_result(%xq: tensor<4x3xi8>) -> (tensor<4x2xf32>, tensor<4x2xi8>) {
  %xs = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = kiln_graph.Constant {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %w = kiln_graph.Constant {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>} : () -> tensor<2x3xi8>
  %ws = kiln_graph.Constant {value = dense<0.1> : tensor<f32>} : () -> tensor<f32>
  %n = kiln_graph.NoValue : none
  %x = kiln_graph.DequantizeLinear %xq, %xs, %xz : (tensor<4x3xi8>, tensor<f32>, tensor<i8>) -> tensor<4x3xf32>
  %wd = kiln_graph.DequantizeLinear %w, %ws, %n : (tensor<2x3xi8>, tensor<f32>, none) -> tensor<2x3xf32>
  %y = kiln_graph.Gemm %x, %wd, %n {transB = 1 : i64} : (tensor<4x3xf32>, tensor<2x3xf32>, none) -> tensor<4x2xf32>
  %q = kiln_graph.QuantizeLinear %y, %xs, %xz : (tensor<4x2xf32>, tensor<f32>, tensor<i8>) -> tensor<4x2xi8>
  return %y, %q : tensor<4x2xf32>, tensor<4x2xi8>
}

// -----

// Left in float: a weight with a non-zero zero point, a grouped
// convolution, and per-channel activation scales.
// CHECK-LABEL: func.func @not_fused
//   CHECK-NOT: kiln_graph.Quantized
//       CHECK: kiln_graph.MatMul
//       CHECK: kiln_graph.Conv
//       CHECK: kiln_graph.MatMul
func.func @not_fused(%aq: tensor<2x4xui8>, %xq: tensor<1x4x5x5xui8>) -> (tensor<2x4xf32>, tensor<1x4x3x3xf32>, tensor<2x4xf32>) {
  %s = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = kiln_graph.Constant {value = dense<1> : tensor<ui8>} : () -> tensor<ui8>
  %wz = kiln_graph.Constant {value = dense<1> : tensor<i8>} : () -> tensor<i8>
  %s4 = kiln_graph.Constant {value = dense<[0.5, 0.5, 0.25, 0.25]> : tensor<4xf32>} : () -> tensor<4xf32>
  %w = kiln_graph.Constant {value = dense<2> : tensor<4x4xi8>} : () -> tensor<4x4xi8>
  %wc = kiln_graph.Constant {value = dense<2> : tensor<4x2x3x3xi8>} : () -> tensor<4x2x3x3xi8>
  %n = kiln_graph.NoValue : none
  %a = kiln_graph.DequantizeLinear %aq, %s, %z : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
  %wd = kiln_graph.DequantizeLinear %w, %s, %wz : (tensor<4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<4x4xf32>
  %m = kiln_graph.MatMul %a, %wd : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %x = kiln_graph.DequantizeLinear %xq, %s, %z : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x5x5xf32>
  %wcd = kiln_graph.DequantizeLinear %wc, %s, %n : (tensor<4x2x3x3xi8>, tensor<f32>, none) -> tensor<4x2x3x3xf32>
  %c = kiln_graph.Conv %x, %wcd, %n {group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, none) -> tensor<1x4x3x3xf32>
  %ac = kiln_graph.DequantizeLinear %aq, %s4, %z {axis = 1 : si64} : (tensor<2x4xui8>, tensor<4xf32>, tensor<ui8>) -> tensor<2x4xf32>
  %w0 = kiln_graph.DequantizeLinear %w, %s, %n : (tensor<4x4xi8>, tensor<f32>, none) -> tensor<4x4xf32>
  %m2 = kiln_graph.MatMul %ac, %w0 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %m, %c, %m2 : tensor<2x4xf32>, tensor<1x4x3x3xf32>, tensor<2x4xf32>
}

// -----

// The depthwise weight the integer ops leave is dequantized at compile time
// (per channel along axis 0: (q - 0) * scale).
// CHECK-LABEL: func.func @depthwise_weight_folded
//       CHECK: %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}-1.000000e+00]]]]> : tensor<2x1x1x1xf32>}
//   CHECK-NOT: kiln_graph.DequantizeLinear %{{.*}}, %{{.*}}, %{{.*}} {axis
//       CHECK: kiln_graph.Conv %{{.*}}, %[[W]]
func.func @depthwise_weight_folded(%xq: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xf32> {
  %xs = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = kiln_graph.Constant {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %w = kiln_graph.Constant {value = dense<[[[[4]]], [[[-8]]]]> : tensor<2x1x1x1xi8>} : () -> tensor<2x1x1x1xi8>
  %ws = kiln_graph.Constant {value = dense<[0.25, 0.125]> : tensor<2xf32>} : () -> tensor<2xf32>
  %n = kiln_graph.NoValue : none
  %x = kiln_graph.DequantizeLinear %xq, %xs, %xz : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %wd = kiln_graph.DequantizeLinear %w, %ws, %n {axis = 0 : si64} : (tensor<2x1x1x1xi8>, tensor<2xf32>, none) -> tensor<2x1x1x1xf32>
  %c = kiln_graph.Conv %x, %wd, %n {group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return %c : tensor<1x2x4x4xf32>
}
