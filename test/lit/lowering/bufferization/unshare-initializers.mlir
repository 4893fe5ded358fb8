// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-unshare-initializers))' -split-input-file | FileCheck %s

// One zero fill (merged by CSE) is the destination of two products and the
// padded buffer of an insert: each gets a fill of its own, right before it.
// CHECK-LABEL: func.func @shared_fill
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
//   CHECK-NOT: linalg.fill
//       CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x8xf32>)
//       CHECK: linalg.matmul {{.*}} outs(%[[F1]] : tensor<8x8xf32>)
//       CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x8xf32>)
//       CHECK: linalg.matmul {{.*}} outs(%[[F2]] : tensor<8x8xf32>)
//       CHECK: %[[F3:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x8xf32>)
//       CHECK: tensor.insert_slice %{{.*}} into %[[F3]][1, 1] [4, 4] [1, 1]
func.func @shared_fill(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %s: tensor<4x4xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %q = linalg.matmul ins(%b, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = tensor.insert_slice %s into %f[1, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %p, %q, %r : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A bias broadcast behind a collapse (a convolution's product init): the
// chain is cloned per product; a read of the broadcast keeps the original.
// CHECK-LABEL: func.func @shared_broadcast_chain
//       CHECK: %[[B0:.*]] = linalg.broadcast
//       CHECK: %[[B1:.*]] = linalg.broadcast
//       CHECK: %[[C1:.*]] = tensor.collapse_shape %[[B1]]
//       CHECK: linalg.matmul {{.*}} outs(%[[C1]] : tensor<8x16xf32>)
//       CHECK: %[[B2:.*]] = linalg.broadcast
//       CHECK: %[[C2:.*]] = tensor.collapse_shape %[[B2]]
//       CHECK: linalg.matmul {{.*}} outs(%[[C2]] : tensor<8x16xf32>)
//       CHECK: linalg.generic {{.*}} ins(%[[B0]] : tensor<1x8x4x4xf32>)
func.func @shared_broadcast_chain(%w: tensor<8x8xf32>, %x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1x8x4x4xf32>) {
  %bias = arith.constant dense<0.5> : tensor<8xf32>
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x4x4xf32>) dimensions = [0, 2, 3]
  %c = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<1x8x4x4xf32> into tensor<8x16xf32>
  %p = linalg.matmul ins(%w, %x : tensor<8x8xf32>, tensor<8x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %q = linalg.matmul ins(%w, %p : tensor<8x8xf32>, tensor<8x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %neg = arith.negf %in : f32
    linalg.yield %neg : f32
  } -> tensor<1x8x4x4xf32>
  return %p, %q, %n : tensor<8x16xf32>, tensor<8x16xf32>, tensor<1x8x4x4xf32>
}

// -----

// A single use, or an initializer that reads a tensor computed at run time,
// stays as it is.
// CHECK-LABEL: func.func @kept
//       CHECK: linalg.broadcast
//   CHECK-NOT: linalg.broadcast
func.func @kept(%w: tensor<8x8xf32>, %x: tensor<8x8xf32>, %bias: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<8x8xf32>) dimensions = [1]
  %p = linalg.matmul ins(%w, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%b : tensor<8x8xf32>) -> tensor<8x8xf32>
  %q = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%b : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %p, %q : tensor<8x8xf32>, tensor<8x8xf32>
}
