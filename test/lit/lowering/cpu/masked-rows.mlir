// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512 parallel=0},kiln-cpu-tile-and-vectorize))' | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512 parallel=0},kiln-cpu-tile-and-vectorize,kiln-cpu-lower-vector))' | FileCheck %s --check-prefix=LOWERED
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 parallel=0},kiln-cpu-tile-and-vectorize))' | FileCheck %s --check-prefix=AVX2

// With 512-bit vectors a row of 14 (a Winograd stage's tiles of a 56x56
// map) is one masked vector of 16 lanes, not pieces of 8, 4 and 2; after
// kiln-cpu-lower-vector the masks sit on 1-D transfers (masked loads and
// stores). With 256-bit vectors the row stays 8 lanes and a tail of 6.
// CHECK-LABEL: func.func @row14
//       CHECK: scf.for
//       CHECK:   %[[MASK:.*]] = vector.create_mask %{{.*}}, %c14 : vector<1x16xi1>
//       CHECK:   vector.mask %[[MASK]] { vector.transfer_read {{.*}} : memref<1x14xf32, strided<[14, 1], offset: ?>>, vector<1x16xf32> }
//       CHECK:   arith.addf {{.*}} : vector<1x16xf32>
//       CHECK:   vector.mask %[[MASK]] { vector.transfer_write {{.*}} : vector<1x16xf32>, memref<1x14xf32, strided<[14, 1], offset: ?>> }
// LOWERED-LABEL: func.func @row14
//   LOWERED-NOT: vector.mask
//       LOWERED: %[[M:.*]] = vector.create_mask %c14 : vector<16xi1>
//       LOWERED: vector.transfer_read {{.*}}, %[[M]] {in_bounds = [true]} : memref<14xf32, {{.*}}>, vector<16xf32>
//       LOWERED: vector.transfer_write {{.*}}, %{{.*}} {in_bounds = [true]} : vector<16xf32>, memref<14xf32, {{.*}}>
// AVX2-LABEL: func.func @row14
//   AVX2-NOT: vector.mask
//       AVX2: arith.addf {{.*}} : vector<1x8xf32>
//       AVX2: arith.addf {{.*}} : vector<1x6xf32>
func.func @row14(%a: memref<64x14xf32>, %b: memref<64x14xf32>, %c: memref<64x14xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<64x14xf32>, memref<64x14xf32>) outs(%c : memref<64x14xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// A power-of-two row (8) keeps its plain vector.
// CHECK-LABEL: func.func @row8
//   CHECK-NOT: vector.mask
//       CHECK: arith.addf {{.*}} : vector<1x8xf32>
func.func @row8(%a: memref<64x8xf32>, %c: memref<64x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x8xf32>) outs(%c : memref<64x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}
