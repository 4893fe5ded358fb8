// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-block-dynamic-images),canonicalize,cse)' -split-input-file | FileCheck %s

// A stride-2 3x3 convolution over a run-time batch and width (height 12):
// tiles of the whole height by 32 columns (about 256 pixels), each a static
// convolution on the 25 x 65 input window it reads, from the bias broadcast
// into the tile; the last tile of a row shifted back to end at the edge.
// Narrower images take 4-column tiles, then single columns; an empty one
// the dynamic op.

// CHECK-LABEL: func.func @conv_dynamic_width
// CHECK:       %[[OW:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK:       %[[FITS:.*]] = arith.cmpi sge, %[[OW]], %c32
// CHECK:       scf.if %[[FITS]]
// CHECK:         scf.for %[[N:.*]] = %c0 to %{{.*}} step %c1
// CHECK:           scf.for %[[J:.*]] = %c0 to %[[OW]] step %c32 iter_args(%[[ACC:.*]] =
// CHECK:             %[[W:.*]] = arith.minsi %[[J]], %{{.*}} : index
// CHECK:             %[[IW:.*]] = arith.muli %[[W]], %c2
// CHECK:             %[[IN:.*]] = tensor.extract_slice %arg0[%[[N]], 0, 0, %[[IW]]] [1, 16, 25, 65]
// CHECK:             %[[DEST:.*]] = tensor.extract_slice %[[ACC]][%[[N]], 0, 0, %[[W]]] [1, 32, 12, 32]
// CHECK:             %[[BIAS:.*]] = linalg.broadcast ins(%arg2 : tensor<32xf32>) outs(%[[DEST]] : tensor<1x32x12x32xf32>)
// CHECK:             %[[TILE:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[IN]], %arg1 : tensor<1x16x25x65xf32>, tensor<32x16x3x3xf32>) outs(%[[BIAS]] : tensor<1x32x12x32xf32>)
// CHECK:             tensor.insert_slice %[[TILE]] into %[[ACC]][%[[N]], 0, 0, %[[W]]] [1, 32, 12, 32]
// CHECK:       } else {
// CHECK:         arith.cmpi sge, %[[OW]], %c4
// CHECK:           linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x32x12x4xf32>
// CHECK:           arith.cmpi sge, %[[OW]], %c1
// CHECK:             linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x32x12x1xf32>
// CHECK:             linalg.conv_2d_nchw_fchw {{.*}} -> tensor<?x32x12x?xf32>
func.func @conv_dynamic_width(%x: tensor<?x16x26x?xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>) -> tensor<?x32x12x?xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x16x26x?xf32>
  %wi = tensor.dim %x, %c3 : tensor<?x16x26x?xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = arith.subi %wi, %c3 : index
  %t2 = arith.divui %t, %c2 : index
  %ow = arith.addi %t2, %c1 : index
  %e = tensor.empty(%n, %ow) : tensor<?x32x12x?xf32>
  %init = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<?x32x12x?xf32>) dimensions = [0, 2, 3]
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<?x16x26x?xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<?x32x12x?xf32>) -> tensor<?x32x12x?xf32>
  return %y : tensor<?x32x12x?xf32>
}

// -----

// Static images: left alone.
// CHECK-LABEL: func.func @static_image
// CHECK-NOT:   scf.if
// CHECK:       linalg.pooling_nchw_max {{.*}} -> tensor<1x8x4x4xf32>
func.func @static_image(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<1x8x8x8xf32>, tensor<2x2xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// A convolution over a static batch of two: a loop over the images, each
// a batch-1 convolution of the whole image from the bias broadcast made at
// its shape (no row or column loops).
// CHECK-LABEL: func.func @conv_static_batch
// CHECK:       scf.for %[[N:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x32x8x8xf32>)
// CHECK-NOT:     scf.for
// CHECK:         %[[IN:.*]] = tensor.extract_slice %arg0[%[[N]], 0, 0, 0] [1, 16, 10, 10]
// CHECK:         %[[DEST:.*]] = tensor.extract_slice %[[ACC]][%[[N]], 0, 0, 0] [1, 32, 8, 8]
// CHECK:         %[[BIAS:.*]] = linalg.broadcast ins(%arg2 : tensor<32xf32>) outs(%[[DEST]] : tensor<1x32x8x8xf32>)
// CHECK:         %[[TILE:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[IN]], %arg1 : tensor<1x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%[[BIAS]] : tensor<1x32x8x8xf32>)
// CHECK:         tensor.insert_slice %[[TILE]] into %[[ACC]][%[[N]], 0, 0, 0] [1, 32, 8, 8]
func.func @conv_static_batch(%x: tensor<2x16x10x10xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>) -> tensor<2x32x8x8xf32> {
  %e = tensor.empty() : tensor<2x32x8x8xf32>
  %init = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<2x32x8x8xf32>) dimensions = [0, 2, 3]
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  return %y : tensor<2x32x8x8xf32>
}

