// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @reduce_sum_keepdims
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x5xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[D0]]) : tensor<?x5xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x5xf32>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%[[X]] : tensor<?x4x5xf32>) outs(%[[F]] : tensor<?x5xf32>) dimensions = [1]
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0], [1, 2]] output_shape [%{{.*}}, 1, 5] : tensor<?x5xf32> into tensor<?x1x5xf32>
func.func @reduce_sum_keepdims(%x: tensor<?x4x5xf32>) -> tensor<?x1x5xf32> {
  %axes = kiln_graph.Constant {value = dense<[-2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.ReduceSum %x, %axes : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<?x1x5xf32>
  return %0 : tensor<?x1x5xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean_all
// CHECK: %[[R:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK: %[[N:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @reduce_mean_all(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.ReduceMean %x, %none : (tensor<2x3xf32>, none) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean_dynamic_count
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: arith.index_cast %[[D]] : index to i64
// CHECK: arith.divf
func.func @reduce_mean_dynamic_count(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %axes = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.ReduceMean %x, %axes {keepdims = 0 : i64} : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_float
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.reduce {{.*}} dimensions = [0, 2]
// CHECK: arith.maximumf
// CHECK-NOT: tensor.expand_shape
func.func @reduce_max_float(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %axes = kiln_graph.Constant {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = kiln_graph.ReduceMax %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_int
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
func.func @reduce_max_int(%x: tensor<2x3xi32>) -> tensor<2x1xi32> {
  %axes = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.ReduceMax %x, %axes : (tensor<2x3xi32>, tensor<1xi64>) -> tensor<2x1xi32>
  return %0 : tensor<2x1xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_uint
// CHECK: arith.constant 0 : i8
// CHECK: arith.maxui
func.func @reduce_max_uint(%x: tensor<2x3xui8>) -> tensor<2xui8> {
  %axes = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.ReduceMax %x, %axes {keepdims = 0 : i64} : (tensor<2x3xui8>, tensor<1xi64>) -> tensor<2xui8>
  return %0 : tensor<2xui8>
}

// -----

// Empty axes with noop_with_empty_axes is the identity.
// CHECK-LABEL: func.func @reduce_sum_noop
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>
// CHECK-NOT: linalg
// CHECK: return %[[X]]
func.func @reduce_sum_noop(%x: tensor<2x3xf32>, %axes: tensor<0xi64>) -> tensor<2x3xf32> {
  %0 = kiln_graph.ReduceSum %x, %axes {noop_with_empty_axes = 1 : i64} : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Runtime axes with keepdims: the static result shape says which dims reduce.
// CHECK-LABEL: func.func @reduce_sum_runtime_axes
// CHECK: linalg.reduce {{.*}} dimensions = [1]
func.func @reduce_sum_runtime_axes(%x: tensor<3x2x2xf32>, %axes: tensor<1xi64>) -> tensor<3x1x2xf32> {
  %0 = kiln_graph.ReduceSum %x, %axes : (tensor<3x2x2xf32>, tensor<1xi64>) -> tensor<3x1x2xf32>
  return %0 : tensor<3x1x2xf32>
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x5xf32>)
// CHECK: %[[MAX:.*]] = linalg.reduce ins(%[[X]] : tensor<?x4x5xf32>) outs(%{{.*}} : tensor<?x5xf32>) dimensions = [1]
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]{{.*}} ins(%[[X]], %[[MAX]] : tensor<?x4x5xf32>, tensor<?x5xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// One division a row, then a multiply an element.
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?x5xf32>)
// CHECK: arith.divf %cst{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[MAX]], %[[INV]] : tensor<?x4x5xf32>, tensor<?x5xf32>, tensor<?x5xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK-NOT: arith.divf
// CHECK: arith.mulf
func.func @softmax(%x: tensor<?x4x5xf32>) -> tensor<?x4x5xf32> {
  %0 = kiln_graph.Softmax %x {axis = 1 : si64} : (tensor<?x4x5xf32>) -> tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}

// -----

// Along the innermost dim the exponentials are computed once, into the
// result's tensor, summed, and scaled in place.
// CHECK-LABEL: func.func @softmax_innermost
// CHECK-SAME: (%[[X:.*]]: tensor<3x7xf32>)
// CHECK: %[[MAX:.*]] = linalg.reduce ins(%[[X]] : tensor<3x7xf32>) {{.*}} dimensions = [1]
// CHECK: %[[E:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[X]], %[[MAX]] : tensor<3x7xf32>, tensor<3xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[E]] : tensor<3x7xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.addf
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%[[INV]] : tensor<3xf32>) outs(%[[E]] : tensor<3x7xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf %out, %in
func.func @softmax_innermost(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %0 = kiln_graph.Softmax %x {axis = -1 : si64} : (tensor<3x7xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

// The log of the sum once a row.
// CHECK-LABEL: func.func @logsoftmax
// CHECK: linalg.reduce {{.*}} dimensions = [1]
// CHECK: linalg.generic
// CHECK: %[[LOGS:.*]] = linalg.generic
// CHECK: math.log
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[LOGS]] :
// CHECK: %[[D:.*]] = arith.subf %in
// CHECK-NOT: math.log
// CHECK: arith.subf %[[D]], %in
func.func @logsoftmax(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = kiln_graph.LogSoftmax %x : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// ReduceL2 squares in the reduce body, then takes the square root.
// CHECK-LABEL: func.func @reduce_l2
// CHECK: linalg.reduce
// CHECK: %[[SQ:.*]] = arith.mulf %[[IN:.*]], %[[IN]]
// CHECK: arith.addf %[[SQ]]
// CHECK: linalg.generic
// CHECK: math.sqrt
func.func @reduce_l2(%x: tensor<3x4xf32>) -> tensor<3x1xf32> {
  %axes = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.ReduceL2 %x, %axes : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// ReduceLogSumExp subtracts the maximum before exp and adds it back after
// the log.
// CHECK-LABEL: func.func @reduce_lse
// CHECK: %[[MAX:.*]] = linalg.reduce
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[MAX]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: math.log
// CHECK: arith.addf
func.func @reduce_lse(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %axes = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.ReduceLogSumExp %x, %axes {keepdims = 0 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// ArgMax reduces value and index together; select_last_index takes >=.
// CHECK-LABEL: func.func @argmax_last
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: arith.cmpf oge
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK: tensor.expand_shape
func.func @argmax_last(%x: tensor<3x4xf32>) -> tensor<1x4xi64> {
  %0 = kiln_graph.ArgMax %x {axis = 0 : si64, select_last_index = 1 : i64} : (tensor<3x4xf32>) -> tensor<1x4xi64>
  return %0 : tensor<1x4xi64>
}
