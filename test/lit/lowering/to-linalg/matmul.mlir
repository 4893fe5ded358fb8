// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @matmul_2d
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<5x6xf32>) outs(%[[F]] : tensor<4x6xf32>)
func.func @matmul_2d(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// A batched LHS against a 2-D RHS folds the batch into M.
// CHECK-LABEL: func.func @matmul_batch_2d
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x16x8xf32> into tensor<?x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x16xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 16, 16] : tensor<?x16xf32> into tensor<?x16x16xf32>
func.func @matmul_batch_2d(%a: tensor<?x16x8xf32>, %b: tensor<8x16xf32>) -> tensor<?x16x16xf32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<?x16x8xf32>, tensor<8x16xf32>) -> tensor<?x16x16xf32>
  return %0 : tensor<?x16x16xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_3d
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x5xf32>)
func.func @matmul_3d(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Equal batch dims (attention's [1, heads, T, d]) merge into one batch of a
// linalg.batch_matmul; a batch of one merges into M of a linalg.matmul.
// CHECK-LABEL: func.func @matmul_4d_equal_batch
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<2x3x4x5xf32> into tensor<6x4x5xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<2x3x5x7xf32> into tensor<6x5x7xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<6x4x5xf32>, tensor<6x5x7xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] output_shape [2, 3, 4, 7] : tensor<6x4x7xf32> into tensor<2x3x4x7xf32>
func.func @matmul_4d_equal_batch(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x7xf32>) -> tensor<2x3x4x7xf32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<2x3x4x5xf32>, tensor<2x3x5x7xf32>) -> tensor<2x3x4x7xf32>
  return %0 : tensor<2x3x4x7xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_batch_of_one
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<1x1x8x16xf32> into tensor<8x16xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<1x1x?x8xf32> into tensor<?x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x16xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, %{{.*}}, 16] : tensor<?x16xf32> into tensor<1x1x?x16xf32>
func.func @matmul_batch_of_one(%a: tensor<1x1x?x8xf32>, %b: tensor<1x1x8x16xf32>) -> tensor<1x1x?x16xf32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<1x1x?x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x1x?x16xf32>
  return %0 : tensor<1x1x?x16xf32>
}

// -----

// Static broadcast batch dims: each operand is copied to the full batch,
// which then merges into one batch_matmul.
// CHECK: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
// CHECK: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: %[[A:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[ID]]]{{.*}} ins(%{{.*}} : tensor<1x3x4x5xf32>) outs(%{{.*}} : tensor<2x3x4x5xf32>)
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[RHS]], #[[ID]]]{{.*}} ins(%{{.*}} : tensor<2x1x5x6xf32>) outs(%{{.*}} : tensor<2x3x5x6xf32>)
// CHECK: tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x4x5xf32> into tensor<6x4x5xf32>
// CHECK: linalg.batch_matmul {{.*}} : tensor<6x4x5xf32>, tensor<6x5x6xf32>)
func.func @matmul_broadcast(%a: tensor<1x3x4x5xf32>, %b: tensor<2x1x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<1x3x4x5xf32>, tensor<2x1x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// Dynamic broadcast batch dims: a contraction over every batch loop that
// reads the unit dim at index 0.
// CHECK: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>
// CHECK-LABEL: func.func @matmul_broadcast_dynamic
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_broadcast_dynamic(%a: tensor<?x1x4x5xf32>, %b: tensor<1x3x5x6xf32>) -> tensor<?x3x4x6xf32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<?x1x4x5xf32>, tensor<1x3x5x6xf32>) -> tensor<?x3x4x6xf32>
  return %0 : tensor<?x3x4x6xf32>
}

// -----

// 1-D operands gain a unit dim that is collapsed away again.
// CHECK-LABEL: func.func @matmul_vec
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xi32> into tensor<1x4xi32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xi32> into tensor<4x1xi32>
// CHECK: linalg.matmul
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xi32> into tensor<i32>
func.func @matmul_vec(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<i32> {
  %0 = kiln_graph.MatMul %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// Transposes become indexing maps; alpha == 1 accumulates into beta * C.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[B]], #{{.*}}] ins(%{{.*}}, %{{.*}} : tensor<?x16xf32>, tensor<32x16xf32>) outs(%[[C]] : tensor<?x32xf32>)
func.func @gemm_trans_b(%a: tensor<?x16xf32>, %w: tensor<32x16xf32>, %c: tensor<32xf32>) -> tensor<?x32xf32> {
  %0 = kiln_graph.Gemm %a, %w, %c {beta = 0.5 : f32, transB = 1 : i64} : (tensor<?x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @gemm_alpha_no_c
// CHECK: linalg.fill
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[B]], #{{.*}}]
// CHECK: linalg.generic
// CHECK: arith.mulf
func.func @gemm_alpha_no_c(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Gemm %a, %b, %none {alpha = 2.0 : f32, transA = 1 : i64} : (tensor<16x8xf32>, tensor<16x32xf32>, none) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
