// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batchnorm
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>, %[[S:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK: %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[PC:.*]]:2 = linalg.generic {{.*}} ins(%[[S]], %[[B]], %[[M]], %[[V]] : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>)
// CHECK: arith.addf %{{.*}}, %[[EPS]]
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %c0
// CHECK: tensor.empty(%[[D0]]) : tensor<?x3x8x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[ID]]]{{.*}} ins(%[[X]], %[[PC]]#0, %[[PC]]#1
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @batchnorm(%x: tensor<?x3x8x8xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3x8x8xf32> {
  %0 = kiln_graph.BatchNormalization %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32} : (tensor<?x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf16>, %[[G:.*]]: tensor<8xf16>, %[[B:.*]]: tensor<8xf16>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<?x4x8xf16>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK: arith.extf
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SUM]] : tensor<?x4x8xf16>, tensor<?x4xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK: %[[ST:.*]]:2 = linalg.generic {{.*}} ins(%[[SUM]], %[[SQ]] : tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[LAST]], #[[LAST]], #[[ID]]]{{.*}} ins(%[[X]], %[[ST]]#0, %[[ST]]#1, %[[G]], %[[B]] : {{.*}}) outs(%{{.*}} : tensor<?x4x8xf16>)
// CHECK: arith.truncf
func.func @layernorm(%x: tensor<?x4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<?x4x8xf16> {
  %0 = kiln_graph.LayerNormalization %x, %g, %b : (tensor<?x4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> tensor<?x4x8xf16>
  return %0 : tensor<?x4x8xf16>
}

// -----

// Normalizing over all dims with no bias: the statistics are rank 0.
// CHECK-LABEL: func.func @layernorm_axis0
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]{{.*}} outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<f32>, tensor<f32>, tensor<3x4xf32>)
func.func @layernorm_axis0(%x: tensor<3x4xf32>, %g: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.LayerNormalization %x, %g, %none {axis = 0 : si64} : (tensor<3x4xf32>, tensor<3x4xf32>, none) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// InstanceNormalization: statistics per (n, c) over the spatial dims, the
// scale and bias read per channel.
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @instance_norm
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #[[CH]], #[[CH]], #{{.*}}]
func.func @instance_norm(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
  %0 = kiln_graph.InstanceNormalization %x, %s, %b : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// LRN: squares summed over a window of channels (a reduction loop), those
// past the edges masked out; then divided by (bias + alpha/size sum)^beta.
// CHECK-LABEL: func.func @lrn
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[WIN]] : tensor<3xf32>)
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: math.powf
func.func @lrn(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %0 = kiln_graph.LRN %x {size = 3 : i64} : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}
