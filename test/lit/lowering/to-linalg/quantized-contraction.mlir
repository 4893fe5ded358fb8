// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// A channels-last 3x3 convolution: padded with the zero point (200 as the
// byte -56), gathered into rows of (kh, kw, c), a u8 x s8 product over
// (m, n, k/4, k%4) on the packed [K/4, 16, 4] weight, then the epilogue:
// zero-point terms, scale, bias, Relu and the requantization to u8.
// CHECK-LABEL: func.func @conv_nhwc
//       CHECK: %[[ZP:.*]] = arith.constant -56 : i8
//       CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
//       CHECK:   tensor.yield %[[ZP]]
//       CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<1x7x7x8xi8>) outs(%{{.*}} : tensor<1x5x5x3x3x8xi8>)
//       CHECK: %[[A:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<1x5x5x3x3x8xi8> into tensor<25x72xi8>
//       CHECK: %[[W:.*]] = arith.constant dense_resource<{{.*}}> : tensor<18x16x4xi8>
//       CHECK: %[[A3:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0], [1, 2]] output_shape [25, 18, 4]
//       CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<25x16xi32>
//       CHECK: %[[ACC:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[A3]], %[[W]] : tensor<25x18x4xi8>, tensor<18x16x4xi8>) outs(%[[Z]] : tensor<25x16xi32>)
//       CHECK:   arith.extui
//       CHECK:   arith.extsi
//       CHECK:   arith.muli
//       CHECK:   arith.addi
//       CHECK: %[[S:.*]] = tensor.extract_slice %[[ACC]][0, 0] [25, 6] [1, 1]
//       CHECK: linalg.generic {{.*}} ins(%[[S]], {{.*}} : tensor<25x6xi32>, tensor<6xi32>, tensor<6xf32>, tensor<6xf32>) outs(%{{.*}} : tensor<25x6xi8>)
//       CHECK:   arith.addi
//       CHECK:   arith.sitofp
//       CHECK:   arith.mulf
//       CHECK:   arith.addf
//       CHECK:   arith.maximumf
//       CHECK:   arith.divf
//       CHECK:   math.roundeven
//       CHECK:   arith.fptosi
//       CHECK:   arith.trunci
//       CHECK: tensor.expand_shape {{.*}} into tensor<1x5x5x6xi8>
func.func @conv_nhwc(%x: tensor<1x5x5x8xui8>) -> tensor<1x5x5x6xui8> {
  %w = kiln_graph.Constant {value = dense<1> : tensor<6x8x3x3xi8>} : () -> tensor<6x8x3x3xi8>
  %b = kiln_graph.Constant {value = dense<0.5> : tensor<6xf32>} : () -> tensor<6xf32>
  %y = kiln_graph.QuantizedConv %x, %w, %b {activation = "Relu", channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, quantized_type = ui8, strides = array<i64: 1, 1>, w_scales = array<f32: 0.25>, x_scale = 0.5 : f32, x_zero_point = 200 : i64, y_scale = 0.5 : f32, y_zero_point = 7 : i64} : (tensor<1x5x5x8xui8>, tensor<6x8x3x3xi8>, tensor<6xf32>) -> tensor<1x5x5x6xui8>
  return %y : tensor<1x5x5x6xui8>
}

// -----

// An i8 input moves to u8 (x ^ 0x80); K = 6 pads to 8 with zero columns.
// The weight of ones gives terms -(zp + 128) * 6 = -(-3 + 128) * 6 = -750.
// CHECK-LABEL: func.func @matmul_i8
//       CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<3x6xi8>)
//       CHECK:   arith.xori {{.*}} : i8
//       CHECK: %[[T:.*]] = arith.constant dense<-750> : tensor<2xi32>
//       CHECK: tensor.pad {{.*}} low[0, 0] high[0, 2]
//       CHECK: linalg.generic {{.*}} ins({{.*}} : tensor<3x2x4xi8>, tensor<2x16x4xi8>) outs({{.*}} : tensor<3x16xi32>)
//       CHECK: linalg.generic {{.*}} ins({{.*}}, %[[T]], {{.*}} : tensor<3x2xi32>, tensor<2xi32>, tensor<2xf32>) outs({{.*}} : tensor<3x2xf32>)
func.func @matmul_i8(%x: tensor<3x6xi8>) -> tensor<3x2xf32> {
  %w = kiln_graph.Constant {value = dense<1> : tensor<6x2xi8>} : () -> tensor<6x2xi8>
  %n = kiln_graph.NoValue : none
  %y = kiln_graph.QuantizedMatMul %x, %w, %n {w_scales = array<f32: 0.25>, x_scale = 0.5 : f32, x_zero_point = -3 : i64} : (tensor<3x6xi8>, tensor<6x2xi8>, none) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
