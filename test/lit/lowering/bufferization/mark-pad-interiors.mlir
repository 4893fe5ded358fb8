// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-mark-pad-interiors))' | FileCheck %s

// A padded NCHW input: the fill records the inserted interior, offsets then
// sizes.
// CHECK-LABEL: func.func @pad
//       CHECK: linalg.fill {kiln.pad_interior = array<i64: 0, 0, 1, 2, 1, 8, 8, 8>}
func.func @pad(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x10x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x10x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x10x12xf32>) -> tensor<1x8x10x12xf32>
  %p = tensor.insert_slice %x into %f[0, 0, 1, 2] [1, 8, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> into tensor<1x8x10x12xf32>
  return %p : tensor<1x8x10x12xf32>
}

// A fill with another use, or an insert at dynamic offsets, is not marked.
// CHECK-LABEL: func.func @kept
//   CHECK-NOT: kiln.pad_interior
//       CHECK: return
func.func @kept(%x: tensor<2x4xf32>, %i: index) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p = tensor.insert_slice %x into %f[1, 1] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %q = tensor.insert_slice %x into %f2[%i, 1] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x6xf32>
  return %p, %f, %q : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}
