// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-collapse-elementwise-dims))' -split-input-file | FileCheck %s

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#zero = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>

// Identity reads: all four loops become one, the row is the whole tensor.
// CHECK-LABEL: func.func @silu
//       CHECK:   tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3]] : tensor<1x64x7x7xf32> into tensor<3136xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]
//  CHECK-SAME:     ins(%{{.*}} : tensor<3136xf32>)
//       CHECK:   tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2, 3]] output_shape [1, 64, 7, 7]
func.func @silu(%x: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x64x7x7xf32>) outs(%e : tensor<1x64x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %m = arith.mulf %a, %n : f32
    linalg.yield %m : f32
  } -> tensor<1x64x7x7xf32>
  %z = tensor.empty() : tensor<1x64x7x7xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<1x64x7x7xf32>) outs(%z : tensor<1x64x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x64x7x7xf32>
  return %r : tensor<1x64x7x7xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// A per-channel scale reads only the channel: H and W merge, the channel
// stays a loop of its own.
// CHECK-LABEL: func.func @channel_scale
//       CHECK:   tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x64x7x7xf32> into tensor<1x64x49xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
//  CHECK-SAME:     ins(%{{.*}}, %{{.*}} : tensor<1x64x49xf32>, tensor<64xf32>)
func.func @channel_scale(%x: tensor<1x64x7x7xf32>, %s: tensor<64xf32>) -> tensor<1x64x7x7xf32> {
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %y = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<1x64x7x7xf32>, tensor<64xf32>) outs(%e : tensor<1x64x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x64x7x7xf32>
  %z = tensor.empty() : tensor<1x64x7x7xf32>
  %r = linalg.copy ins(%y : tensor<1x64x7x7xf32>) outs(%z : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %r : tensor<1x64x7x7xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#zero = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>

// Left alone: a broadcast read (constant index), a body that reads its loop
// index, a convolution's epilogue, and a graph output's producer.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   return
func.func @left_alone(%x: tensor<1x8x7x7xf32>, %b: tensor<1x8x7x7xf32>, %w: tensor<8x8x1x1xf32>, %out: memref<1x8x7x7xf32>) -> (tensor<1x8x7x7xf32>, tensor<1x8x7x7xf32>, tensor<1x8x7x7xf32>) {
  %e = tensor.empty() : tensor<4x8x7x7xf32>
  %bc = linalg.generic {indexing_maps = [#zero, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x7x7xf32>) outs(%e : tensor<4x8x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8x7x7xf32>
  %s = tensor.extract_slice %bc[0, 0, 0, 0] [1, 8, 7, 7] [1, 1, 1, 1] : tensor<4x8x7x7xf32> to tensor<1x8x7x7xf32>
  %e2 = tensor.empty() : tensor<1x8x7x7xf32>
  %ix = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x7x7xf32>) outs(%e2 : tensor<1x8x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 3 : index
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    %m = arith.mulf %a, %g : f32
    linalg.yield %m : f32
  } -> tensor<1x8x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x7x7xf32>, tensor<8x8x1x1xf32>) outs(%b : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %e3 = tensor.empty() : tensor<1x8x7x7xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x7x7xf32>) outs(%e3 : tensor<1x8x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x7x7xf32>
  %e4 = tensor.empty() : tensor<1x8x7x7xf32>
  %neg = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x7x7xf32>) outs(%e4 : tensor<1x8x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.negf %a : f32
    linalg.yield %m : f32
  } -> tensor<1x8x7x7xf32>
  bufferization.materialize_in_destination %neg in restrict writable %out : (tensor<1x8x7x7xf32>, memref<1x8x7x7xf32>) -> ()
  return %s, %ix, %relu : tensor<1x8x7x7xf32>, tensor<1x8x7x7xf32>, tensor<1x8x7x7xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A depthwise convolution's activation keeps the convolution's shape: its
// vector kernel computes it in the accumulators, row by row. (Not for rows
// of fewer than 16 pixels, which alone would run as scalar loops.)
// CHECK-LABEL: func.func @depthwise_user
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   return
func.func @depthwise_user(%x: tensor<1x8x18x18xf32>, %w: tensor<8x3x3xf32>, %b: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x18x18xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x16x16xf32>
  return %relu : tensor<1x8x16x16xf32>
}
