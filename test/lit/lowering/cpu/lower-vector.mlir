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
