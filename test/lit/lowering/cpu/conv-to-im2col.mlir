// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{schedule-file=%S/Inputs/conv-schedules.json},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{schedule-file=%S/Inputs/conv-schedules.json},kiln-cpu-conv-to-im2col{cache-bytes=4096}))' -split-input-file | FileCheck %s --check-prefix=SMALL

// Batch 1: the im2col gather keeps OH and OW as loops (input row reads, no
// div/rem), then a plain linalg.matmul of weights [F, C*KH*KW] by columns
// [C*KH*KW, OH*OW]; the collapses are views.
//       CHECK: #[[GATHER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-LABEL: func.func @conv
//   CHECK-NOT: linalg.conv_2d_nchw_fchw
//       CHECK: linalg.generic {indexing_maps = [#[[GATHER]], {{.*}}]{{.*}} outs({{.*}} : tensor<1x4x3x3x8x8xf32>)
//       CHECK: tensor.collapse_shape {{.*}} tensor<8x4x3x3xf32> into tensor<8x36xf32>
//       CHECK: tensor.collapse_shape {{.*}} tensor<1x4x3x3x8x8xf32> into tensor<36x64xf32>
//       CHECK: linalg.matmul {{.*}}ins({{.*}} : tensor<8x36xf32>, tensor<36x64xf32>) outs({{.*}} : tensor<8x64xf32>)
func.func @conv(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// Rows of 196 columns (14x14) would start at every 16-byte offset: the
// columns live in rows padded to whole 64-byte lines (208 floats), and the
// product reads a 196-column view of them. Its 4 output channels are one
// thread block, so the threads share out its pixels: the gather (15 KB,
// within the cache) is marked to be cut by output rows as well; with a
// 4 KB cache it is not.
// CHECK-LABEL: func.func @conv_padded_rows
//       CHECK: %[[COLS:.*]] = bufferization.alloc_tensor() : tensor<1x2x3x3x208xf32>
//       CHECK: %[[VIEW:.*]] = tensor.extract_slice %[[COLS]][0, 0, 0, 0, 0] [1, 2, 3, 3, 196] [1, 1, 1, 1, 1]
//       CHECK: %[[DEST:.*]] = tensor.expand_shape %[[VIEW]] {{.*}} into tensor<1x2x3x3x14x14xf32>
//       CHECK: linalg.generic {{.*}} outs(%[[DEST]] : tensor<1x2x3x3x14x14xf32>) attrs = {kiln.split_gather_rows}
// SMALL-LABEL: func.func @conv_padded_rows
//   SMALL-NOT: kiln.split_gather_rows
//       SMALL: linalg.matmul
//       CHECK: linalg.matmul {{.*}}ins({{.*}} : tensor<4x18xf32>, tensor<18x196xf32>)
func.func @conv_padded_rows(%x: tensor<1x2x16x16xf32>, %w: tensor<4x2x3x3xf32>, %o: tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x2x16x16xf32>, tensor<4x2x3x3xf32>) outs(%o : tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32>
  return %r : tensor<1x4x14x14xf32>
}

// -----

// Larger batches keep the batched generic contraction.
// CHECK-LABEL: func.func @conv_batch2
//       CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @conv_batch2(%x: tensor<2x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<2x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %r : tensor<2x8x8x8xf32>
}

// -----

// One output channel stays a (1 x C*KH*KW) by (C*KH*KW x OH*OW) matmul.
// CHECK-LABEL: func.func @conv_one_channel
//       CHECK: linalg.matmul {{.*}}ins({{.*}} : tensor<1x36xf32>, tensor<36x64xf32>) outs({{.*}} : tensor<1x64xf32>)
func.func @conv_one_channel(%x: tensor<1x4x10x10xf32>, %w: tensor<1x4x3x3xf32>, %o: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x10x10xf32>, tensor<1x4x3x3xf32>) outs(%o : tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %r : tensor<1x1x8x8xf32>
}

// -----

// A schedule set on the convolution (here from the schedule file, by node
// name) moves to its contraction, with the convolution's identity.
// CHECK-LABEL: func.func @conv_scheduled
//       CHECK: linalg.matmul {kiln.op_id = "conv0#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "im2col", {{.*}}reg_m = 4,
func.func @conv_scheduled(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("conv0")
  return %r : tensor<1x8x8x8xf32>
}

// -----

