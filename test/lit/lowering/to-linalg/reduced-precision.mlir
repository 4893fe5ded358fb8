// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// bf16: the input rounded to bf16 (arith.truncf), padded, gathered into
// rows of (kh, kw, c) with K = 27 padded to 28, times the [14, 16, 2] bf16
// weight packed at compile time, summed in f32; one epilogue adds the bias
// and applies Relu to the 8 real columns.
// CHECK-LABEL: func.func @conv_bf16
//       CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x6x6x3xf32>) outs(%{{.*}} : tensor<1x6x6x3xbf16>)
//       CHECK:   arith.truncf %{{.*}} : f32 to bf16
//       CHECK: %[[P:.*]] = tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
//       CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<1x8x8x3xbf16>) outs(%{{.*}} : tensor<1x6x6x3x3x3xbf16>)
//       CHECK: %[[A:.*]] = tensor.collapse_shape %[[G]] {{.*}} into tensor<36x27xbf16>
//       CHECK: %[[W:.*]] = arith.constant dense_resource<conv_dot> : tensor<14x16x2xbf16>
//       CHECK: %[[AP:.*]] = tensor.pad %[[A]] low[0, 0] high[0, 1]
//       CHECK: tensor.expand_shape %[[AP]] {{.*}} into tensor<36x14x2xbf16>
//       CHECK: linalg.fill {{.*}} -> tensor<36x16xf32>
//       CHECK: %[[ACC:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins({{.*}}, %[[W]] : tensor<36x14x2xbf16>, tensor<14x16x2xbf16>) outs({{.*}} : tensor<36x16xf32>)
//       CHECK:   arith.extf {{.*}} : bf16 to f32
//       CHECK:   arith.extf {{.*}} : bf16 to f32
//       CHECK:   arith.mulf
//       CHECK:   arith.addf
//       CHECK: %[[S:.*]] = tensor.extract_slice %[[ACC]][0, 0] [36, 8] [1, 1]
//       CHECK: linalg.generic {{.*}} ins(%[[S]], %{{.*}} : tensor<36x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<36x8xf32>)
//       CHECK:   arith.addf
//       CHECK:   arith.maximumf
//       CHECK: tensor.expand_shape {{.*}} into tensor<1x6x6x8xf32>
func.func @conv_bf16(%x: tensor<1x6x6x3xf32>) -> tensor<1x6x6x8xf32> {
  %w = kiln_graph.Constant {value = dense<0.5> : tensor<3x3x3x8xf32>} : () -> tensor<3x3x3x8xf32>
  %b = kiln_graph.Constant {value = dense<0.1> : tensor<8xf32>} : () -> tensor<8xf32>
  %y = kiln_kernel.conv_2d_nhwc %x, %w, %b {activation = "Relu", pads = array<i64: 1, 1, 1, 1>, kiln.compute_type = bf16} : (tensor<1x6x6x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  return %y : tensor<1x6x6x8xf32>
}

// -----

// f16 matmul: the rows stay f32, rounded through f16 (truncf, extf); the
// weight is f16 [K, Np, 1], widened in the product. A 3-D input collapses
// to rows and expands back.
// CHECK-LABEL: func.func @matmul_f16
//       CHECK: tensor.collapse_shape %arg0 {{.*}} into tensor<6x5xf32>
//       CHECK: linalg.generic
//       CHECK:   arith.truncf %{{.*}} : f32 to f16
//       CHECK:   arith.extf %{{.*}} : f16 to f32
//       CHECK: arith.constant dense_resource<matmul_dot> : tensor<5x16x1xf16>
//       CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<6x5x1xf32>, tensor<5x16x1xf16>) outs(%{{.*}} : tensor<6x16xf32>)
//   CHECK-NOT:   arith.extf {{.*}} : f32
//       CHECK:   arith.extf {{.*}} : f16 to f32
//       CHECK:   arith.mulf
//       CHECK:   arith.addf
//       CHECK: tensor.expand_shape {{.*}} into tensor<2x3x7xf32>
func.func @matmul_f16(%a: tensor<2x3x5xf32>) -> tensor<2x3x7xf32> {
  %m = kiln_graph.Constant {value = dense<0.25> : tensor<5x7xf32>} : () -> tensor<5x7xf32>
  %y = kiln_graph.MatMul %a, %m {kiln.compute_type = f16} : (tensor<2x3x5xf32>, tensor<5x7xf32>) -> tensor<2x3x7xf32>
  return %y : tensor<2x3x7xf32>
}

// -----

// Unmarked: the ordinary f32 lowering.
// CHECK-LABEL: func.func @matmul_f32
//       CHECK: linalg.matmul
//   CHECK-NOT: bf16
func.func @matmul_f32(%a: tensor<4x5xf32>) -> tensor<4x7xf32> {
  %m = kiln_graph.Constant {value = dense<0.25> : tensor<5x7xf32>} : () -> tensor<5x7xf32>
  %y = kiln_graph.MatMul %a, %m : (tensor<4x5xf32>, tensor<5x7xf32>) -> tensor<4x7xf32>
  return %y : tensor<4x7xf32>
}
