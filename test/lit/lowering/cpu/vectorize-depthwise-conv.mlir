// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 min-parallel-work=4096},kiln-cpu-vectorize-depthwise-conv),canonicalize,cse)' -split-input-file | FileCheck %s

// Stride 1, a width of whole vectors: a forall over channels, a loop over
// groups of output rows and one over groups of vectors along the width.
// Each input row is loaded once per kernel column and feeds the FMAs of
// every output row whose window covers it.
// CHECK-LABEL: func.func @stride1
//   CHECK-NOT: linalg.depthwise_conv
//       CHECK: scf.forall (%[[C:.*]]) in (4) {
//       CHECK:   scf.for %[[OH:.*]] = %c0 to %c8 step %c4 {
//       CHECK:     scf.for %[[OW:.*]] = %c0 to %c32 step %c16 {
//       CHECK:       %[[ACC:.*]] = vector.load %{{.*}}[%c0, %[[C]], %[[OH]], %[[OW]]] : memref<1x4x8x32xf32>, vector<8xf32>
//       CHECK:       %[[X:.*]] = vector.load %{{.*}}[%c0, %[[C]], %[[OH]], %[[OW]]] : memref<1x4x10x34xf32>, vector<8xf32>
//       CHECK:       %[[W:.*]] = memref.load %{{.*}}[%[[C]], %c0, %c0] : memref<4x3x3xf32>
//       CHECK:       %[[WB:.*]] = vector.broadcast %[[W]] : f32 to vector<8xf32>
//       CHECK:       vector.fma %[[X]], %[[WB]], %[[ACC]] : vector<8xf32>
// Second input row, first kernel column: kernel row 1 of output row 0 and
// kernel row 0 of output row 1.
//       CHECK:       %[[X1:.*]] = vector.load %{{.*}}[%c0, %[[C]], %{{.*}}, %[[OW]]] : memref<1x4x10x34xf32>
//       CHECK:       vector.fma %[[X1]], %{{.*}}, %{{.*}} : vector<8xf32>
//       CHECK:       vector.fma %[[X1]], %[[WB]], %{{.*}} : vector<8xf32>
//       CHECK:       vector.store %{{.*}}, %{{.*}}[%c0, %[[C]], %[[OH]], %[[OW]]] : memref<1x4x8x32xf32>, vector<8xf32>
//   CHECK-NOT: vector.maskedload
//   CHECK-NOT: vector.gather
//       CHECK:   return
func.func @stride1(%in: memref<1x4x10x34xf32>, %w: memref<4x3x3xf32>, %out: memref<1x4x8x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x10x34xf32>, memref<4x3x3xf32>) outs(%out : memref<1x4x8x32xf32>)
  return
}

// -----

// Stride 2 along the width: two contiguous vectors de-interleaved by a
// shuffle. The width (11) leaves a partial vector: its accumulator, its
// inputs and its store are masked, and the inputs never read past the row
// (the last tap of the last lane is column 2*10+4 = 24, the row's last).
// Small ops stay on one thread.
// CHECK-LABEL: func.func @stride2_tail
//   CHECK-NOT: scf.forall
//       CHECK: scf.for %[[C:.*]] = %c0 to %c2 step %c1 {
//       CHECK:   %[[M3:.*]] = vector.constant_mask [3] : vector<8xi1>
//       CHECK:   vector.maskedload %{{.*}}[%c0, %[[C]], %c0, %c8], %[[M3]], %{{.*}} : memref<1x2x4x11xf32>
//       CHECK:   %[[LO:.*]] = vector.load %{{.*}}[%c0, %[[C]], %c0, %c0] : memref<1x2x8x25xf32>, vector<8xf32>
//       CHECK:   %[[HI:.*]] = vector.load %{{.*}}[%c0, %[[C]], %c0, %c8] : memref<1x2x8x25xf32>, vector<8xf32>
//       CHECK:   vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// Last kernel column of the partial vector: columns 20..24, five elements.
//       CHECK:   %[[M5:.*]] = vector.constant_mask [5] : vector<8xi1>
//       CHECK:   %[[TAIL:.*]] = vector.maskedload %{{.*}}[%c0, %[[C]], %c0, %c20], %[[M5]], %{{.*}} : memref<1x2x8x25xf32>
//       CHECK:   vector.shuffle %[[TAIL]], %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14]
//       CHECK:   vector.maskedstore %{{.*}}[%c0, %[[C]], %c0, %c8], %[[M3]], %{{.*}} : memref<1x2x4x11xf32>
//   CHECK-NOT: linalg.depthwise_conv
func.func @stride2_tail(%in: memref<1x2x8x25xf32>, %w: memref<2x5x5xf32>, %out: memref<1x2x4x11xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%in, %w : memref<1x2x8x25xf32>, memref<2x5x5xf32>) outs(%out : memref<1x2x4x11xf32>)
  return
}