// A 1x1 convolution with unit strides reads its input as the columns
// directly: no gather, no copy.
// CHECK-LABEL: func.func @pointwise
//   CHECK-NOT: linalg.generic
//       CHECK: tensor.collapse_shape {{.*}} into tensor<16x1600xf32>
//       CHECK: linalg.matmul {{.*}}ins({{.*}} : tensor<32x16xf32>, tensor<16x1600xf32>) outs({{.*}} : tensor<32x1600xf32>)
func.func @pointwise(%x: tensor<1x16x40x40xf32>, %w: tensor<32x16x1x1xf32>, %o: tensor<1x32x40x40xf32>) -> tensor<1x32x40x40xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x40x40xf32>, tensor<32x16x1x1xf32>) outs(%o : tensor<1x32x40x40xf32>) -> tensor<1x32x40x40xf32>
  return %r : tensor<1x32x40x40xf32>
}

// -----

// A grouped convolution runs as a forall over the groups, each iteration one
// im2col contraction with the grouped op's schedule whose result goes back
// into its group's slice: the code does not grow with the group count.
// CHECK-LABEL: func.func @grouped(
//  CHECK-SAME:   %[[X:[^:]*]]: tensor<1x2x4x10x10xf32>, %[[W:[^:]*]]: tensor<2x3x4x3x3xf32>, %[[O:[^:]*]]: tensor<1x2x3x8x8xf32>)
//   CHECK-NOT: linalg.conv_2d_ngchw_gfchw
//       CHECK: scf.forall (%[[G:.*]]) in (2) shared_outs(%[[ACC:.*]] = %[[O]])
//       CHECK:   tensor.extract_slice %[[X]][0, %[[G]], 0, 0, 0] [1, 1, 4, 10, 10] [1, 1, 1, 1, 1] : tensor<1x2x4x10x10xf32> to tensor<1x4x10x10xf32>
//       CHECK:   tensor.extract_slice %[[W]][%[[G]], 0, 0, 0, 0] [1, 3, 4, 3, 3]
//       CHECK:   linalg.matmul {{.*}}kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "im2col"{{.*}}ins({{.*}} : tensor<3x36xf32>, tensor<36x64xf32>)
//       CHECK:   scf.forall.in_parallel
//       CHECK:     tensor.parallel_insert_slice {{.*}} into %[[ACC]][0, %[[G]], 0, 0, 0] [1, 1, 3, 8, 8]
//   CHECK-NOT: linalg.matmul
func.func @grouped(%x: tensor<1x2x4x10x10xf32>, %w: tensor<2x3x4x3x3xf32>, %o: tensor<1x2x3x8x8xf32>) -> tensor<1x2x3x8x8xf32> {
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x2x4x10x10xf32>, tensor<2x3x4x3x3xf32>) outs(%o : tensor<1x2x3x8x8xf32>) -> tensor<1x2x3x8x8xf32>
  return %r : tensor<1x2x3x8x8xf32>
}

// -----

// A contraction with two batch dims (attention heads, batch 2) stays a
// generic: a batch_matmul has one batch dim.
//   CHECK-LABEL: func.func @two_batch_dims
//     CHECK-NOT: linalg.batch_matmul
//         CHECK: linalg.generic
//    CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
#a = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#b = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#c = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
func.func @two_batch_dims(%x: tensor<2x8x40x15xf32>, %y: tensor<2x8x15x40xf32>, %o: tensor<2x8x40x40xf32>) -> tensor<2x8x40x40xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%x, %y : tensor<2x8x40x15xf32>, tensor<2x8x15x40xf32>) outs(%o : tensor<2x8x40x40xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x40x40xf32>
  return %0 : tensor<2x8x40x40xf32>
}


// -----

// Unit dims of contractions are dropped where the function has convolutions.
// q.k^T over [1, 1, H, T, D] (MaxViT's last stage, one window) then has one
// batch dim, but k is read as [H, N, K]: it stays a generic with k's map
// (the upstream specializer gave it batch_matmul's default maps, which read
// k as [H, K, N]).
//   CHECK-LABEL: func.func @transposed_operand_with_unit_dims
//     CHECK-NOT: linalg.batch_matmul
//         CHECK: linalg.generic
//    CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
//    CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x16x32xf32>, tensor<2x16x32xf32>)
#q = affine_map<(b, g, h, i, j, d) -> (b, g, h, i, d)>
#k = affine_map<(b, g, h, i, j, d) -> (b, g, h, j, d)>
#s = affine_map<(b, g, h, i, j, d) -> (b, g, h, i, j)>
func.func @transposed_operand_with_unit_dims(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x1x1xf32>, %co: tensor<1x8x6x6xf32>,
    %q: tensor<1x1x2x16x32xf32>, %k: tensor<1x1x2x16x32xf32>, %o: tensor<1x1x2x16x16xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x1x2x16x16xf32>) {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) outs(%co : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %0 = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x1x2x16x32xf32>, tensor<1x1x2x16x32xf32>) outs(%o : tensor<1x1x2x16x16xf32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %m = arith.mulf %p, %r : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x1x2x16x16xf32>
  return %c, %0 : tensor<1x8x6x6xf32>, tensor<1x1x2x16x16xf32>
}
