// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// GatherElements reads data at the index along the axis, wrapping negative
// indices by the axis extent.
// CHECK-LABEL: func.func @gather_elements
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]]
// CHECK: %[[W:.*]] = arith.select %[[NEG]]
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[W]]] : tensor<3x4xf32>
func.func @gather_elements(%d: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = kiln_graph.GatherElements %d, %i {axis = 1 : si64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// ScatterElements with a reduction: a loop nest over the updates that reads,
// combines and inserts, in order.
// CHECK-LABEL: func.func @scatter_add
// CHECK: scf.for {{.*}} iter_args(%[[T:.*]] = %arg0)
// CHECK: scf.for {{.*}} iter_args(%[[U:.*]] = %[[T]])
// CHECK: %[[OLD:.*]] = tensor.extract %[[U]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]]
// CHECK: tensor.insert %[[NEW]] into %[[U]]
func.func @scatter_add(%d: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %0 = kiln_graph.ScatterElements %d, %i, %u {reduction = "add"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// DepthToSpace (DCR): the source channel is (h % b * b + w % b) * C' + c.
// CHECK-LABEL: func.func @depth_to_space
// CHECK: linalg.generic
// CHECK: %[[BH:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[BW:.*]] = arith.remui %{{.*}}, %c2
// CHECK: arith.muli %[[BH]], %c2
// CHECK: tensor.extract %arg0
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = kiln_graph.DepthToSpace %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// CumSum adds the elements at or before each position: an extra reduction
// loop over the axis.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[J:.*]] = linalg.index 2
// CHECK: %[[I:.*]] = linalg.index 1
// CHECK: arith.cmpi ule, %[[J]], %[[I]]
func.func @cumsum(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %axis = kiln_graph.Constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %0 = kiln_graph.CumSum %x, %axis : (tensor<2x5xf32>, tensor<i64>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// An axis known only at run time: one generic per axis, switched.
// CHECK-LABEL: func.func @cumsum_runtime_axis
// CHECK: scf.index_switch
// CHECK: case 0
// CHECK: linalg.generic
// CHECK: default
// CHECK: linalg.generic
func.func @cumsum_runtime_axis(%x: tensor<2x5xf32>, %axis: tensor<i32>) -> tensor<2x5xf32> {
  %0 = kiln_graph.CumSum %x, %axis {reverse = 1 : i64} : (tensor<2x5xf32>, tensor<i32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Range with a length known only at run time: ceil((limit - start) / delta).
// CHECK-LABEL: func.func @range_dynamic
// CHECK: arith.divf
// CHECK: math.ceil
// CHECK: %[[N:.*]] = arith.index_cast
// CHECK: tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK: linalg.index 0
func.func @range_dynamic(%s: tensor<i32>, %l: tensor<i32>, %d: tensor<i32>) -> tensor<?xi32> {
  %0 = kiln_graph.Range %s, %l, %d : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

// Trilu keeps j - i >= k (upper) and zeroes the rest.
// CHECK-LABEL: func.func @triu
// CHECK: %[[D:.*]] = arith.subi
// CHECK: arith.cmpi sge, %[[D]]
func.func @triu(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Trilu %x, %none : (tensor<4x5xf32>, none) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// TopK: ranks by counting the elements before each one (ties by index),
// then a loop nest writes ranks below K.
// CHECK-LABEL: func.func @topk
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpi ult
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[KEEP:.*]] = arith.cmpi slt, %{{.*}}, %c2_i64
// CHECK: scf.if %[[KEEP]]
// CHECK: tensor.insert
// CHECK: tensor.insert
func.func @topk(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %k = kiln_graph.Constant {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %v, %i = kiln_graph.TopK %x, %k : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// ReverseSequence reads index len - 1 - t inside each sequence, t beyond it.
// CHECK-LABEL: func.func @reverse_sequence
// CHECK: linalg.generic
// CHECK: arith.subi
// CHECK: %[[IN:.*]] = arith.cmpi slt
// CHECK: arith.select %[[IN]]
func.func @reverse_sequence(%x: tensor<4x2xf32>, %l: tensor<2xi64>) -> tensor<4x2xf32> {
  %0 = kiln_graph.ReverseSequence %x, %l : (tensor<4x2xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// GridSample, bilinear with border padding: the grid point is clamped into
// the image, then the 2x2 pixels around it are blended.
// CHECK-LABEL: func.func @grid_sample
// CHECK: linalg.generic
// CHECK: tensor.extract %arg1
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %arg0
func.func @grid_sample(%x: tensor<1x1x4x4xf32>, %g: tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32> {
  %0 = kiln_graph.GridSample %x, %g {padding_mode = "border"} : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}
