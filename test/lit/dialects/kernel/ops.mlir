// RUN: kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Valid forms round-trip with their inferred result types.

// CHECK-LABEL: func.func @conv_hwcf
// CHECK: kiln_kernel.conv_2d_nhwc %arg0, %arg1, %arg2 {dilations = array<i64: 2, 2>, pads = array<i64: 1, 2, 3, 4>, strides = array<i64: 2, 1>} : (tensor<?x16x16x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<?x8x18x8xf32>
func.func @conv_hwcf(%x: tensor<?x16x16x3xf32>, %w: tensor<3x3x3x8xf32>, %b: tensor<8xf32>) -> tensor<?x8x18x8xf32> {
  %0 = kiln_kernel.conv_2d_nhwc %x, %w, %b {strides = array<i64: 2, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 1, 2, 3, 4>} : (tensor<?x16x16x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<?x8x18x8xf32>
  return %0 : tensor<?x8x18x8xf32>
}

// CHECK-LABEL: func.func @conv_depthwise_relu
// CHECK: kiln_kernel.conv_2d_nhwc %arg0, %arg1 {activation = "LeakyRelu", activation_params = array<f32: 1.000000e-01>, group = 8 : i64} : (tensor<1x5x5x8xf32>, tensor<3x3x8xf32>) -> tensor<1x3x3x8xf32>
func.func @conv_depthwise_relu(%x: tensor<1x5x5x8xf32>, %w: tensor<3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {group = 8 : i64, activation = "LeakyRelu", activation_params = array<f32: 0.1>} : (tensor<1x5x5x8xf32>, tensor<3x3x8xf32>) -> tensor<1x3x3x8xf32>
  return %0 : tensor<1x3x3x8xf32>
}

// -----

func.func @nchw_rank(%x: tensor<4x4x4xf32>, %w: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{input must be NHWC (rank 4), got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w : (tensor<4x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<4x4x4x4xf32>
  return
}

// -----

func.func @channel_mismatch(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x4x8xf32>) {
  // expected-error @+2 {{filter has 4 input channels, input has 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w : (tensor<1x4x4x3xf32>, tensor<1x1x4x8xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @grouped(%x: tensor<1x4x4x8xf32>, %w: tensor<3x3x8xf32>) {
  // expected-error @+2 {{group 2 is supported only as depthwise: group = C with an HWC filter}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {group = 2 : i64} : (tensor<1x4x4x8xf32>, tensor<3x3x8xf32>) -> tensor<1x2x2x8xf32>
  return
}

// -----

func.func @bias_size(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{bias must be a vector of 8 elements of 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w, %b : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>, tensor<4xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @pads_count(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x8xf32>) {
  // expected-error @+2 {{needs 2 strides, 2 dilations and 4 pads}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {pads = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @window_too_big(%x: tensor<1x2x2x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+2 {{window of 3 exceeds the padded input extent 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w : (tensor<1x2x2x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x1x1x8xf32>
  return
}

// -----

func.func @wrong_result(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x4x8xf32>' are incompatible with return type(s) of operation 'tensor<1x8x4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @unknown_activation(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x8xf32>) {
  // expected-error @+1 {{unknown activation 'Mish'}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {activation = "Mish"} : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @activation_params_count(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x8xf32>) {
  // expected-error @+1 {{activation 'Clip' takes 2 parameters, got 1}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {activation = "Clip", activation_params = array<f32: 6.0>} : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @params_without_activation(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x8xf32>) {
  // expected-error @+1 {{activation_params given without an activation}}
  %0 = kiln_kernel.conv_2d_nhwc %x, %w {activation_params = array<f32: 6.0>} : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @max_pool
//       CHECK: kiln_kernel.max_pool_2d_nhwc %arg0 {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x9x9x8xf32>) -> tensor<?x5x5x8xf32>
func.func @max_pool(%x: tensor<?x9x9x8xf32>) -> tensor<?x5x5x8xf32> {
  %0 = kiln_kernel.max_pool_2d_nhwc %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 2, 2>} : (tensor<?x9x9x8xf32>) -> tensor<?x5x5x8xf32>
  return %0 : tensor<?x5x5x8xf32>
}

// -----

func.func @max_pool_window_too_large(%x: tensor<1x2x2x8xf32>) {
  // expected-error @+2 {{window of 3 exceeds the padded input extent 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.max_pool_2d_nhwc %x {kernel = array<i64: 3, 3>} : (tensor<1x2x2x8xf32>) -> tensor<1x1x1x8xf32>
  return
}

// -----

func.func @max_pool_bad_kernel(%x: tensor<1x4x4x8xf32>) {
  // expected-error @+2 {{needs a kernel of 2 positive extents}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_kernel.max_pool_2d_nhwc %x {kernel = array<i64: 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32>
  return
}