// -----

// A grouped convolution over a static batch of three, stride 2: the same
// loop over 5-D images [1, G, C, H, W], the window the stride reads (15 of
// the 16 input rows and columns).
// CHECK-LABEL: func.func @grouped_static_batch
// CHECK:       scf.for %[[N:.*]] = %c0 to %c3 step %c1
// CHECK-NOT:     scf.for
// CHECK:         %[[IN:.*]] = tensor.extract_slice %arg0[%[[N]], 0, 0, 0, 0] [1, 4, 8, 15, 15]
// CHECK:         %[[DEST:.*]] = tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0, 0] [1, 4, 4, 7, 7]
// CHECK:         %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[DEST]] : tensor<1x4x4x7x7xf32>)
// CHECK:         linalg.conv_2d_ngchw_gfchw {{.*}} ins(%[[IN]], %arg1 : tensor<1x4x8x15x15xf32>, tensor<4x4x8x3x3xf32>) outs(%[[ZERO]] : tensor<1x4x4x7x7xf32>)
func.func @grouped_static_batch(%x: tensor<3x4x8x16x16xf32>, %w: tensor<4x4x8x3x3xf32>) -> tensor<3x4x4x7x7xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4x4x7x7xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<3x4x4x7x7xf32>) -> tensor<3x4x4x7x7xf32>
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<3x4x8x16x16xf32>, tensor<4x4x8x3x3xf32>) outs(%init : tensor<3x4x4x7x7xf32>) -> tensor<3x4x4x7x7xf32>
  return %y : tensor<3x4x4x7x7xf32>
}

// -----

// Static batches of depthwise convolutions and pooling keep their op: their
// kernels take the batch.
// CHECK-LABEL: func.func @depthwise_static_batch
// CHECK-NOT:   scf.for
// CHECK:       linalg.depthwise_conv_2d_nchw_chw {{.*}} -> tensor<2x8x6x6xf32>
func.func @depthwise_static_batch(%x: tensor<2x8x8x8xf32>, %w: tensor<8x3x3xf32>) -> tensor<2x8x6x6xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x6x6xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x8x8xf32>, tensor<8x3x3xf32>) outs(%init : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  return %y : tensor<2x8x6x6xf32>
}

// -----

// A channels-last convolution over a static batch of two: the same loop,
// its image dims 1 and 2 ([1, H, W, C] windows of the input).
// CHECK-LABEL: func.func @nhwc_static_batch
// CHECK:       scf.for %[[N:.*]] = %c0 to %c2 step %c1
// CHECK-NOT:     scf.for
// CHECK:         %[[IN:.*]] = tensor.extract_slice %arg0[%[[N]], 0, 0, 0] [1, 9, 9, 16]
// CHECK:         %[[DEST:.*]] = tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0] [1, 4, 4, 32]
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[IN]], %arg1 : tensor<1x9x9x16xf32>, tensor<3x3x16x32xf32>) outs(%{{.*}} : tensor<1x4x4x32xf32>)
func.func @nhwc_static_batch(%x: tensor<2x10x10x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<2x4x4x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x4x32xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<2x4x4x32xf32>) -> tensor<2x4x4x32xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x10x10x16xf32>, tensor<3x3x16x32xf32>) outs(%init : tensor<2x4x4x32xf32>) -> tensor<2x4x4x32xf32>
  return %y : tensor<2x4x4x32xf32>
}