// -----

// Stride 2 with an input row exactly as wide as the window needs: the last
// group of whole vectors would read one element past the row, so it leaves
// the main loop and reads its last half-vector masked.
// CHECK-LABEL: func.func @stride2_exact_row
//       CHECK: scf.forall
//       CHECK:   vector.constant_mask [7] : vector<8xi1>
//       CHECK:   vector.maskedload %{{.*}}[%c0, %{{.*}}, %{{.*}}, %c58]
//   CHECK-NOT: linalg.depthwise_conv
func.func @stride2_exact_row(%in: memref<1x8x9x65xf32>, %w: memref<8x3x3xf32>, %out: memref<1x8x4x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w : memref<1x8x9x65xf32>, memref<8x3x3xf32>) outs(%out : memref<1x8x4x32xf32>)
  return
}

// -----

// Dilation 2: the taps of an output row are two columns apart, and input
// row t serves output row r with filter row (t - r) / 2 where that divides
// (row 1 is filter row 0 of output row 1, none of output row 0).
// CHECK-LABEL: func.func @dilated
//   CHECK-NOT: linalg.depthwise_conv
//       CHECK: scf.for %[[OH:.*]] = %c0 to %c8 step %c4 {
//       CHECK:   scf.for %[[OW:.*]] = %c0 to %c32 step %c16 {
//       CHECK:     %[[X0:.*]] = vector.load %{{.*}}[%c0, %{{.*}}, %[[OH]], %[[OW]]] : memref<1x4x12x36xf32>
//       CHECK:     %[[W0:.*]] = vector.broadcast
//       CHECK:     vector.fma %[[X0]], %[[W0]]
//       CHECK:     %[[COL1:.*]] = arith.addi %[[OW]], %c2 : index
//       CHECK:     vector.load %{{.*}}[%c0, %{{.*}}, %[[OH]], %[[COL1]]] : memref<1x4x12x36xf32>
//       CHECK:     %[[COL2:.*]] = arith.addi %[[OW]], %c4 : index
//       CHECK:     vector.load %{{.*}}[%c0, %{{.*}}, %[[OH]], %[[COL2]]] : memref<1x4x12x36xf32>
//       CHECK:     %[[X1:.*]] = vector.load %{{.*}}[%c0, %{{.*}}, %{{.*}}, %[[OW]]] : memref<1x4x12x36xf32>
//       CHECK:     vector.fma %[[X1]], %[[W0]]
func.func @dilated(%in: memref<1x4x12x36xf32>, %w: memref<4x3x3xf32>, %out: memref<1x4x8x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x12x36xf32>, memref<4x3x3xf32>) outs(%out : memref<1x4x8x32xf32>)
  return
}

// Forms the kernel does not cover stay linalg.
// CHECK-LABEL: func.func @stride3
//       CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @stride3(%in: memref<1x4x10x97xf32>, %w: memref<4x3x3xf32>, %out: memref<1x4x8x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 3]> : tensor<2xi64>} ins(%in, %w : memref<1x4x10x97xf32>, memref<4x3x3xf32>) outs(%out : memref<1x4x8x32xf32>)
  return
}

// CHECK-LABEL: func.func @dynamic
//       CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @dynamic(%in: memref<?x4x10x34xf32>, %w: memref<4x3x3xf32>, %out: memref<?x4x8x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<?x4x10x34xf32>, memref<4x3x3xf32>) outs(%out : memref<?x4x8x32xf32>)
  return
}

// CHECK-LABEL: func.func @f16
//       CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @f16(%in: memref<1x4x10x34xf16>, %w: memref<4x3x3xf16>, %out: memref<1x4x8x32xf16>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x10x34xf16>, memref<4x3x3xf16>) outs(%out : memref<1x4x8x32xf16>)
  return
}

