// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-fill-pad-borders))' -split-input-file | FileCheck %s

// A padded NCHW input: the interior goes into the empty tensor, then the
// rows above and below (whole width) and the columns left and right (the
// interior's rows) are filled; the channel dims have no border.
// CHECK-LABEL: func.func @pad
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x10x12xf32>
//       CHECK: %[[I:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0, 1, 2] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK: %[[T:.*]] = tensor.extract_slice %[[I]][0, 0, 0, 0] [1, 8, 1, 12] [1, 1, 1, 1]
//       CHECK: %[[TF:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[T]] : tensor<1x8x1x12xf32>)
//       CHECK: %[[I1:.*]] = tensor.insert_slice %[[TF]] into %[[I]][0, 0, 0, 0] [1, 8, 1, 12]
//       CHECK: tensor.extract_slice %[[I1]][0, 0, 9, 0] [1, 8, 1, 12]
//       CHECK: linalg.fill
//       CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 0] [1, 8, 8, 2]
//       CHECK: linalg.fill
//       CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 10] [1, 8, 8, 2]
//       CHECK: linalg.fill
//       CHECK: %[[R:.*]] = tensor.insert_slice %{{.*}}[0, 0, 1, 10] [1, 8, 8, 2]
//   CHECK-NOT: linalg.fill
//       CHECK: return %[[R]]
func.func @pad(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x10x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x10x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x10x12xf32>) -> tensor<1x8x10x12xf32>
  %p = tensor.insert_slice %x into %f[0, 0, 1, 2] [1, 8, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> into tensor<1x8x10x12xf32>
  return %p : tensor<1x8x10x12xf32>
}

// -----

// A fill with another use, or dynamic offsets, stays whole.
// CHECK-LABEL: func.func @kept
//       CHECK: linalg.fill {{.*}} -> tensor<4x6xf32>
//       CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[1, 1] [2, 4] [1, 1]
//       CHECK: linalg.fill {{.*}} -> tensor<4x6xf32>
//       CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 1] [2, 4] [1, 1]
func.func @kept(%x: tensor<2x4xf32>, %i: index) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p = tensor.insert_slice %x into %f[1, 1] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %q = tensor.insert_slice %x into %f2[%i, 1] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x6xf32>
  return %p, %f, %q : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}
