// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// LSTM: X W^T for every step at once, then a loop over time that carries
// H, C and Y; each step contracts H with R^T and runs one gate generic
// (sigmoid gates, tanh cell) that updates the states in place.
// CHECK-LABEL: func.func @lstm
// CHECK: %[[XW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: scf.for {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>)
// CHECK: tensor.extract_slice %[[XW]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[H]],
// CHECK: linalg.generic {{.*}} outs(%[[H]], %[[C]], %{{.*}} : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: tensor.insert_slice %{{.*}} into %[[Y]]
// CHECK: scf.yield
func.func @lstm(%x: tensor<2x3x5xf32>, %w: tensor<1x16x5xf32>, %r: tensor<1x16x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>) {
  %n = kiln_graph.NoValue : none
  %y, %h, %c = kiln_graph.LSTM %x, %w, %r, %n, %n, %n, %n, %n {hidden_size = 4 : i64} : (tensor<2x3x5xf32>, tensor<1x16x5xf32>, tensor<1x16x4xf32>, none, none, none, none, none) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
  return %y, %h, %c : tensor<2x1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>
}

// -----

// Bidirectional GRU with sequence_lens: the reverse direction reverses each
// sequence's first len steps, and steps past len keep the state (select).
// CHECK-LABEL: func.func @gru_bidirectional
// CHECK: scf.for
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: arith.subi
// CHECK: scf.for
// CHECK: tensor.insert_slice {{.*}} [2, 1, 3, 4]
func.func @gru_bidirectional(%x: tensor<2x3x5xf32>, %w: tensor<2x12x5xf32>, %r: tensor<2x12x4xf32>, %l: tensor<3xi32>) -> (tensor<2x2x3x4xf32>, tensor<2x3x4xf32>) {
  %n = kiln_graph.NoValue : none
  %y, %h = kiln_graph.GRU %x, %w, %r, %n, %l, %n {hidden_size = 4 : i64, direction = "bidirectional"} : (tensor<2x3x5xf32>, tensor<2x12x5xf32>, tensor<2x12x4xf32>, none, tensor<3xi32>, none) -> (tensor<2x2x3x4xf32>, tensor<2x3x4xf32>)
  return %y, %h : tensor<2x2x3x4xf32>, tensor<2x3x4xf32>
}
