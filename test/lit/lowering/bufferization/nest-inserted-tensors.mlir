// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-nest-inserted-tensors))' -split-input-file | FileCheck %s

// Concat(Concat(a, b), c): the inner concat starts from its slot of the
// outer destination instead of an empty of its own. The relu's destination,
// an equal empty merged by CSE, keeps the empty.
// CHECK-LABEL: func.func @chain
//       CHECK: %[[OUT:.*]] = tensor.empty() : tensor<1x6x2xf32>
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x2xf32>
//       CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[OUT]][0, 0, 0] [1, 4, 2] [1, 1, 1]
//       CHECK: %[[I0:.*]] = tensor.insert_slice %arg0 into %[[SLOT]][0, 0, 0] [1, 2, 2]
//       CHECK: %[[INNER:.*]] = tensor.insert_slice %arg1 into %[[I0]][0, 2, 0] [1, 2, 2]
//       CHECK: linalg.generic {{.*}} ins(%[[INNER]] : tensor<1x4x2xf32>) outs(%[[E]] : tensor<1x4x2xf32>)
//       CHECK: %[[O0:.*]] = tensor.insert_slice %[[INNER]] into %[[OUT]][0, 0, 0] [1, 4, 2]
//       CHECK: tensor.insert_slice %arg2 into %[[O0]][0, 4, 0] [1, 2, 2]
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @chain(%a: tensor<1x2x2xf32>, %b: tensor<1x2x2xf32>, %c: tensor<1x2x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x6x2xf32>) {
  %out = tensor.empty() : tensor<1x6x2xf32>
  %e = tensor.empty() : tensor<1x4x2xf32>
  %i0 = tensor.insert_slice %a into %e[0, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<1x4x2xf32>
  %inner = tensor.insert_slice %b into %i0[0, 2, 0] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<1x4x2xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%inner : tensor<1x4x2xf32>) outs(%e : tensor<1x4x2xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x4x2xf32>
  %o0 = tensor.insert_slice %inner into %out[0, 0, 0] [1, 4, 2] [1, 1, 1] : tensor<1x4x2xf32> into tensor<1x6x2xf32>
  %o1 = tensor.insert_slice %c into %o0[0, 4, 0] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<1x6x2xf32>
  return %r, %o1 : tensor<1x4x2xf32>, tensor<1x6x2xf32>
}

// -----

// Empty-tensor elimination put the outer chain into the output buffer and
// left the inner one in a slot of the empty it started from: the slot is
// taken from the output buffer.
// CHECK-LABEL: func.func @orphan_slot
//       CHECK: %[[T:.*]] = bufferization.to_tensor %arg2
//       CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[T]][0, 0] [2, 2] [1, 1]
//       CHECK: tensor.insert_slice %arg0 into %[[SLOT]]
func.func @orphan_slot(%a: tensor<2x2xf32>, %c: tensor<2x2xf32>, %dst: memref<2x4xf32>) {
  %t = bufferization.to_tensor %dst restrict writable : memref<2x4xf32> to tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %slot = tensor.extract_slice %e[0, 0] [2, 2] [1, 1] : tensor<2x4xf32> to tensor<2x2xf32>
  %inner = tensor.insert_slice %a into %slot[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x2xf32>
  %o0 = tensor.insert_slice %inner into %t[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %o1 = tensor.insert_slice %c into %o0[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  bufferization.materialize_in_destination %o1 in writable %dst : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
  return
}

// -----

// A slot at a run-time offset, or an inner tensor of another type than its
// empty, stays as it is.
// CHECK-LABEL: func.func @dynamic_offset
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<2x2xf32>
//       CHECK: tensor.insert_slice %arg0 into %[[E]]
func.func @dynamic_offset(%a: tensor<2x1xf32>, %i: index) -> tensor<2x8xf32> {
  %out = tensor.empty() : tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %i0 = tensor.insert_slice %a into %e[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %o = tensor.insert_slice %i0 into %out[0, %i] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  return %o : tensor<2x8xf32>
}