// A row with a non-unit innermost stride cannot be loaded as a vector.
// CHECK-LABEL: func.func @strided_rows
//       CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @strided_rows(%in: memref<1x4x10x34xf32, strided<[2720, 680, 68, 2]>>, %w: memref<4x3x3xf32>, %out: memref<1x4x8x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x10x34xf32, strided<[2720, 680, 68, 2]>>, memref<4x3x3xf32>) outs(%out : memref<1x4x8x32xf32>)
  return
}

// Tensor semantics: left to bufferization first.
// CHECK-LABEL: func.func @tensors
//       CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @tensors(%in: tensor<1x4x10x34xf32>, %w: tensor<4x3x3xf32>, %out: tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x4x10x34xf32>, tensor<4x3x3xf32>) outs(%out : tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32>
  return %r : tensor<1x4x8x32xf32>
}

// -----

// NCHW max pooling (3x3, stride 2, ResNet's and SqueezeNet's) runs the same
// loops with a maximum for fma and no filter (x where x > acc, one vmaxps
// on x86; a NaN input is skipped, docs/operators.md): the strided inputs are
// de-interleaved by a shuffle, the accumulators (all 7 output rows of a
// channel at once) start from the output's initial value, and the width (7)
// is one masked vector.
// CHECK-LABEL: func.func @max_pool_stride2
//   CHECK-NOT: linalg.pooling_nchw_max
//       CHECK: scf.for %[[C:.*]] = %c0 to %c3 step %c1 {
//       CHECK:   %[[ACC:.*]] = vector.maskedload %{{.*}}[%c0, %[[C]], %c0, %c0], %{{.*}}, %{{.*}} : memref<1x3x7x7xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
//       CHECK:   %[[LO:.*]] = vector.load %{{.*}}[%c0, %[[C]], %c0, %c0] : memref<1x3x15x15xf32>, vector<8xf32>
//       CHECK:   %[[HI:.*]] = vector.maskedload %{{.*}}[%c0, %[[C]], %c0, %c8]
//       CHECK:   %[[X:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
//       CHECK:   %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[ACC]] : vector<8xf32>
//       CHECK:   arith.select %[[GT]], %[[X]], %[[ACC]] : vector<8xi1>, vector<8xf32>
//   CHECK-NOT:   vector.fma
//       CHECK:   vector.maskedstore %{{.*}}[%c0, %[[C]], %c0, %c0]
func.func @max_pool_stride2(%in: memref<1x3x15x15xf32>, %window: memref<3x3xf32>, %out: memref<1x3x7x7xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %window : memref<1x3x15x15xf32>, memref<3x3xf32>) outs(%out : memref<1x3x7x7xf32>)
  return
}

// -----

// Sum pooling (an AveragePool before its division; DenseNet's 2x2 stride-2
// transitions) adds instead.
// CHECK-LABEL: func.func @sum_pool_stride2
//   CHECK-NOT: linalg.pooling_nchw_sum
//       CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
//       CHECK: arith.addf {{.*}} : vector<8xf32>
//   CHECK-NOT: arith.cmpf
//       CHECK: vector.store
func.func @sum_pool_stride2(%in: memref<1x2x16x16xf32>, %window: memref<2x2xf32>, %out: memref<1x2x8x8xf32>) {
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %window : memref<1x2x16x16xf32>, memref<2x2xf32>) outs(%out : memref<1x2x8x8xf32>)
  return
}

// -----

