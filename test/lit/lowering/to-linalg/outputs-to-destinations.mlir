// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-outputs-to-destinations))' -split-input-file | FileCheck %s

// Every result becomes a caller buffer the value is materialized in; the
// inputs are marked read-only.
// CHECK-LABEL: func.func @caller_buffers
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32> {bufferization.writable = false, kiln.name = "x"}, %[[Y:.*]]: memref<?x4xf32> {kiln.name = "y"})
// CHECK-NOT: -> tensor
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[Y]]
// CHECK: return{{$}}
func.func @caller_buffers(%x: tensor<?x4xf32> {kiln.name = "x"}) -> (tensor<?x4xf32> {kiln.name = "y"}) {
  %0 = arith.addf %x, %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Results listed in kiln.run_time_outputs (extents only the run knows)
// stay results, as copies of their own (a returned view of a buffer would
// reach the caller through a layout cast); the others still become caller
// buffers, in order.
// CHECK-LABEL: func.func @run_time_outputs
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32> {bufferization.writable = false}, %{{.*}}: index, %[[B:.*]]: memref<6xf32>) -> tensor<?xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]]
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<?xf32>
// CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[B]]
// CHECK: return %[[C]] : tensor<?xf32>
func.func @run_time_outputs(%x: tensor<6xf32>, %n: index) -> (tensor<?xf32>, tensor<6xf32>) attributes {kiln.run_time_outputs = array<i64: 0>} {
  %0 = tensor.extract_slice %x[0] [%n] [1] : tensor<6xf32> to tensor<?xf32>
  return %0, %x : tensor<?xf32>, tensor<6xf32>
}
