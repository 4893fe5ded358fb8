// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-block-dynamic-rows{block-rows=32}))' -split-input-file | FileCheck %s

// Rows [0, 32 * (M / 32)) in static blocks of 32, each a static product,
// then the rest in static blocks of 8 rows and of single rows.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[M:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[LEFT:.*]] = arith.subi %[[M]], %[[C0:[^ ]*]]
// CHECK: %[[Q:.*]] = arith.divui %[[LEFT]], %c32
// CHECK: %[[N:.*]] = arith.muli %[[Q]], %c32
// CHECK: %[[WHOLE:.*]] = arith.addi %[[C0]], %[[N]]
// CHECK: %[[LOOP:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[WHOLE]] step %c32{{.*}} iter_args(%[[ACC:.*]] = %arg2)
// CHECK: tensor.extract_slice %arg0[%[[I]], 0] [32, 16] [1, 1] : tensor<?x16xf32> to tensor<32x16xf32>
// CHECK: tensor.extract_slice %[[ACC]][%[[I]], 0] [32, 8] [1, 1] : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<32x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<32x8xf32>)
// CHECK: tensor.insert_slice
// CHECK: %[[EIGHTS:.*]] = scf.for %{{.*}} = %[[WHOLE]] to %{{.*}} step %c8{{.*}} iter_args(%{{.*}} = %[[LOOP]])
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<8x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: %[[ONES:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %[[EIGHTS]])
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<1x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<1x8xf32>)
// CHECK: return %[[ONES]]
// CHECK-NOT: tensor<?x8xf32>) outs
func.func @dynamic_rows(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// K run-time in the rows' type, static in the weight's: the rows are cast
// to it and blocked the same way.
// CHECK-LABEL: func.func @dynamic_k_rows
// CHECK: %[[A:.*]] = tensor.cast %arg0 : tensor<?x?xf32> to tensor<?x16xf32>
// CHECK: tensor.extract_slice %[[A]][%{{.*}}, 0] [32, 16] [1, 1] : tensor<?x16xf32> to tensor<32x16xf32>
func.func @dynamic_k_rows(%a: tensor<?x?xf32>, %b: tensor<16x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<16x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Static rows, or a dynamic reduction: left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @left_alone(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %c: tensor<8x8xf32>, %d: tensor<?x?xf32>, %e: tensor<?x8xf32>, %f: tensor<?x8xf32>) -> (tensor<8x8xf32>, tensor<?x8xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<?x?xf32>, tensor<?x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<?x8xf32>
}