// Pooling into an arena buffer takes its initializer and what follows into
// the accumulators too: they start at -inf, the ReLU applies before the one
// store into the ReLU's output, and the pooled output is neither filled nor
// read back. The -inf fill of the output between the padded input's border
// fills and the pooling does not keep those fills out of the loop.
// (The maximum with -inf folds away.)
// CHECK-LABEL: func.func @max_pool_fill_relu
//   CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
//   CHECK-NOT: linalg.fill
//       CHECK: scf.for %[[C:.*]] = %c0 to %c3 step %c1
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x1x1x17xf32
//   CHECK-NOT:   memref<1x3x8x8xf32>, vector<8xf32>
//       CHECK:   %[[R:.*]] = arith.maximumf %{{.*}}, %[[ZERO]] : vector<8xf32>
//  CHECK-NEXT:   vector.store %[[R]], %{{.*}}[%c0, %[[C]], %c0, %c0] : memref<1x3x8x8xf32>, vector<8xf32>
//   CHECK-NOT: linalg.generic
//   CHECK-NOT: linalg.fill
func.func @max_pool_fill_relu(%arena: memref<?xi8>, %window: memref<3x3xf32>, %y: memref<1x3x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %in = memref.view %arena[%c0][] : memref<?xi8> to memref<1x3x17x17xf32>
  %top = memref.subview %in[0, 0, 0, 0] [1, 3, 1, 17] [1, 1, 1, 1] : memref<1x3x17x17xf32> to memref<1x3x1x17xf32, strided<[867, 289, 17, 1]>>
  linalg.fill ins(%ninf : f32) outs(%top : memref<1x3x1x17xf32, strided<[867, 289, 17, 1]>>)
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x3x8x8xf32>
  linalg.fill ins(%ninf : f32) outs(%c : memref<1x3x8x8xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %window : memref<1x3x17x17xf32>, memref<3x3xf32>) outs(%c : memref<1x3x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x3x8x8xf32>) outs(%y : memref<1x3x8x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// The bias broadcast before the convolution and the Clip after it run in the
// accumulators: each starts from its channel's bias, and max/min apply
// before the store into the Clip's output (here the interior of the next
// layer's padded buffer). Neither stays an op of its own, and C is never
// written.
// CHECK-LABEL: func.func @bias_clip
//   CHECK-NOT: linalg.broadcast
//       CHECK: scf.forall (%[[C:.*]]) in (4)
//       CHECK:   %[[B:.*]] = memref.load %{{.*}}[%[[C]]] : memref<4xf32>
//       CHECK:   %[[ACC:.*]] = vector.broadcast %[[B]] : f32 to vector<8xf32>
//       CHECK:   vector.fma %{{.*}}, %{{.*}}, %[[ACC]]
//       CHECK:   arith.maximumf {{.*}} : vector<8xf32>
//       CHECK:   %[[R:.*]] = arith.minimumf {{.*}} : vector<8xf32>
//       CHECK:   vector.store %[[R]], %{{.*}} : memref<1x4x16x16xf32, strided<[1296, 324, 18, 1], offset: 19>>, vector<8xf32>
//   CHECK-NOT: linalg.generic
func.func @bias_clip(%in: memref<1x4x18x18xf32>, %w: memref<4x3x3xf32>, %bias: memref<4xf32>, %arena: memref<?xi8>, %pad: memref<1x4x18x18xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %c = memref.view %arena[%c0][] : memref<?xi8> to memref<1x4x16x16xf32>
  linalg.broadcast ins(%bias : memref<4xf32>) outs(%c : memref<1x4x16x16xf32>) dimensions = [0, 2, 3]
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x18x18xf32>, memref<4x3x3xf32>) outs(%c : memref<1x4x16x16xf32>)
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 4, 16, 16] [1, 1, 1, 1] : memref<1x4x18x18xf32> to memref<1x4x16x16xf32, strided<[1296, 324, 18, 1], offset: 19>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x4x16x16xf32>) outs(%inner : memref<1x4x16x16xf32, strided<[1296, 324, 18, 1], offset: 19>>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// The fills of the padded input's borders right before the convolution
// (the bias initializer of the output between them touches other bytes)
// become fills of each channel's plane inside the kernel's loop, before the
// plane is read: run on their own they touched a cache line per padded row.
// A fill that does not span every channel, or one separated from the
// convolution by a write to the input, stays where it is.
// CHECK-LABEL: func.func @border_fills
//       CHECK: %[[VIEW:.*]] = memref.view %{{.*}} : memref<?xi8> to memref<1x4x10x34xf32>
//       CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x2x1x34xf32
//   CHECK-NOT: linalg.fill
//       CHECK: scf.forall (%[[C:.*]]) in (4) {
//       CHECK:   %[[TOP:.*]] = memref.subview %[[VIEW]][0, %[[C]], 0, 0] [1, 1, 1, 34] [1, 1, 1, 1]
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]] :
//       CHECK:   %[[LEFT:.*]] = memref.subview %[[VIEW]][0, %[[C]], 1, 0] [1, 1, 8, 1] [1, 1, 1, 1]
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[LEFT]] :
//       CHECK:   vector.fma
//   CHECK-NOT: linalg.fill
//       CHECK: return
func.func @border_fills(%arena: memref<?xi8>, %w: memref<4x3x3xf32>, %bias: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %in = memref.view %arena[%c0][] : memref<?xi8> to memref<1x4x10x34xf32>
  %half = memref.subview %in[0, 0, 0, 0] [1, 2, 1, 34] [1, 1, 1, 1] : memref<1x4x10x34xf32> to memref<1x2x1x34xf32, strided<[1360, 340, 34, 1]>>
  linalg.fill ins(%zero : f32) outs(%half : memref<1x2x1x34xf32, strided<[1360, 340, 34, 1]>>)
  %top = memref.subview %in[0, 0, 0, 0] [1, 4, 1, 34] [1, 1, 1, 1] : memref<1x4x10x34xf32> to memref<1x4x1x34xf32, strided<[1360, 340, 34, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x4x1x34xf32, strided<[1360, 340, 34, 1]>>)
  %left = memref.subview %in[0, 0, 1, 0] [1, 4, 8, 1] [1, 1, 1, 1] : memref<1x4x10x34xf32> to memref<1x4x8x1xf32, strided<[1360, 340, 34, 1], offset: 34>>
  linalg.fill ins(%zero : f32) outs(%left : memref<1x4x8x1xf32, strided<[1360, 340, 34, 1], offset: 34>>)
  %out = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x4x8x32xf32>
  linalg.broadcast ins(%bias : memref<4xf32>) outs(%out : memref<1x4x8x32xf32>) dimensions = [0, 2, 3]
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x10x34xf32>, memref<4x3x3xf32>) outs(%out : memref<1x4x8x32xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @border_fill_then_write
//       CHECK: linalg.fill
//       CHECK: linalg.generic
//       CHECK: scf.forall
//   CHECK-NOT: linalg.fill
func.func @border_fill_then_write(%arena: memref<?xi8>, %w: memref<4x3x3xf32>, %x: memref<1x4x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %in = memref.view %arena[%c0][] : memref<?xi8> to memref<1x4x10x34xf32>
  %top = memref.subview %in[0, 0, 0, 0] [1, 4, 1, 34] [1, 1, 1, 1] : memref<1x4x10x34xf32> to memref<1x4x1x34xf32, strided<[1360, 340, 34, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x4x1x34xf32, strided<[1360, 340, 34, 1]>>)
  %inner = memref.subview %in[0, 0, 1, 1] [1, 4, 8, 32] [1, 1, 1, 1] : memref<1x4x10x34xf32> to memref<1x4x8x32xf32, strided<[1360, 340, 34, 1], offset: 35>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x4x8x32xf32>) outs(%inner : memref<1x4x8x32xf32, strided<[1360, 340, 34, 1], offset: 35>>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  %out = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x4x8x32xf32>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x10x34xf32>, memref<4x3x3xf32>) outs(%out : memref<1x4x8x32xf32>)
  return
}

