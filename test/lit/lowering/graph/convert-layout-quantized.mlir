// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-convert-layout),cse)' -split-input-file | FileCheck %s

// Quantized convolutions go channels-last even with the default nchw
// layout: between two of them, through a per-tensor DequantizeLinear, a
// Relu and a QuantizeLinear, the transposes cancel; one remains at the
// input and one at the output.
// CHECK-LABEL: func.func @two_quantized_convs
//       CHECK: %[[T:.*]] = kiln_graph.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
//       CHECK: %[[C1:.*]] = kiln_graph.QuantizedConv %[[T]], {{.*}}channels_last = true{{.*}} -> tensor<1x8x8x4xui8>
//       CHECK: %[[D:.*]] = kiln_graph.DequantizeLinear %[[C1]], {{.*}} -> tensor<1x8x8x4xf32>
//       CHECK: %[[R:.*]] = kiln_graph.Relu %[[D]] {{.*}} -> tensor<1x8x8x4xf32>
//       CHECK: %[[Q:.*]] = kiln_graph.QuantizeLinear %[[R]], {{.*}} -> tensor<1x8x8x4xui8>
//       CHECK: %[[C2:.*]] = kiln_graph.QuantizedConv %[[Q]], {{.*}}channels_last = true{{.*}} -> tensor<1x8x8x4xf32>
//       CHECK: %[[O:.*]] = kiln_graph.Transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>}
//       CHECK: return %[[O]]
func.func @two_quantized_convs(%x: tensor<1x4x8x8xui8>) -> tensor<1x4x8x8xf32> {
  %s = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = kiln_graph.Constant {value = dense<7> : tensor<ui8>} : () -> tensor<ui8>
  %w = kiln_graph.Constant {value = dense<1> : tensor<4x4x3x3xi8>} : () -> tensor<4x4x3x3xi8>
  %n = kiln_graph.NoValue : none
  %c1 = kiln_graph.QuantizedConv %x, %w, %n {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, quantized_type = ui8, strides = array<i64: 1, 1>, w_scales = array<f32: 0.25>, x_scale = 0.5 : f32, x_zero_point = 7 : i64, y_scale = 0.5 : f32, y_zero_point = 7 : i64} : (tensor<1x4x8x8xui8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x8x8xui8>
  %d = kiln_graph.DequantizeLinear %c1, %s, %z : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %r = kiln_graph.Relu %d : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %q = kiln_graph.QuantizeLinear %r, %s, %z : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xui8>
  %c2 = kiln_graph.QuantizedConv %q, %w, %n {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, w_scales = array<f32: 0.25>, x_scale = 0.5 : f32, x_zero_point = 7 : i64} : (tensor<1x4x8x8xui8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x8x8xf32>
  return %c2 : tensor<1x4x8x8xf32>
}

// -----

// Without quantized convolutions the nchw layout changes nothing, not even
// a model's own NHWC->NCHW transpose.
// CHECK-LABEL: func.func @float_model
//       CHECK: %[[T:.*]] = kiln_graph.Transpose %arg0 {perm = array<i64: 0, 3, 1, 2>}
//       CHECK: kiln_graph.Relu %[[T]]
func.func @float_model(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32> {
  %t = kiln_graph.Transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
  %r = kiln_graph.Relu %t : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// A float depthwise convolution next to a quantized one runs channels-last
// too: no transpose between them.
// CHECK-LABEL: func.func @depthwise_between
//       CHECK: kiln_graph.QuantizedConv {{.*}}channels_last = true
//       CHECK: %[[D:.*]] = kiln_graph.DequantizeLinear
//   CHECK-NOT: kiln_graph.Transpose
//       CHECK: kiln_kernel.conv_2d_nhwc %[[D]]
func.func @depthwise_between(%x: tensor<1x4x8x8xui8>) -> tensor<1x4x8x8xf32> {
  %s = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = kiln_graph.Constant {value = dense<7> : tensor<ui8>} : () -> tensor<ui8>
  %w = kiln_graph.Constant {value = dense<1> : tensor<4x4x1x1xi8>} : () -> tensor<4x4x1x1xi8>
  %dw = kiln_graph.Constant {value = dense<0.5> : tensor<4x1x3x3xf32>} : () -> tensor<4x1x3x3xf32>
  %n = kiln_graph.NoValue : none
  %c1 = kiln_graph.QuantizedConv %x, %w, %n {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, quantized_type = ui8, strides = array<i64: 1, 1>, w_scales = array<f32: 0.25>, x_scale = 0.5 : f32, x_zero_point = 7 : i64, y_scale = 0.5 : f32, y_zero_point = 7 : i64} : (tensor<1x4x8x8xui8>, tensor<4x4x1x1xi8>, none) -> tensor<1x4x8x8xui8>
  %d = kiln_graph.DequantizeLinear %c1, %s, %z : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %c2 = kiln_graph.Conv %d, %dw, %n {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  return %c2 : tensor<1x4x8x8xf32>
}

// -----

// A MaxPool after a channels-last convolution runs channels-last too:
// ceil_mode becomes extra bottom/right padding (7 rows from 14 need 15).
// CHECK-LABEL: func.func @maxpool_after_quantized_conv
//       CHECK: %[[C:.*]] = kiln_graph.QuantizedConv {{.*}}channels_last = true{{.*}} -> tensor<1x14x14x4xf32>
//       CHECK: %[[P:.*]] = kiln_kernel.max_pool_2d_nhwc %[[C]] {kernel = array<i64: 3, 3>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x14x14x4xf32>) -> tensor<1x7x7x4xf32>
//       CHECK: kiln_graph.Transpose %[[P]] {perm = array<i64: 0, 3, 1, 2>}
func.func @maxpool_after_quantized_conv(%x: tensor<1x4x14x14xui8>) -> tensor<1x4x7x7xf32> {
  %w = kiln_graph.Constant {value = dense<1> : tensor<4x4x1x1xi8>} : () -> tensor<4x4x1x1xi8>
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.QuantizedConv %x, %w, %n {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, w_scales = array<f32: 0.25>, x_scale = 0.5 : f32, x_zero_point = 7 : i64} : (tensor<1x4x14x14xui8>, tensor<4x4x1x1xi8>, none) -> tensor<1x4x14x14xf32>
  %p = kiln_graph.MaxPool %c {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x4x14x14xf32>) -> tensor<1x4x7x7xf32>
  return %p : tensor<1x4x7x7xf32>
}
