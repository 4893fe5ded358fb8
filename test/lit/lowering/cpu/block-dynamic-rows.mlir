// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-block-dynamic-rows{block-rows=32}))' -split-input-file | FileCheck %s

// Rows [0, 32 * (M / 32)) in static blocks of 32, each a static product,
// then the remaining rows as one product of dynamic size.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[M:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[Q:.*]] = arith.divui %[[M]], %c32
// CHECK: %[[WHOLE:.*]] = arith.muli %[[Q]], %c32
// CHECK: %[[LOOP:.*]] = scf.for %[[I:.*]] = %c0{{.*}} to %[[WHOLE]] step %c32{{.*}} iter_args(%[[ACC:.*]] = %arg2)
// CHECK: tensor.extract_slice %arg0[%[[I]], 0] [32, 16] [1, 1] : tensor<?x16xf32> to tensor<32x16xf32>
// CHECK: tensor.extract_slice %[[ACC]][%[[I]], 0] [32, 8] [1, 1] : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<32x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<32x8xf32>)
// CHECK: tensor.insert_slice
// CHECK: %[[REST:.*]] = arith.subi %[[M]], %[[WHOLE]]
// CHECK: tensor.extract_slice %arg0[%[[WHOLE]], 0] [%[[REST]], 16]
// CHECK: linalg.matmul {{.*}} -> tensor<?x8xf32>
func.func @dynamic_rows(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
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
