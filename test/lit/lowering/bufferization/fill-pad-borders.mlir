// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-fill-pad-borders))' -split-input-file | FileCheck %s

// A padded NCHW input: after the interior's copy, the rows above and below
// (whole width) and the columns left and right (the interior's rows) are
// filled; the channel dims have no border.
// CHECK-LABEL: func.func @pad
//       CHECK: %[[B:.*]] = memref.alloc() : memref<1x8x10x12xf32>
//   CHECK-NOT: linalg.fill
//       CHECK: memref.copy %arg0,
//       CHECK: %[[T:.*]] = memref.subview %[[B]][0, 0, 0, 0] [1, 8, 1, 12] [1, 1, 1, 1]
//       CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[T]] :
//       CHECK: memref.subview %[[B]][0, 0, 9, 0] [1, 8, 1, 12]
//       CHECK: linalg.fill
//       CHECK: memref.subview %[[B]][0, 0, 1, 0] [1, 8, 8, 2]
//       CHECK: linalg.fill
//       CHECK: memref.subview %[[B]][0, 0, 1, 10] [1, 8, 8, 2]
//       CHECK: linalg.fill
//   CHECK-NOT: linalg.fill
//   CHECK-NOT: kiln.pad_interior
//       CHECK: return %[[B]]
func.func @pad(%x: memref<1x8x8x8xf32>) -> memref<1x8x10x12xf32> {
  %zero = arith.constant 0.0 : f32
  %b = memref.alloc() : memref<1x8x10x12xf32>
  linalg.fill {kiln.pad_interior = array<i64: 0, 0, 1, 2, 1, 8, 8, 8>} ins(%zero : f32) outs(%b : memref<1x8x10x12xf32>)
  %in = memref.subview %b[0, 0, 1, 2] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x10x12xf32> to memref<1x8x8x8xf32, strided<[960, 120, 12, 1], offset: 14>>
  memref.copy %x, %in : memref<1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[960, 120, 12, 1], offset: 14>>
  return %b : memref<1x8x10x12xf32>
}

// -----

// The producer writes the interior in place, inside a loop and through a
// reshape of it: the slabs follow the loop.
// CHECK-LABEL: func.func @producer
//       CHECK: scf.forall
//       CHECK: linalg.generic
//       CHECK: }
//       CHECK: linalg.fill {{.*}} memref<4x1xf32
//       CHECK: linalg.fill {{.*}} memref<4x1xf32
//   CHECK-NOT: linalg.fill
func.func @producer(%x: memref<8xf32>) -> memref<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %b = memref.alloc() : memref<4x4xf32>
  linalg.fill {kiln.pad_interior = array<i64: 0, 1, 4, 2>} ins(%zero : f32) outs(%b : memref<4x4xf32>)
  %in = memref.subview %b[0, 1] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1], offset: 1>>
  %flat = memref.expand_shape %in [[0], [1, 2]] output_shape [4, 1, 2] : memref<4x2xf32, strided<[4, 1], offset: 1>> into memref<4x1x2xf32, strided<[4, 2, 1], offset: 1>>
  %v = memref.expand_shape %x [[0, 1, 2]] output_shape [4, 1, 2] : memref<8xf32> into memref<4x1x2xf32>
  scf.forall (%i) in (1) {
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v : memref<4x1x2xf32>) outs(%flat : memref<4x1x2xf32, strided<[4, 2, 1], offset: 1>>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.maximumf %a, %zero : f32
      linalg.yield %r : f32
    }
  }
  return %b : memref<4x4xf32>
}

// -----

// Without the mark, or with one that does not fit the buffer, the fill
// stays whole.
// CHECK-LABEL: func.func @kept
//       CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<4x6xf32>)
//       CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<4x6xf32>)
//   CHECK-NOT: linalg.fill
func.func @kept(%x: memref<2x4xf32>) -> (memref<4x6xf32>, memref<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x6xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x6xf32>)
  %ai = memref.subview %a[1, 1] [2, 4] [1, 1] : memref<4x6xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %ai : memref<2x4xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  %b = memref.alloc() : memref<4x6xf32>
  linalg.fill {kiln.pad_interior = array<i64: 3, 1, 2, 4>} ins(%zero : f32) outs(%b : memref<4x6xf32>)
  %bi = memref.subview %b[1, 1] [2, 4] [1, 1] : memref<4x6xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %bi : memref<2x4xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  return %a, %b : memref<4x6xf32>, memref<4x6xf32>
}
