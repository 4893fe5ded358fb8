// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512 min-parallel-work=512},kiln-cpu-vectorize-depthwise-conv),canonicalize,cse)' -split-input-file | FileCheck %s

// Channels-last: 40 channels are two full 16-lane vectors and a masked one
// of 8 lanes. The bias broadcast goes: the accumulators start from the
// bias. Threads over (n, oh); a loop over the kernel rows carries the
// accumulators; FMAs of an input vector by a filter vector.
// CHECK-LABEL: func.func @nhwc_bias
//   CHECK-NOT: linalg.broadcast
//       CHECK: scf.forall
//       CHECK:   vector.load %arg3[{{.*}}] : memref<40xf32>, vector<16xf32>
//       CHECK:   scf.for {{.*}} iter_args
//       CHECK:     vector.load %arg1[{{.*}}] : memref<3x3x40xf32>, vector<16xf32>
//       CHECK:     vector.load %arg0[{{.*}}] : memref<1x18x18x40xf32>, vector<16xf32>
//       CHECK:     vector.fma
//       CHECK:   vector.store {{.*}} : memref<1x8x8x40xf32>, vector<16xf32>
//       CHECK:   vector.constant_mask [8] : vector<16xi1>
//       CHECK:   vector.maskedload %arg3
//       CHECK:   vector.maskedstore %arg2
//   CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc
func.func @nhwc_bias(%in: memref<1x18x18x40xf32>, %w: memref<3x3x40xf32>, %out: memref<1x8x8x40xf32>, %b: memref<40xf32>) {
  linalg.broadcast ins(%b : memref<40xf32>) outs(%out : memref<1x8x8x40xf32>) dimensions = [0, 1, 2]
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w : memref<1x18x18x40xf32>, memref<3x3x40xf32>) outs(%out : memref<1x8x8x40xf32>)
  return
}

// -----

// Without a bias broadcast the accumulators start from the output; f64
// stays linalg.
// CHECK-LABEL: func.func @nhwc_plain
//       CHECK: vector.load %arg2[{{.*}}] : memref<1x4x4x16xf32>, vector<16xf32>
// CHECK-LABEL: func.func @nhwc_f64
//       CHECK: linalg.depthwise_conv_2d_nhwc_hwc
func.func @nhwc_plain(%in: memref<1x6x6x16xf32>, %w: memref<3x3x16xf32>, %out: memref<1x4x4x16xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x6x6x16xf32>, memref<3x3x16xf32>) outs(%out : memref<1x4x4x16xf32>)
  return
}
func.func @nhwc_f64(%in: memref<1x6x6x16xf64>, %w: memref<3x3x16xf64>, %out: memref<1x4x4x16xf64>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x6x6x16xf64>, memref<3x3x16xf64>) outs(%out : memref<1x4x4x16xf64>)
  return
}

// -----

// Channels-last max pooling takes the same loops: maxima of input vectors,
// no filter loads.
// CHECK-LABEL: func.func @max_pool_nhwc
//       CHECK: scf.for {{.*}} iter_args
//       CHECK:   %[[X:.*]] = vector.load %arg0[{{.*}}] : memref<1x9x9x32xf32>, vector<16xf32>
//       CHECK:   %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[ACC:.*]] : vector<16xf32>
//       CHECK:   arith.select %[[GT]], %[[X]], %[[ACC]] : vector<16xi1>, vector<16xf32>
//   CHECK-NOT: vector.fma
//   CHECK-NOT: linalg.pooling_nhwc_max
func.func @max_pool_nhwc(%in: memref<1x9x9x32xf32>, %out: memref<1x4x4x32xf32>) {
  %win = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %win : memref<1x9x9x32xf32>, memref<3x3xf32>) outs(%out : memref<1x4x4x32xf32>)
  memref.dealloc %win : memref<3x3xf32>
  return
}

// -----

// An i8 input is converted as it is loaded.
// CHECK-LABEL: func.func @nhwc_i8_input
//       CHECK: vector.load %arg0[{{.*}}] : memref<1x6x6x16xi8>, vector<16xi8>
//       CHECK: arith.sitofp {{.*}} : vector<16xi8> to vector<16xf32>
//       CHECK: vector.fma
func.func @nhwc_i8_input(%in: memref<1x6x6x16xi8>, %w: memref<3x3x16xf32>, %out: memref<1x4x4x16xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x6x6x16xi8>, memref<3x3x16xf32>) outs(%out : memref<1x4x4x16xf32>)
  return
}
