// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{block-bytes=20000 cache-bytes=80000 max-chunks=4},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s

// The im2col matrix (36 x 1024 floats) is larger than four 20000-byte tiles
// and the 80000-byte cache, and its 8 output channels do not pay for its
// round trip through memory, so the convolution is split into blocks of
// output rows: 20000 / (36*4*32)
// allows 4 rows, which divide 32 into 8 blocks, in 4 chunks of 2. Each
// chunk owns one K x (rows * OW) scratch tile; the bias broadcast moves
// into the block.
//   CHECK-DAG: #[[FIRST:.*]] = affine_map<(d0) -> (d0 * 2)>
//   CHECK-DAG: #[[COUNT:.*]] = affine_map<(d0) -> (2, d0 * -2 + 8)>
//   CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0) -> (d0 * 4)>
// CHECK-LABEL: func.func @blocked
//       CHECK: %[[SCRATCH:.*]] = tensor.empty() : tensor<4x36x128xf32>
//       CHECK: scf.forall (%[[P:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}}, %[[S:.*]] = %[[SCRATCH]])
//       CHECK:   %[[FIRSTBLOCK:.*]] = affine.apply #[[FIRST]](%[[P]])
//       CHECK:   %[[N:.*]] = affine.min #[[COUNT]](%[[P]])
//       CHECK:   %[[ROW0:.*]] = affine.apply #[[ROWS]](%[[FIRSTBLOCK]])
//       CHECK:   tensor.extract_slice %[[S]][%[[P]], 0, 0] [1, 36, 128] [1, 1, 1] : tensor<4x36x128xf32> to tensor<36x128xf32>
//       CHECK:   scf.for %{{.*}} = %{{.*}} to %[[N]]
//       CHECK:     tensor.extract_slice %{{.*}} [1, 4, 6, 34] [1, 1, 1, 1] : tensor<1x4x34x34xf32> to tensor<1x4x6x34xf32>
//       CHECK:     linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x3x3x4x32xf32>)
//       CHECK:     linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<1x8x4x32xf32>)
//       CHECK:     linalg.matmul {{.*}}ins(%{{.*}} : tensor<8x36xf32>, tensor<36x128xf32>) outs(%{{.*}} : tensor<8x128xf32>)
//       CHECK:     tensor.insert_slice
//       CHECK:   scf.forall.in_parallel
//       CHECK:     tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, 0, %[[ROW0]], 0] [1, 8, %{{.*}}, 32]
//       CHECK:     tensor.parallel_insert_slice %{{.*}} into %[[S]][%[[P]], 0, 0] [1, 36, 128]
//   CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @blocked(%x: tensor<1x4x34x34xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x32x32xf32> {
  %e = tensor.empty() : tensor<1x8x32x32xf32>
  %o = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x32x32xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x34x34xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  return %r : tensor<1x8x32x32xf32>
}

// -----

// Stride 2: a block of 4 output rows reads (4 - 1) * 2 + 3 = 9 input rows.
// CHECK-LABEL: func.func @strided
//       CHECK: scf.forall
//       CHECK:   tensor.extract_slice %{{.*}} [1, 4, 9, 66] [1, 1, 1, 1] : tensor<1x4x66x66xf32> to tensor<1x4x9x66xf32>
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x3x3x4x32xf32>)
func.func @strided(%x: tensor<1x4x66x66xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x66x66xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  return %r : tensor<1x8x32x32xf32>
}

// -----

// Small im2col matrices (36 x 64 floats) stay one gather and one matmul.
// CHECK-LABEL: func.func @small
//   CHECK-NOT: scf.forall
//       CHECK: linalg.matmul
func.func @small(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// The convolution's only user, an elementwise op over its output (here a
// residual add and ReLU), runs on each block right after the block's
// matmul: the residual's rows of the block are sliced at the block's
// absolute row, and the result overwrites the block.
//   CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0 + d1)>
// CHECK-LABEL: func.func @block_epilogue
//  CHECK-SAME: (%{{.*}}: tensor<1x4x34x34xf32>, %{{.*}}: tensor<8x4x3x3xf32>, %[[RES:.*]]: tensor<1x8x32x32xf32>)
//       CHECK: scf.forall
//       CHECK:   scf.for
//       CHECK:     %[[MM:.*]] = linalg.matmul
//       CHECK:     %[[BLOCK:.*]] = tensor.expand_shape %[[MM]]
//       CHECK:     %[[R:.*]] = affine.apply #[[ROW]]
//       CHECK:     %[[RS:.*]] = tensor.extract_slice %[[RES]][0, 0, %[[R]], 0] [1, 8, 4, 32] [1, 1, 1, 1]
//       CHECK:     %[[E:.*]] = linalg.generic {{.*}} ins(%[[BLOCK]], %[[RS]] : {{.*}}) outs(%[[BLOCK]] : tensor<1x8x4x32xf32>)
//       CHECK:       arith.addf
//       CHECK:       arith.maximumf
//       CHECK:     tensor.insert_slice %[[E]]
//   CHECK-NOT: linalg.generic
//       CHECK: return
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#unit = affine_map<(n, c, h, w) -> (0, c, h, w)>
func.func @block_epilogue(%x: tensor<1x4x34x34xf32>, %w: tensor<8x4x3x3xf32>, %r: tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x32x32xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x34x34xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %a = linalg.generic {indexing_maps = [#unit, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %r : tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>) outs(%e : tensor<1x8x32x32xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %s = arith.addf %p, %q : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x32x32xf32>
  return %a : tensor<1x8x32x32xf32>
}

// -----

// A convolution result with two users stays whole: its elementwise user
// runs after the blocked loop.
// CHECK-LABEL: func.func @shared_result
//       CHECK: scf.forall
//   CHECK-NOT: arith.maximumf
//       CHECK: scf.forall.in_parallel
//       CHECK: arith.maximumf
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @shared_result(%x: tensor<1x4x34x34xf32>, %w: tensor<8x4x3x3xf32>) -> (tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x32x32xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x34x34xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : tensor<1x8x32x32xf32>) outs(%e : tensor<1x8x32x32xf32>) {
  ^bb0(%p: f32, %out: f32):
    %m = arith.maximumf %p, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x32x32xf32>
  return %a, %y : tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>
}

// -----

// A bias broadcast CSE shared with another op (equal biases, as untrained
// BatchNorms fold to) still moves into the blocks: the convolution gets a
// broadcast of its own, and the other user keeps the shared one.
// CHECK-LABEL: func.func @shared_init
//       CHECK: %[[SHARED:.*]] = linalg.broadcast
//       CHECK: scf.forall
//       CHECK:     linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<1x8x4x32xf32>)
//       CHECK: return %{{.*}}, %[[SHARED]]
func.func @shared_init(%x: tensor<1x4x34x34xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> (tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>) {
  %e = tensor.empty() : tensor<1x8x32x32xf32>
  %o = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x32x32xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x34x34xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  return %r, %o : tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>
}