// -----

// An activation of a map under 16 pixels wide comes collapsed into long
// rows (kiln-cpu-collapse-elementwise-dims); it joins the kernel in the
// convolution's shape all the same, and the kernel's loop says that it
// overwrites the activation's buffer (a product before it may then keep
// its own output, which had those bytes, in registers). Where the kernel
// cannot take it (here: it also reads another buffer's rows), it stays as
// it was.
// CHECK-LABEL: func.func @collapsed_clip
//   CHECK-NOT: linalg.generic
//       CHECK: scf.for
//       CHECK:   arith.minimumf {{.*}} : vector<8xf32>
//       CHECK: } {kiln.overwrites = array<i64: 8192, 9792>}
//   CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @collapsed_add
//       CHECK: scf.for
//       CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<120xf32>)
func.func @collapsed_clip(%in: memref<1x4x12x12xf32>, %w: memref<4x3x3xf32>, %arena: memref<?xi8>) {
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x4x10x10xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x12x12xf32>, memref<4x3x3xf32>) outs(%c : memref<1x4x10x10xf32>)
  %d = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x4x10x10xf32>
  %cf = memref.collapse_shape %c [[0, 1, 2, 3]] : memref<1x4x10x10xf32> into memref<400xf32>
  %df = memref.collapse_shape %d [[0, 1, 2, 3]] : memref<1x4x10x10xf32> into memref<400xf32>
  linalg.generic {indexing_maps = [affine_map<(a) -> (a)>, affine_map<(a) -> (a)>], iterator_types = ["parallel"]} ins(%cf : memref<400xf32>) outs(%df : memref<400xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  }
  return
}
func.func @collapsed_add(%in: memref<1x4x12x12xf32>, %w: memref<4x3x3xf32>, %arena: memref<?xi8>, %y: memref<120xf32>) {
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x4x10x10xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x12x12xf32>, memref<4x3x3xf32>) outs(%c : memref<1x4x10x10xf32>)
  %d = memref.view %arena[%c8192][] : memref<?xi8> to memref<120xf32>
  %cf = memref.collapse_shape %c [[0, 1, 2, 3]] : memref<1x4x10x10xf32> into memref<400xf32>
  %part = memref.subview %cf[0] [120] [1] : memref<400xf32> to memref<120xf32, strided<[1]>>
  %pc = memref.cast %part : memref<120xf32, strided<[1]>> to memref<120xf32>
  linalg.generic {indexing_maps = [affine_map<(a) -> (a)>, affine_map<(a) -> (a)>, affine_map<(a) -> (a)>], iterator_types = ["parallel"]} ins(%pc, %y : memref<120xf32>, memref<120xf32>) outs(%d : memref<120xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An activation that also reads its own output's bytes (a residual added in
// place) is fused, but the loop does not say it overwrites them: it reads
// them first.
// CHECK-LABEL: func.func @in_place_residual
//   CHECK-NOT: linalg.generic
//       CHECK: arith.addf {{.*}} : vector<8xf32>
//   CHECK-NOT: kiln.overwrites
//       CHECK: return
func.func @in_place_residual(%in: memref<1x4x12x12xf32>, %w: memref<4x3x3xf32>, %arena: memref<?xi8>) {
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x4x10x10xf32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x12x12xf32>, memref<4x3x3xf32>) outs(%c : memref<1x4x10x10xf32>)
  %d = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x4x10x10xf32>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %d : memref<1x4x10x10xf32>, memref<1x4x10x10xf32>) outs(%d : memref<1x4x10x10xf32>) {
  ^bb0(%i: f32, %r: f32, %o: f32):
    %s = arith.addf %i, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Into the caller's output (a model whose last op is the pooling) the -inf
// fill runs in the accumulators too: the output is written once, not
// filled and read back.
// CHECK-LABEL: func.func @max_pool_fill_caller_output
//   CHECK-NOT: linalg.fill
//       CHECK: scf.for
//   CHECK-NOT:   vector.load %{{.*}} : memref<1x3x8x8xf32>
//       CHECK:   vector.store %{{.*}} : memref<1x3x8x8xf32>, vector<8xf32>
//   CHECK-NOT: linalg.fill
func.func @max_pool_fill_caller_output(%in: memref<1x3x17x17xf32>, %window: memref<3x3xf32>, %out: memref<1x3x8x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%out : memref<1x3x8x8xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %window : memref<1x3x17x17xf32>, memref<3x3xf32>) outs(%out : memref<1x3x8x8xf32>)
  return
}

// -----

// The caller reads its output after the function: an activation from it
// into another buffer is not fused (the output would never be written),
// while the bias initializer is.
// CHECK-LABEL: func.func @caller_output_read_later
//   CHECK-NOT: linalg.broadcast
//       CHECK: vector.fma
//       CHECK: vector.store %{{.*}}, %{{.*}} : memref<1x4x10x10xf32>, vector<8xf32>
//       CHECK: linalg.generic
func.func @caller_output_read_later(%in: memref<1x4x12x12xf32>, %w: memref<4x3x3xf32>, %bias: memref<4xf32>, %out: memref<1x4x10x10xf32>, %y: memref<1x4x10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.broadcast ins(%bias : memref<4xf32>) outs(%out : memref<1x4x10x10xf32>) dimensions = [0, 2, 3]
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x4x12x12xf32>, memref<4x3x3xf32>) outs(%out : memref<1x4x10x10xf32>)
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out : memref<1x4x10x10xf32>) outs(%y : memref<1x4x10x10xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    linalg.yield %m : f32
  }
  return
}
