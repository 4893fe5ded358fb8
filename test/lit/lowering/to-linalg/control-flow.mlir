// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// If becomes scf.if on cond's element; branch values more static than the
// result are cast.
// CHECK-LABEL: func.func @if_join
// CHECK: %[[C:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[C]] -> (tensor<2x?xf32>) {
// CHECK:   %[[T:.*]] = linalg.generic
// CHECK:   %[[TC:.*]] = tensor.cast %[[T]] : tensor<2x3xf32> to tensor<2x?xf32>
// CHECK:   scf.yield %[[TC]]
// CHECK: } else {
// CHECK:   tensor.cast %arg2 : tensor<2x1xf32> to tensor<2x?xf32>
// CHECK:   scf.yield
// CHECK: return %[[R]]
func.func @if_join(%c: tensor<i1>, %x: tensor<2x3xf32>, %y: tensor<2x1xf32>) -> tensor<2x?xf32> {
  %0 = kiln_graph.If %c : tensor<i1> -> tensor<2x?xf32> {
    %1 = kiln_graph.Add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    kiln_graph.Yield %1 : tensor<2x3xf32>
  } {
    kiln_graph.Yield %y : tensor<2x1xf32>
  }
  return %0 : tensor<2x?xf32>
}
