// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-convert-layout{layout=nhwc}),cse)' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-convert-layout))' -split-input-file | FileCheck %s --check-prefix=NCHW

// A ResNet basic block: the only layout conversions left are the one of the
// block's input and the one of its output; the residual add reuses the
// input's conversion.

// NCHW-LABEL: func.func @resnet_block
// NCHW-NOT:   Transpose
// NCHW-NOT:   kiln_kernel

// CHECK-LABEL: func.func @resnet_block
// CHECK:       %[[X:.*]] = kiln_graph.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:  %[[C1:.*]] = kiln_kernel.conv_2d_nhwc %[[X]], %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NOT:   Transpose
// CHECK:       %[[R1:.*]] = kiln_graph.Relu %[[C1]] : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NOT:   Transpose
// CHECK:       %[[C2:.*]] = kiln_kernel.conv_2d_nhwc %[[R1]], %{{.*}} {pads = array<i64: 1, 1, 1, 1>}
// CHECK-NOT:   Transpose
// CHECK:       %[[S:.*]] = kiln_graph.Add %[[C2]], %[[X]] : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NOT:   Transpose
// CHECK:       %[[R2:.*]] = kiln_graph.Relu %[[S]]
// CHECK-NEXT:  %[[Y:.*]] = kiln_graph.Transpose %[[R2]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @resnet_block(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w1 = kiln_graph.Constant {value = dense<0.5> : tensor<4x4x3x3xf32>} : () -> tensor<4x4x3x3xf32>
  %b1 = kiln_graph.Constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %w2 = kiln_graph.Constant {value = dense<0.25> : tensor<4x4x3x3xf32>} : () -> tensor<4x4x3x3xf32>
  %n = kiln_graph.NoValue : none
  %c1 = kiln_graph.Conv %x, %w1, %b1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r1 = kiln_graph.Relu %c1 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = kiln_graph.Conv %r1, %w2, %n {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %s = kiln_graph.Add %c2, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = kiln_graph.Relu %s : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Weights are packed at compile time: W[m, c, kh, kw] = [[[[1, 2]]], [[[3, 4]]]]
// (M = 2, C = 1, 1x2 kernel) in HWCF is [kh][kw][c][m] = [[[[1, 3]], [[2, 4]]]].
// SAME_UPPER with a 1x2 kernel pads one column on the right.
// CHECK-LABEL: func.func @pack_hwcf
// CHECK:       %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 3.000000e+00]], {{\[}}[2.000000e+00, 4.000000e+00]]]]> : tensor<1x2x1x2xf32>}
// CHECK:       kiln_kernel.conv_2d_nhwc %{{.*}}, %[[W]] {pads = array<i64: 0, 0, 0, 1>} : (tensor<1x3x3x1xf32>, tensor<1x2x1x2xf32>) -> tensor<1x3x3x2xf32>
func.func @pack_hwcf(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = kiln_graph.Constant {value = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>} : () -> tensor<2x1x1x2xf32>
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.Conv %x, %w, %n {auto_pad = "SAME_UPPER"} : (tensor<1x1x3x3xf32>, tensor<2x1x1x2xf32>, none) -> tensor<1x2x3x3xf32>
  return %c : tensor<1x2x3x3xf32>
}

// -----

// Depthwise weights [C, 1, KH, KW] become HWC, here from a resource blob
// (C = 2, 1x2 kernel: [[a, b]], [[c, d]] -> [[[a, c], [b, d]]]); the strided
// convolution keeps its attributes.
// CHECK-LABEL: func.func @pack_depthwise
// CHECK:       %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]]> : tensor<1x2x2xf32>}
// CHECK:       kiln_kernel.conv_2d_nhwc %{{.*}}, %[[W]] {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1x2x2xf32>) -> tensor<1x2x2x2xf32>
func.func @pack_depthwise(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = kiln_graph.Constant {value = dense_resource<dw_w> : tensor<2x1x1x2xf32>} : () -> tensor<2x1x1x2xf32>
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.Conv %x, %w, %n {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x1x1x2xf32>, none) -> tensor<1x2x2x2xf32>
  return %c : tensor<1x2x2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      dw_w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// A weight computed at run time is transposed at run time.
// CHECK-LABEL: func.func @runtime_weight
// CHECK:       %[[W:.*]] = kiln_graph.Transpose %arg1 {perm = array<i64: 2, 3, 1, 0>} : (tensor<8x4x3x3xf32>) -> tensor<3x3x4x8xf32>
// CHECK:       kiln_kernel.conv_2d_nhwc %{{.*}}, %[[W]] :
func.func @runtime_weight(%x: tensor<1x4x5x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.Conv %x, %w, %n : (tensor<1x4x5x5xf32>, tensor<8x4x3x3xf32>, none) -> tensor<1x8x3x3xf32>
  return %c : tensor<1x8x3x3xf32>
}

// -----

// Per-channel constants ([C, 1, 1]) are re-laid as [1, 1, 1, C]; scalars
// stay; Clip and HardSigmoid run on the NHWC value.
// CHECK-LABEL: func.func @per_channel_affine
// CHECK-DAG:   %[[S:.*]] = kiln_graph.Constant {value = dense<[{{\[}}{{\[}}[2.000000e+00, 3.000000e+00]]]]> : tensor<1x1x1x2xf32>}
// CHECK-DAG:   %[[K:.*]] = kiln_graph.Constant {value = dense<5.000000e-01> : tensor<f32>}
// CHECK:       %[[C:.*]] = kiln_kernel.conv_2d_nhwc
// CHECK-NEXT:  %[[M:.*]] = kiln_graph.Mul %[[C]], %[[S]] : (tensor<1x4x4x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:  %[[A:.*]] = kiln_graph.Add %[[M]], %[[K]] : (tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:  %[[H:.*]] = kiln_graph.HardSigmoid %[[A]] {alpha = 2.500000e-01 : f32}
// CHECK-NEXT:  %[[L:.*]] = kiln_graph.Clip %[[H]], %[[K]], %{{.*}} : (tensor<1x4x4x2xf32>, tensor<f32>, none) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:  kiln_graph.Transpose %[[L]] {perm = array<i64: 0, 3, 1, 2>}
func.func @per_channel_affine(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %s = kiln_graph.Constant {value = dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %k = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.Conv %x, %w, %n : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %m = kiln_graph.Mul %c, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %a = kiln_graph.Add %k, %m : (tensor<f32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %h = kiln_graph.HardSigmoid %a {alpha = 0.25 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %l = kiln_graph.Clip %h, %k, %n : (tensor<1x2x4x4xf32>, tensor<f32>, none) -> tensor<1x2x4x4xf32>
  return %l : tensor<1x2x4x4xf32>
}

// -----

// Concat along channels becomes a concat along the last dim; a squeeze-and-
// excitation branch (GlobalAveragePool, 1x1 convs, a broadcast Mul) stays
// NHWC, the pool as a ReduceMean over H and W.
// CHECK-LABEL: func.func @concat_and_se
// CHECK:       %[[A:.*]] = kiln_kernel.conv_2d_nhwc
// CHECK:       %[[B:.*]] = kiln_kernel.conv_2d_nhwc
// CHECK-NOT:   Transpose
// CHECK:       %[[CAT:.*]] = kiln_graph.Concat %[[A]], %[[B]] {axis = 3 : si64} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NOT:   Transpose
// CHECK:       %[[G:.*]] = kiln_graph.ReduceMean %[[CAT]], %{{.*}} : (tensor<1x4x4x4xf32>, tensor<2xi64>) -> tensor<1x1x1x4xf32>
// CHECK-NOT:   Transpose
// CHECK:       %[[E:.*]] = kiln_kernel.conv_2d_nhwc %[[G]]
// CHECK-NOT:   Transpose
// CHECK:       %[[SIG:.*]] = kiln_graph.Sigmoid %[[E]]
// CHECK-NOT:   Transpose
// CHECK:       %[[M:.*]] = kiln_graph.Mul %[[CAT]], %[[SIG]] : (tensor<1x4x4x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:  kiln_graph.Transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>}
func.func @concat_and_se(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %w4 = kiln_graph.Constant {value = dense<1.0> : tensor<4x4x1x1xf32>} : () -> tensor<4x4x1x1xf32>
  %n = kiln_graph.NoValue : none
  %a = kiln_graph.Conv %x, %w, %n : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %b = kiln_graph.Conv %a, %w, %n : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %cat = kiln_graph.Concat %a, %b {axis = 1 : si64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %g = kiln_graph.GlobalAveragePool %cat : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  %e = kiln_graph.Conv %g, %w4, %n : (tensor<1x4x1x1xf32>, tensor<4x4x1x1xf32>, none) -> tensor<1x4x1x1xf32>
  %sig = kiln_graph.Sigmoid %e : (tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %m = kiln_graph.Mul %cat, %sig : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %m : tensor<1x4x4x4xf32>
}

// -----

// MaxPool runs channels-last after the convolution. A grouped (not
// depthwise) Conv stays channels-first, with conversions on both sides. A transpose
// of [N, C, 1, 1] only moves unit dims and becomes a reshape.
// CHECK-LABEL: func.func @boundaries
// CHECK:       %[[C:.*]] = kiln_kernel.conv_2d_nhwc
// CHECK-NEXT:  %[[P:.*]] = kiln_kernel.max_pool_2d_nhwc %[[C]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
// CHECK-NEXT:  %[[T:.*]] = kiln_graph.Transpose %[[P]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x4xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:  %[[G:.*]] = kiln_graph.Conv %[[T]], %{{.*}}, %{{.*}} {group = 2 : i64}
// CHECK-NEXT:  %[[T2:.*]] = kiln_graph.Transpose %[[G]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x2x2xf32>) -> tensor<1x2x2x4xf32>
// CHECK-NEXT:  %[[D:.*]] = kiln_kernel.conv_2d_nhwc %[[T2]]
// CHECK:       %[[R:.*]] = kiln_graph.ReduceMean %[[D]]
// CHECK:       %[[Y:.*]] = kiln_graph.Reshape %[[R]], %{{.*}} : (tensor<1x1x1x4xf32>, tensor<4xi64>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @boundaries(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32> {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<4x4x1x1xf32>} : () -> tensor<4x4x1x1xf32>
  %wg = kiln_graph.Constant {value = dense<1.0> : tensor<4x2x1x1xf32>} : () -> tensor<4x2x1x1xf32>
  %wd = kiln_graph.Constant {value = dense<1.0> : tensor<4x1x3x3xf32>} : () -> tensor<4x1x3x3xf32>
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.Conv %x, %w, %n : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, none) -> tensor<1x4x4x4xf32>
  %p = kiln_graph.MaxPool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  %g = kiln_graph.Conv %p, %wg, %n {group = 2 : i64} : (tensor<1x4x2x2xf32>, tensor<4x2x1x1xf32>, none) -> tensor<1x4x2x2xf32>
  %d = kiln_graph.Conv %g, %wd, %n {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x1x3x3xf32>, none) -> tensor<1x4x2x2xf32>
  %y = kiln_graph.GlobalAveragePool %d : (tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32>
  return %y : tensor<1x4x1x1xf32>
}

// -----

// A FusedConv keeps its activation as the kernel's epilogue.
// CHECK-LABEL: func.func @fused_conv
// CHECK:       kiln_kernel.conv_2d_nhwc %{{.*}}, %{{.*}} {activation = "LeakyRelu", activation_params = array<f32: 1.000000e-01>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
func.func @fused_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = kiln_graph.NoValue : none
  %c = kiln_graph.FusedConv %x, %w, %n {activation = "LeakyRelu", activation_params = array<f32: 0.1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return %c : tensor<1x2x4x4xf32>
}
