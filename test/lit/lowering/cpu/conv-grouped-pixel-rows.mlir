// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 schedule-file=%S/Inputs/grouped-pixel-rows.json},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s

// A grouped convolution named im2col_transposed by the schedule file, 2
// groups of 32 channels (two 16-lane panels each): one gather of both
// groups' columns, the filter packed in 4 panels of [72 taps, 16 channels]
// (a splat here, so each panel folds to one constant), and a product per panel that reads its group's 72 rows of the columns
// (panel j: rows (j floordiv 2) * 72), from its channels of the bias. The
// output is the products' transpose, computed with the ReLU in one generic.
//   CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0) -> ((d0 floordiv 2) * 72)>
//   CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-LABEL: func.func @bias_relu
//       CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<72x16xf32>
//       CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x3x3x7x7xf32>)
//       CHECK: %[[COLS:.*]] = tensor.collapse_shape {{.*}} into tensor<144x49xf32>
//       CHECK: scf.forall (%[[J:.*]]) in (4)
//       CHECK:   %[[R:.*]] = affine.apply #[[ROWS]](%[[J]])
//       CHECK:   %[[A:.*]] = tensor.extract_slice %[[COLS]][%[[R]], 0] [72, 49] [1, 1]
//       CHECK:   linalg.broadcast ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<49x16xf32>) dimensions = [0]
//       CHECK:   linalg.matmul {{.*}} ins(%[[A]], %[[W]] : tensor<72x49xf32>, tensor<72x16xf32>)
//       CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}], {{.*}} ins(%{{.*}} : tensor<7x7x64xf32>)
//       CHECK:   arith.maximumf
//   CHECK-NOT: linalg.conv_2d
//   CHECK-NOT: linalg.generic
//       CHECK: return
func.func @bias_relu(%x: tensor<1x16x9x9xf32>, %b: tensor<64xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x8x3x3xf32>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 32, 8, 3, 3] : tensor<64x8x3x3xf32> into tensor<2x32x8x3x3xf32>
  %xg = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 8, 9, 9] : tensor<1x16x9x9xf32> into tensor<1x2x8x9x9xf32>
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %o = linalg.broadcast ins(%b : tensor<64xf32>) outs(%e : tensor<1x64x7x7xf32>) dimensions = [0, 2, 3]
  %og = tensor.expand_shape %o [[0], [1, 2], [3], [4]] output_shape [1, 2, 32, 7, 7] : tensor<1x64x7x7xf32> into tensor<1x2x32x7x7xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : tensor<1x2x8x9x9xf32>, tensor<2x32x8x3x3xf32>) outs(%og : tensor<1x2x32x7x7xf32>) -> tensor<1x2x32x7x7xf32> loc("grouped")
  %rc = tensor.collapse_shape %r [[0], [1, 2], [3], [4]] : tensor<1x2x32x7x7xf32> into tensor<1x64x7x7xf32>
  %e2 = tensor.empty() : tensor<1x64x7x7xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rc : tensor<1x64x7x7xf32>) outs(%e2 : tensor<1x64x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x64x7x7xf32>
  return %relu : tensor<1x64x7x7xf32>
}

// -----

// Groups of 8 channels fill no 16-lane panel: the schedule stays im2col,
// one product per group.
// CHECK-LABEL: func.func @narrow_groups
//       CHECK: arith.constant dense<5.000000e-01> : tensor<8x72xf32>
//       CHECK: scf.forall (%{{.*}}) in (2)
//       CHECK:   linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x72xf32>, tensor<72x49xf32>)
func.func @narrow_groups(%x: tensor<1x16x9x9xf32>, %b: tensor<16xf32>) -> tensor<1x2x8x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<16x8x3x3xf32>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 8, 8, 3, 3] : tensor<16x8x3x3xf32> into tensor<2x8x8x3x3xf32>
  %xg = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 8, 9, 9] : tensor<1x16x9x9xf32> into tensor<1x2x8x9x9xf32>
  %e = tensor.empty() : tensor<1x16x7x7xf32>
  %o = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<1x16x7x7xf32>) dimensions = [0, 2, 3]
  %og = tensor.expand_shape %o [[0], [1, 2], [3], [4]] output_shape [1, 2, 8, 7, 7] : tensor<1x16x7x7xf32> into tensor<1x2x8x7x7xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : tensor<1x2x8x9x9xf32>, tensor<2x8x8x3x3xf32>) outs(%og : tensor<1x2x8x7x7xf32>) -> tensor<1x2x8x7x7xf32> loc("grouped")
  return %r : tensor<1x2x8x7x7xf32>
}

// -----

// An output that starts from the caller's tensor (no bias, no zero): the
// product per group, as by default.
// CHECK-LABEL: func.func @other_init
//       CHECK: arith.constant dense<5.000000e-01> : tensor<32x72xf32>
//       CHECK: scf.forall (%{{.*}}) in (2)
//       CHECK:   linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x72xf32>, tensor<72x49xf32>)
func.func @other_init(%x: tensor<1x16x9x9xf32>, %og: tensor<1x2x32x7x7xf32>) -> tensor<1x2x32x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x8x3x3xf32>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 32, 8, 3, 3] : tensor<64x8x3x3xf32> into tensor<2x32x8x3x3xf32>
  %xg = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 8, 9, 9] : tensor<1x16x9x9xf32> into tensor<1x2x8x9x9xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : tensor<1x2x8x9x9xf32>, tensor<2x32x8x3x3xf32>) outs(%og : tensor<1x2x32x7x7xf32>) -> tensor<1x2x32x7x7xf32> loc("grouped")
  return %r : tensor<1x2x32x7x7xf32>
}
