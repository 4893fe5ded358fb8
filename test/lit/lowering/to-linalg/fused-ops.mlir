// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// FusedConv: the convolution (bias as its accumulator), then the activation
// as one elementwise op on its result.
// CHECK-LABEL: func.func @fused_conv_clip
//       CHECK: %[[INIT:.*]] = linalg.broadcast
//       CHECK: %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%[[INIT]] :
//       CHECK: linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x8x8x8xf32>)
//       CHECK:   %[[LO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[A:.*]] = arith.maximumf %{{.*}}, %[[LO]] : f32
//       CHECK:   %[[HI:.*]] = arith.constant 6.000000e+00 : f32
//       CHECK:   %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
//       CHECK:   linalg.yield %[[B]]
func.func @fused_conv_clip(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = kiln_graph.FusedConv %x, %w, %b {activation = "Clip", activation_params = array<f32: 0.0, 6.0>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// HardSwish is x * clamp(x / 6 + 1/2, 0, 1).
// CHECK-LABEL: func.func @fused_conv_hardswish
//       CHECK: linalg.conv_2d_nchw_fchw
//       CHECK: linalg.generic
//       CHECK:   %[[S:.*]] = arith.mulf %[[X:.*]], %{{.*}} : f32
//       CHECK:   %[[T:.*]] = arith.addf %[[S]], %{{.*}} : f32
//       CHECK:   %[[U:.*]] = arith.maximumf %[[T]]
//       CHECK:   %[[V:.*]] = arith.minimumf %[[U]]
//       CHECK:   %[[Y:.*]] = arith.mulf %[[X]], %[[V]] : f32
//       CHECK:   linalg.yield %[[Y]]
func.func @fused_conv_hardswish(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.FusedConv %x, %w, %none {activation = "HardSwish"} : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, none) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// FusedMatMul: the matmul, then bias (along the last dim) and the
// activation in one elementwise op.
// CHECK-LABEL: func.func @fused_matmul_gelu
//       CHECK: %[[MM:.*]] = linalg.matmul
//       CHECK: %[[Y:.*]] = tensor.expand_shape %[[MM]]
//       CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS:.*]], #{{.*}}]{{.*}} ins(%[[Y]], %{{.*}} : tensor<2x5x6xf32>, tensor<6xf32>)
//       CHECK:   %[[S:.*]] = arith.addf
//       CHECK:   math.erf
//       CHECK:   linalg.yield
func.func @fused_matmul_gelu(%a: tensor<2x5x4xf32>, %m: tensor<4x6xf32>, %bias: tensor<6xf32>) -> tensor<2x5x6xf32> {
  %0 = kiln_graph.FusedMatMul %a, %m, %bias {activation = "Gelu"} : (tensor<2x5x4xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

// Bias only: one add after the matmul.
// CHECK-LABEL: func.func @fused_matmul_bias
//       CHECK: linalg.matmul
//       CHECK: linalg.generic
//       CHECK:   %[[S:.*]] = arith.addf
//  CHECK-NEXT:   linalg.yield %[[S]]
func.func @fused_matmul_bias(%a: tensor<5x4xf32>, %m: tensor<4x6xf32>, %bias: tensor<6xf32>) -> tensor<5x6xf32> {
  %0 = kiln_graph.FusedMatMul %a, %m, %bias : (tensor<5x4xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<5x6xf32>
  return %0 : tensor<5x6xf32>
}
