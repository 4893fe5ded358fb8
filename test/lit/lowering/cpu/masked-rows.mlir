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

// Rows of 4 to 7 were left scalar below half a vector; with 512-bit
// vectors a row of 7 (a Winograd stage's tiles at 28x28, a 7x7 map) is one
// masked vector of 8; with 256-bit vectors it stays a vector of 7 (which
// LLVM splits into 4, 2 and 1 lanes).
// CHECK-LABEL: func.func @row7
//       CHECK:   %[[MASK7:.*]] = vector.create_mask %{{.*}}, %c7 : vector<1x8xi1>
//       CHECK:   vector.mask %[[MASK7]] { vector.transfer_read {{.*}} : memref<1x7xf32, strided<[7, 1], offset: ?>>, vector<1x8xf32> }
//       CHECK:   arith.mulf {{.*}} : vector<1x8xf32>
// AVX2-LABEL: func.func @row7
//       AVX2: arith.mulf {{.*}} : vector<1x7xf32>
func.func @row7(%a: memref<64x7xf32>, %c: memref<64x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x7xf32>) outs(%c : memref<64x7xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}

// Integer rows keep unmasked vectors: masked-off lanes hold anything, and a
// division by one of them would trap. Operands broadcast along the row keep
// them too.
// CHECK-LABEL: func.func @row7_int_div
//   CHECK-NOT: vector.mask
//       CHECK: arith.divsi {{.*}} : vector<1x7xi32>
// CHECK-LABEL: func.func @row7_scalar_bound
//   CHECK-NOT: vector.mask
//       CHECK: arith.minimumf {{.*}} : vector<1x7xf32>
func.func @row7_int_div(%a: memref<64x7xi32>, %b: memref<64x7xi32>, %c: memref<64x7xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<64x7xi32>, memref<64x7xi32>) outs(%c : memref<64x7xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %q = arith.divsi %x, %y : i32
    linalg.yield %q : i32
  }
  return
}
func.func @row7_scalar_bound(%a: memref<64x7xf32>, %m: memref<f32>, %c: memref<64x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %m : memref<64x7xf32>, memref<f32>) outs(%c : memref<64x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.minimumf %x, %y : f32
    linalg.yield %r : f32
  }
  return
}
