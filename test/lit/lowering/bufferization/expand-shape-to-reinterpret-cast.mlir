// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-expand-shape-to-reinterpret-cast))' -split-input-file | FileCheck %s

// Several dynamic dims in one group: a reinterpret_cast with the row-major
// strides of the output shape (static where the inner extents are).
// CHECK-LABEL: func.func @two_dynamic_in_a_group
// CHECK-SAME: (%[[A:.*]]: memref<?x8xf32>, %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK: %[[S1:.*]] = arith.muli %{{.*}}, %[[M]] : index
// CHECK: memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[N]], %[[M]], 2, 4], strides: [%[[S1]], 8, 4, 1] : memref<?x8xf32> to memref<?x?x2x4xf32>
// CHECK-NOT: memref.expand_shape
func.func @two_dynamic_in_a_group(%a: memref<?x8xf32>, %n: index, %m: index) -> memref<?x?x2x4xf32> {
  %e = memref.expand_shape %a [[0, 1], [2, 3]] output_shape [%n, %m, 2, 4] : memref<?x8xf32> into memref<?x?x2x4xf32>
  return %e : memref<?x?x2x4xf32>
}

// -----

// One dynamic dim per group: left to expand-strided-metadata.
// CHECK-LABEL: func.func @one_dynamic_per_group
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_dynamic_per_group(%a: memref<?xf32>, %n: index) -> memref<?x4xf32> {
  %e = memref.expand_shape %a [[0, 1]] output_shape [%n, 4] : memref<?xf32> into memref<?x4xf32>
  return %e : memref<?x4xf32>
}

// -----

// A strided source is not contiguous: left alone.
// CHECK-LABEL: func.func @strided_source
// CHECK: memref.expand_shape
func.func @strided_source(%a: memref<?xf32, strided<[2]>>, %n: index, %m: index) -> memref<?x?xf32, strided<[?, 2]>> {
  %e = memref.expand_shape %a [[0, 1]] output_shape [%n, %m] : memref<?xf32, strided<[2]>> into memref<?x?xf32, strided<[?, 2]>>
  return %e : memref<?x?xf32, strided<[?, 2]>>
}
