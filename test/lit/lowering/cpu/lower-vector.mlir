// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-lower-vector))' -split-input-file | FileCheck %s

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// A 2 x 16 register tile: one broadcast-FMA per accumulator row.
// CHECK-LABEL: func.func @tile_2x16
//   CHECK-NOT: vector.contract
//       CHECK: vector.broadcast {{.*}} : f32 to vector<16xf32>
//       CHECK: vector.fma {{.*}} : vector<16xf32>
//       CHECK: vector.broadcast {{.*}} : f32 to vector<16xf32>
//       CHECK: vector.fma {{.*}} : vector<16xf32>
func.func @tile_2x16(%a: vector<2x1xf32>, %b: vector<1x16xf32>, %acc: vector<2x16xf32>) -> vector<2x16xf32> {
  %0 = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<2x1xf32>, vector<1x16xf32> into vector<2x16xf32>
  return %0 : vector<2x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// M = 1 (a one-row matmul such as a classifier head) lowers too.
// CHECK-LABEL: func.func @tile_1x16
//   CHECK-NOT: vector.contract
//       CHECK: vector.fma {{.*}} : vector<16xf32>
func.func @tile_1x16(%a: vector<1x1xf32>, %b: vector<1x16xf32>, %acc: vector<1x16xf32>) -> vector<1x16xf32> {
  %0 = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
  return %0 : vector<1x16xf32>
}

// -----

// A row tile of a reduction folds its row with one horizontal reduction
// that takes the output element as its accumulator.
// CHECK-LABEL: func.func @row_reduction
//       CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<8xf32> into f32
//   CHECK-NOT: vector.multi_reduction
func.func @row_reduction(%v: vector<1x1x1x8xf32>, %acc: vector<1x1xf32>) -> vector<1x1xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [2, 3] : vector<1x1x1x8xf32> to vector<1x1xf32>
  return %r : vector<1x1xf32>
}

// -----

// A transposed read (a block of an elementwise transpose): rows, gathered
// into one flat vector, one shuffle of it, and rows again; no element is
// extracted on its own.
// CHECK-LABEL: func.func @transposed_read
//       CHECK: %[[ROWS:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true, true]} : memref<8x8xf32, strided<[16, 1], offset: ?>>, vector<8x8xf32>
//       CHECK: vector.extract %[[ROWS]][0] : vector<8xf32> from vector<8x8xf32>
//   CHECK-NOT: f32 from vector<8xf32>
//       CHECK: %[[T:.*]] = vector.shuffle %[[FLAT:.*]], %[[FLAT]] [0, 8, 16, 24, 32, 40, 48, 56, 1, 9,
//       CHECK: vector.extract_strided_slice %[[T]] {offsets = [0], sizes = [8], strides = [1]} : vector<64xf32> to vector<8xf32>
//   CHECK-NOT: f32 from vector<8xf32>
//       CHECK: return
func.func @transposed_read(%a: memref<8x8xf32, strided<[16, 1], offset: ?>>) -> vector<8x8xf32> {
  %c0 = arith.constant 0 : index
  %pad = ub.poison : f32
  %r = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x8xf32, strided<[16, 1], offset: ?>>, vector<8x8xf32>
  return %r : vector<8x8xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// A column of A read as one vector (pixels contiguous, as in the pixel-row
// product) that only feeds the broadcasts: each element is loaded on its
// own, so that the broadcasts read memory.
// CHECK-LABEL: func.func @column_from_memory
//   CHECK-NOT: vector.transfer_read %{{.*}} : memref<49x64xf32>, vector<3xf32>
//       CHECK: %[[A0:.*]] = memref.load %{{.*}}[%[[K:.*]], %[[M:.*]]] : memref<64x49xf32>
//       CHECK: vector.broadcast %[[A0]] : f32 to vector<16xf32>
//       CHECK: %[[M1:.*]] = arith.addi %[[M]], %c1
//       CHECK: %[[A1:.*]] = memref.load %{{.*}}[%[[K]], %[[M1]]] : memref<64x49xf32>
//       CHECK: vector.broadcast %[[A1]] : f32 to vector<16xf32>
//       CHECK: arith.addi %[[M]], %c2
//   CHECK-NOT: vector.extract {{.*}} : f32 from vector<3xf32>
func.func @column_from_memory(%x: memref<64x49xf32>, %k: index, %m: index, %b: vector<1x16xf32>, %acc: vector<3x16xf32>) -> vector<3x16xf32> {
  %zero = arith.constant 0.0 : f32
  %col = vector.transfer_read %x[%k, %m], %zero {in_bounds = [true]} : memref<64x49xf32>, vector<3xf32>
  %a = vector.shape_cast %col : vector<3xf32> to vector<3x1xf32>
  %0 = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<3x1xf32>, vector<1x16xf32> into vector<3x16xf32>
  return %0 : vector<3x16xf32>
}
