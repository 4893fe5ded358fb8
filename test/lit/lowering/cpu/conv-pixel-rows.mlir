// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s

// A 7x7 map with whole panels of 32 channels: the pixel-row product. Each
// panel's tiles start from its 32 channels of the bias, and the output is
// the product's transpose, computed with the ReLU after the convolution in
// one generic (no sum with the broadcast output, no ReLU of its own).
//   CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-LABEL: func.func @bias_relu
//       CHECK: scf.forall (%[[J:.*]]) in (2)
//       CHECK:   %[[B:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}] [32] [1] : tensor<64xf32> to tensor<32xf32>
//       CHECK:   linalg.broadcast ins(%[[B]] : tensor<32xf32>) outs(%{{.*}} : tensor<49x32xf32>) dimensions = [0]
//       CHECK:   linalg.matmul
//       CHECK: %[[T3:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [7, 7, 64] : tensor<49x64xf32> into tensor<7x7x64xf32>
//       CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}], {{.*}} ins(%[[T3]] : tensor<7x7x64xf32>)
//       CHECK:   arith.maximumf
//   CHECK-NOT: arith.addf
//   CHECK-NOT: linalg.generic
//       CHECK: return
func.func @bias_relu(%x: tensor<1x64x9x9xf32>, %b: tensor<64xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %o = linalg.broadcast ins(%b : tensor<64xf32>) outs(%e : tensor<1x64x7x7xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x64x9x9xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %e2 = tensor.empty() : tensor<1x64x7x7xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x64x7x7xf32>) outs(%e2 : tensor<1x64x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x64x7x7xf32>
  return %relu : tensor<1x64x7x7xf32>
}

// -----

// An output that starts from something else (here the caller's tensor)
// gets the product's transpose added to it.
// CHECK-LABEL: func.func @other_init
//       CHECK: scf.forall
//       CHECK:   linalg.fill
//       CHECK:   linalg.matmul
//       CHECK: linalg.generic
//       CHECK:   arith.addf
func.func @other_init(%x: tensor<1x64x9x9xf32>, %o: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x64x9x9xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %r : tensor<1x64x7x7xf32>
}

// -----

// 70 channels at 7x7: two whole panels of 32 on threads, then the last 6
// channels as a product of their own, reading the first 6 columns of a
// zero-padded third panel and starting from their 6 values of the bias.
// CHECK-LABEL: func.func @partial_panel
//       CHECK: %[[W:.*]] = arith.constant dense_resource<{{.*}}> : tensor<3x576x32xf32>
//       CHECK: %[[F:.*]] = scf.forall (%{{.*}}) in (2)
//       CHECK:   linalg.matmul
//       CHECK: %[[L:.*]] = tensor.extract_slice %[[W]][2, 0, 0] [1, 576, 6] [1, 1, 1] : tensor<3x576x32xf32> to tensor<576x6xf32>
//       CHECK: tensor.extract_slice %{{.*}}[64] [6] [1] : tensor<70xf32> to tensor<6xf32>
//       CHECK: %[[P:.*]] = linalg.matmul {{.*}}ins(%{{.*}}, %[[L]] : tensor<576x49xf32>, tensor<576x6xf32>)
//       CHECK: tensor.insert_slice %[[P]] into %[[F]][0, 64] [49, 6] [1, 1] : tensor<49x6xf32> into tensor<49x70xf32>
func.func @partial_panel(%x: tensor<1x64x9x9xf32>, %b: tensor<70xf32>) -> tensor<1x70x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<70x64x3x3xf32>
  %e = tensor.empty() : tensor<1x70x7x7xf32>
  %o = linalg.broadcast ins(%b : tensor<70xf32>) outs(%e : tensor<1x70x7x7xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x64x9x9xf32>, tensor<70x64x3x3xf32>) outs(%o : tensor<1x70x7x7xf32>) -> tensor<1x70x7x7xf32>
  return %r : tensor<1x70x7x7xf32>
}
