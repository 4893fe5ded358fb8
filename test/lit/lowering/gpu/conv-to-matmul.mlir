// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-conv-to-matmul))' | FileCheck %s

// A 3x3 convolution (stride 2, dilation 1) of one 8-channel 9x9 image into
// 16 channels of 4x4: im2col [72, 16], then W [16, 72] x col into [16, 16].
// CHECK-LABEL: func.func @conv(
// CHECK:       %[[COL:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<72x16xf32>)
// CHECK:         %[[K:.*]] = linalg.index 0
// CHECK:         %[[P:.*]] = linalg.index 1
// CHECK:         tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x8x9x9xf32>
// CHECK:       %[[W:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<16x8x3x3xf32> into tensor<16x72xf32>
// CHECK:       %[[Y:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<1x16x4x4xf32> into tensor<16x16xf32>
// CHECK:       %[[MM:.*]] = linalg.matmul ins(%[[W]], %[[COL]] : tensor<16x72xf32>, tensor<72x16xf32>) outs(%[[Y]] : tensor<16x16xf32>)
// CHECK:       tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 16, 4, 4]
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @conv(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %y: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%y : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}

// A batch of two stays a convolution.
// CHECK-LABEL: func.func @batch2(
// CHECK:       linalg.conv_2d_nchw_fchw
func.func @batch2(%x: tensor<2x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %y: tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<2x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%y : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %r : tensor<2x16x4x4xf32>
}
