// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @shape_dynamic
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[I:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: tensor.from_elements %[[I]], %{{.*}} : tensor<2xi64>
func.func @shape_dynamic(%x: tensor<?x4xf32>) -> tensor<2xi64> {
  %0 = kiln_graph.Shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @reshape_static
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
func.func @reshape_static(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %s = kiln_graph.Constant {value = dense<[4, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// A run-time shape: 0 copies the input extent, -1 takes the rest.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK: tensor.extract %{{.*}} : tensor<3xi64>
// CHECK: arith.select
// CHECK: tensor.from_elements {{.*}} : tensor<3xindex>
// CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<?x8xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
func.func @reshape_dynamic(%x: tensor<?x8xf32>, %s: tensor<3xi64>) -> tensor<?x?x?xf32> {
  %0 = kiln_graph.Reshape %x, %s : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func.func @flatten
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
func.func @flatten(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = kiln_graph.Flatten %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x?x1xf32> into tensor<?x1xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 1, 1] : tensor<?x1xf32> into tensor<?x1x1xf32>
func.func @squeeze_unsqueeze(%x: tensor<1x?x1xf32>) -> tensor<?x1x1xf32> {
  %a = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.Squeeze %x, %a : (tensor<1x?x1xf32>, tensor<1xi64>) -> tensor<?x1xf32>
  %1 = kiln_graph.Unsqueeze %0, %b : (tensor<?x1xf32>, tensor<1xi64>) -> tensor<?x1x1xf32>
  return %1 : tensor<?x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x3x4xi64>) outs(%{{.*}} : tensor<4x?x3xi64>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<?x3x4xi64>) -> tensor<4x?x3xi64> {
  %0 = kiln_graph.Transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<?x3x4xi64>) -> tensor<4x?x3xi64>
  return %0 : tensor<4x?x3xi64>
}

// -----

// CHECK-LABEL: func.func @concat_split
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 4] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
func.func @concat_split(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = kiln_graph.Concat %a, %b {axis = 1 : si64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %n = kiln_graph.NoValue : none
  %1:2 = kiln_graph.Split %0, %n {axis = -1 : si64, num_outputs = 2 : i64} : (tensor<2x8xf32>, none) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %1#0, %1#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 2] [1, 2] : tensor<2x5xf32> to tensor<2x2xf32>
func.func @slice(%x: tensor<2x5xf32>) -> tensor<2x2xf32> {
  %s = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = kiln_graph.Constant {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
  %a = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %t = kiln_graph.Constant {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.Slice %x, %s, %e, %a, %t : (tensor<2x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Negative steps read through a generic.
// CHECK-LABEL: func.func @slice_reverse
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: tensor.extract
func.func @slice_reverse(%x: tensor<5xi32>) -> tensor<5xi32> {
  %s = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = kiln_graph.Constant {value = dense<[-9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %a = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %t = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.Slice %x, %s, %e, %a, %t : (tensor<5xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3xi32>)
// CHECK: arith.cmpi slt
// CHECK: tensor.extract %{{.*}} : tensor<?x5xf32>
func.func @gather(%x: tensor<?x5xf32>, %i: tensor<2x3xi32>) -> tensor<?x2x3xf32> {
  %0 = kiln_graph.Gather %x, %i {axis = 1 : si64} : (tensor<?x5xf32>, tensor<2x3xi32>) -> tensor<?x2x3xf32>
  return %0 : tensor<?x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @expand
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %s = kiln_graph.Constant {value = dense<[2, 1, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = kiln_graph.Expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: tensor.pad %{{.*}} low[0, 1] high[0, 2]
// CHECK: tensor.yield %[[V]]
func.func @pad_constant(%x: tensor<?x3xf32>, %v: tensor<f32>) -> tensor<?x6xf32> {
  %p = kiln_graph.Constant {value = dense<[0, 1, 0, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %n = kiln_graph.NoValue : none
  %0 = kiln_graph.Pad %x, %p, %v, %n : (tensor<?x3xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// Result types that show fewer extents than the operands imply (a graph
// whose shapes were not all refined): the lowering computes what it knows.
// CHECK-LABEL: func.func @unrefined_result_types
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 1] high[0, 2]
// CHECK: tensor.yield
// CHECK-NEXT: } : tensor<2x3xf32> to tensor<2x6xf32>
// CHECK: tensor.cast %[[P]] : tensor<2x6xf32> to tensor<?x?xf32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: tensor.from_elements %[[C3]], %[[C4]] : tensor<2xindex>
// CHECK: tensor.reshape
func.func @unrefined_result_types(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %p = kiln_graph.Constant {value = dense<[0, 1, 0, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %n = kiln_graph.NoValue : none
  %0 = kiln_graph.Pad %x, %p, %n, %n : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<?x?xf32>
  %s = kiln_graph.Constant {value = dense<[3, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %1 = kiln_graph.Reshape %0, %s : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @pad_reflect
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: tensor.extract %{{.*}} : tensor<2x3xf32>
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x7xf32> {
  %p = kiln_graph.Constant {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = kiln_graph.NoValue : none
  %0 = kiln_graph.Pad %x, %p, %n, %a {mode = "reflect"} : (tensor<2x3xf32>, tensor<2xi64>, none, tensor<1xi64>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

// CHECK-LABEL: func.func @resize_linear
// CHECK: linalg.generic
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x1x2x2xf32>
func.func @resize_linear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %n = kiln_graph.NoValue : none
  %s = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = kiln_graph.Resize %x, %n, %s, %n {mode = "linear"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}


// -----

// Nearest x2 upsampling with asymmetric coordinates and floor rounding reads
// in[o div 2]: a broadcast into [N, C, H, 2, W, 2] viewed as the output.
// CHECK-LABEL: func.func @resize_nearest_x2
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<1x3x4x2x5x2xf32>
//       CHECK: %[[B:.*]] = linalg.broadcast ins(%arg0 : tensor<1x3x4x5xf32>) outs(%[[E]] : tensor<1x3x4x2x5x2xf32>) dimensions = [3, 5]
//       CHECK: tensor.collapse_shape %[[B]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x3x4x2x5x2xf32> into tensor<1x3x8x10xf32>
//   CHECK-NOT: math.floor
func.func @resize_nearest_x2(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32> {
  %n = kiln_graph.NoValue : none
  %s = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = kiln_graph.Resize %x, %n, %s, %n {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x3x4x5xf32>, none, tensor<4xf32>, none) -> tensor<1x3x8x10xf32>
  return %0 : tensor<1x3x8x10xf32>
}

// -----

// round_prefer_floor does not read in[o div 2]: per-element coordinates.
// CHECK-LABEL: func.func @resize_nearest_round
//   CHECK-NOT: linalg.broadcast
//       CHECK: linalg.generic
func.func @resize_nearest_round(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32> {
  %n = kiln_graph.NoValue : none
  %s = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = kiln_graph.Resize %x, %n, %s, %n {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "round_prefer_floor"} : (tensor<1x3x4x5xf32>, none, tensor<4xf32>, none) -> tensor<1x3x8x10xf32>
  return %0 : tensor<1x3x8x10xf32>
}

// -----

// Cubic Resize reads 4 taps per resized axis (16 for two axes); axes of
// extent 1 in and out are not resized.
// CHECK-LABEL: func.func @resize_cubic
// CHECK: linalg.generic
// CHECK-COUNT-16: tensor.extract %arg0
// CHECK-NOT: tensor.extract %arg0
// CHECK: linalg.yield
func.func @resize_cubic(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) -> tensor<1x1x8x8xf32> {
  %n = kiln_graph.NoValue : none
  %0 = kiln_graph.Resize %x, %n, %s, %n {mode = "cubic"} : (tensor<1x1x4x4xf32>, none, tensor<4xf32>, none) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

// Reshape between two all-dynamic types of the same rank still reshapes:
// the extents come from the shape operand at run time.
// CHECK-LABEL: func.func @reshape_dynamic_same_type
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xindex>
// CHECK: tensor.reshape %arg0(%[[SHAPE]]) : (tensor<?x?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
func.func @reshape_dynamic_same_type(%x: tensor<?x?x?xf32>, %s: tensor<3xi64>) -> tensor<?x?x?xf32> {
  %0 = kiln_graph.Reshape %x, %s : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
