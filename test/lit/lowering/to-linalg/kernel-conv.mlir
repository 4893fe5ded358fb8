// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Ungrouped: spatial pads on dims 1 and 2 ([top, left, bottom, right]), the
// bias broadcast over [N, OH, OW] as the accumulator, the HWCF named op.
// CHECK-LABEL: func.func @conv_hwcf_bias
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 2, 0] high[0, 3, 4, 0]
// CHECK: tensor<?x16x16x3xf32> to tensor<?x20x22x3xf32>
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0 : tensor<?x16x16x3xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x8x18x8xf32>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%arg2 : tensor<8xf32>) outs(%[[E]] : tensor<?x8x18x8xf32>) dimensions = [0, 1, 2]
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[P]], %arg1 : tensor<?x20x22x3xf32>, tensor<3x3x3x8xf32>) outs(%[[B]] : tensor<?x8x18x8xf32>)
// CHECK: return %[[C]]
func.func @conv_hwcf_bias(%x: tensor<?x16x16x3xf32>, %w: tensor<3x3x3x8xf32>, %b: tensor<8xf32>) -> tensor<?x8x18x8xf32> {
  %0 = kiln_kernel.conv_2d_nhwc %x, %w, %b {strides = array<i64: 2, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 1, 2, 3, 4>} : (tensor<?x16x16x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<?x8x18x8xf32>
  return %0 : tensor<?x8x18x8xf32>
}

// -----

// Depthwise without bias and pads: zero-filled accumulator, no tensor.pad.
// CHECK-LABEL: func.func @conv_depthwise
// CHECK-NOT: tensor.pad
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x3x3x8xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x3x3x8xf32>)
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x5x5x8xf32>, tensor<3x3x8xf32>) outs(%[[Z]] : tensor<1x3x3x8xf32>)
func.func @conv_depthwise(%x: tensor<1x5x5x8xf32>, %w: tensor<3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {group = 8 : i64} : (tensor<1x5x5x8xf32>, tensor<3x3x8xf32>) -> tensor<1x3x3x8xf32>
  return %0 : tensor<1x3x3x8xf32>
}

// -----

// A fused activation is an elementwise op on the convolution's result:
// Clip(min = 0, max = 6).
// CHECK-LABEL: func.func @conv_clip
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x4x8xf32>)
// CHECK:   arith.constant 0.000000e+00 : f32
// CHECK:   arith.maximumf
// CHECK:   arith.constant 6.000000e+00 : f32
// CHECK:   arith.minimumf
func.func @conv_clip(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {activation = "Clip", activation_params = array<f32: 0.0, 6.0>} : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// A depthwise convolution of a per-tensor DequantizeLinear: the u8 tensor is
// padded with its zero point (200, the byte -56) and dequantized into the
// padded buffer; no float pad.
// CHECK-LABEL: func.func @depthwise_of_dequantized
//       CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
//       CHECK:   tensor.yield %c-56_i8
//       CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<1x7x7x8xi8>) outs(%{{.*}} : tensor<1x7x7x8xf32>)
//       CHECK:   arith.extui
//       CHECK:   arith.subi
//       CHECK:   arith.sitofp
//       CHECK:   arith.mulf
//   CHECK-NOT: tensor.pad
//       CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[D]], %{{.*}} : tensor<1x7x7x8xf32>, tensor<3x3x8xf32>)
func.func @depthwise_of_dequantized(%q: tensor<1x5x5x8xui8>, %w: tensor<3x3x8xf32>) -> tensor<1x5x5x8xf32> {
  %s = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = kiln_graph.Constant {value = dense<200> : tensor<ui8>} : () -> tensor<ui8>
  %x = kiln_graph.DequantizeLinear %q, %s, %z : (tensor<1x5x5x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5x5x8xf32>
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x8xf32>, tensor<3x3x8xf32>) -> tensor<1x5x5x8xf32>
  return %0 : tensor<1x5x5x8xf32>
}

// -----

// Channels-last max pooling: padded with -inf, which also seeds the result;
// u8 takes the unsigned pooling and pads with 0.
// CHECK-LABEL: func.func @max_pool_nhwc
//       CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
//       CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
//       CHECK:   tensor.yield %[[NINF]]
//       CHECK: %[[I:.*]] = linalg.fill ins(%[[NINF]] : f32) {{.*}} -> tensor<1x4x4x5xf32>
//       CHECK: linalg.pooling_nhwc_max {{.*}}strides = dense<2> : tensor<2xi64>{{.*}} ins(%[[P]], %{{.*}} : tensor<1x10x10x5xf32>, tensor<3x3xf32>) outs(%[[I]] : tensor<1x4x4x5xf32>)
// CHECK-LABEL: func.func @max_pool_nhwc_u8
//       CHECK: linalg.pooling_nhwc_max_unsigned
func.func @max_pool_nhwc(%x: tensor<1x8x8x5xf32>) -> tensor<1x4x4x5xf32> {
  %0 = kiln_kernel.max_pool_2d_nhwc %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x5xf32>) -> tensor<1x4x4x5xf32>
  return %0 : tensor<1x4x4x5xf32>
}
func.func @max_pool_nhwc_u8(%x: tensor<1x8x8x5xui8>) -> tensor<1x4x4x5xui8> {
  %0 = kiln_kernel.max_pool_2d_nhwc %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x8x5xui8>) -> tensor<1x4x4x5xui8>
  return %0 : tensor<1x4x4x5xui8>
}

// -----

// With a constant filter the convolution reads the 8-bit values: u8 moves to
// i8 (x ^ 0x80, zero point 200 - 128 = 72), padded with 72; the filter is
// scaled (2.0 * 0.5 = 1.0) and the bias takes -72 * (9 taps * 1.0) + 3.
// CHECK-LABEL: func.func @depthwise_int8_input
//       CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1x5x5x8xi8>)
//       CHECK:   arith.xori
//       CHECK: tensor.pad
//       CHECK:   tensor.yield %c72_i8
//       CHECK: %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<3x3x8xf32>
//       CHECK: %[[B:.*]] = arith.constant dense<-6.450000e+02> : tensor<8xf32>
//       CHECK: linalg.broadcast ins(%[[B]]
//       CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x7x7x8xi8>, tensor<3x3x8xf32>)
func.func @depthwise_int8_input(%q: tensor<1x5x5x8xui8>) -> tensor<1x5x5x8xf32> {
  %s = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = kiln_graph.Constant {value = dense<200> : tensor<ui8>} : () -> tensor<ui8>
  %w = kiln_graph.Constant {value = dense<2.0> : tensor<3x3x8xf32>} : () -> tensor<3x3x8xf32>
  %b = kiln_graph.Constant {value = dense<3.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %x = kiln_graph.DequantizeLinear %q, %s, %z : (tensor<1x5x5x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5x5x8xf32>
  %0 = kiln_kernel.conv_2d_nhwc %x, %w, %b {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x8xf32>, tensor<3x3x8xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
  return %0 : tensor<1x5x5x8xf32>
}
