// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// A batched matmul in the named op's form: linalg.batch_matmul, no
// transposes.
// CHECK-LABEL: func.func @bmm
//   CHECK-NOT: linalg.transpose
//   CHECK-NOT: tensor.collapse_shape
//       CHECK: linalg.fill
//       CHECK: %[[P:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x5xf32>)
//   CHECK-NOT: linalg.generic
//       CHECK: return %[[P]]
func.func @bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = kiln_graph.Einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// MaxViT's q.k^T: three batch labels merge into one batch dim, k goes
// through a transpose to [batch..., D, J].
// CHECK-LABEL: func.func @attention_scores
//       CHECK: %[[KT:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x4x2x7x8xf32>) outs(%{{.*}} : tensor<1x4x2x8x7xf32>) permutation = [0, 1, 2, 4, 3]
//       CHECK: %[[Q:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3], [4]] : tensor<1x4x2x7x8xf32> into tensor<8x7x8xf32>
//       CHECK: %[[K:.*]] = tensor.collapse_shape %[[KT]] {{\[}}[0, 1, 2], [3], [4]] : tensor<1x4x2x8x7xf32> into tensor<8x8x7xf32>
//       CHECK: %[[P:.*]] = linalg.batch_matmul ins(%[[Q]], %[[K]] : tensor<8x7x8xf32>, tensor<8x8x7xf32>)
//       CHECK: tensor.expand_shape %[[P]] {{\[}}[0, 1, 2], [3], [4]] output_shape [1, 4, 2, 7, 7] : tensor<8x7x7xf32> into tensor<1x4x2x7x7xf32>
//   CHECK-NOT: linalg.transpose
func.func @attention_scores(%q: tensor<1x4x2x7x8xf32>, %k: tensor<1x4x2x7x8xf32>) -> tensor<1x4x2x7x7xf32> {
  %0 = kiln_graph.Einsum %q, %k {equation = "B G H I D, B G H J D -> B G H I J"} : (tensor<1x4x2x7x8xf32>, tensor<1x4x2x7x8xf32>) -> tensor<1x4x2x7x7xf32>
  return %0 : tensor<1x4x2x7x7xf32>
}

// -----

// Labels of each kind in any order: A to [b, i, (k, l)], B to [b, (k, l),
// j] (the reduced labels in A's order), and the product [b, i, j] to the
// output's [j, b, i]; no batch label: linalg.matmul.
// CHECK-LABEL: func.func @permuted
//       CHECK: linalg.transpose ins(%{{.*}} : tensor<5x2x3x4xf32>) outs(%{{.*}} : tensor<2x3x5x4xf32>) permutation = [1, 2, 0, 3]
//       CHECK: linalg.transpose ins(%{{.*}} : tensor<4x2x6x5xf32>) outs(%{{.*}} : tensor<2x5x4x6xf32>) permutation = [1, 3, 0, 2]
//       CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x20xf32>, tensor<2x20x6xf32>)
//       CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x6xf32>) outs(%{{.*}} : tensor<6x2x3xf32>) permutation = [2, 0, 1]
//       CHECK: func.func @matrix
//       CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x5xf32>)
func.func @permuted(%a: tensor<5x2x3x4xf32>, %b: tensor<4x2x6x5xf32>) -> tensor<6x2x3xf32> {
  %0 = kiln_graph.Einsum %a, %b {equation = "kbil,lbjk->jbi"} : (tensor<5x2x3x4xf32>, tensor<4x2x6x5xf32>) -> tensor<6x2x3xf32>
  return %0 : tensor<6x2x3xf32>
}
func.func @matrix(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = kiln_graph.Einsum %a, %b {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// A run-time batch extent: the collapse and the expand keep it dynamic.
// CHECK-LABEL: func.func @dynamic_batch
//       CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<?x3x4xf32>, tensor<?x4x5xf32>)
//       CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [%{{.*}}, 2, 3, 5]
func.func @dynamic_batch(%a: tensor<?x2x3x4xf32>, %b: tensor<?x2x4x5xf32>) -> tensor<?x2x3x5xf32> {
  %0 = kiln_graph.Einsum %a, %b {equation = "nbij,nbjk->nbik"} : (tensor<?x2x3x4xf32>, tensor<?x2x4x5xf32>) -> tensor<?x2x3x5xf32>
  return %0 : tensor<?x2x3x5xf32>
}

// -----

// Not products: a broadcast batch dim, a matrix-vector product (no column
// label), integers and three inputs stay one generic each.
// CHECK-LABEL: func.func @broadcast
//   CHECK-NOT: matmul
//       CHECK: linalg.generic
// CHECK-LABEL: func.func @matvec
//   CHECK-NOT: matmul
//       CHECK: linalg.generic
// CHECK-LABEL: func.func @integers
//   CHECK-NOT: matmul
//       CHECK: linalg.generic
// CHECK-LABEL: func.func @three
//   CHECK-NOT: matmul
//       CHECK: linalg.generic
func.func @broadcast(%a: tensor<1x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = kiln_graph.Einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<1x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
func.func @matvec(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3xf32> {
  %0 = kiln_graph.Einsum %a, %b {equation = "ij,j->i"} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @integers(%a: tensor<2x3x4xi32>, %b: tensor<2x4x5xi32>) -> tensor<2x3x5xi32> {
  %0 = kiln_graph.Einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xi32>, tensor<2x4x5xi32>) -> tensor<2x3x5xi32>
  return %0 : tensor<2x3x5xi32>
}
func.func @three(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %0 = kiln_graph.Einsum %a, %b, %c {equation = "ij,jk,kl->il"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// A repeated label reads the diagonal; "..." stands for the leading dims.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @batch_diagonal
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel"]}
func.func @batch_diagonal(%a: tensor<3x5x5xf32>) -> tensor<3x5xf32> {
  %0 = kiln_graph.Einsum %a {equation = "...ii ->...i"} : (tensor<3x5x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
