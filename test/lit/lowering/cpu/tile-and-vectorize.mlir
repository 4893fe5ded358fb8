// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-tile-and-vectorize{vector-bits=256 tile-m=24 tile-n=32 tile-k=64}))' -split-input-file | FileCheck %s

// A matmul becomes a forall over cache blocks, a K block loop, a register
// tile (N outside M, M peeled) and a K loop that carries the accumulator.
// CHECK-LABEL: func.func @matmul
//       CHECK: scf.forall ({{.*}}) = (0, 0) to (64, 96) step (24, 32)
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         %[[ACC:.*]] = vector.transfer_read {{.*}} vector<6x16xf32>
//       CHECK:         %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[IT:.*]] = %[[ACC]]) -> (vector<6x16xf32>)
//       CHECK:           vector.transfer_read {{.*}} vector<6x1xf32>
//       CHECK:           vector.transfer_read {{.*}} vector<1x16xf32>
//       CHECK:           vector.contract {{.*}} %[[IT]] : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
//       CHECK:         vector.transfer_write %[[SUM]]
// The peeled M remainder stays a (dynamic) linalg.matmul.
//       CHECK:       linalg.matmul {{.*}} memref<?x1xf32
func.func @matmul(%a: memref<64x128xf32>, %b: memref<128x96xf32>, %c: memref<64x96xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// Large elementwise ops only get a forall over leading parallel dims, in
// 64 blocks of rows rather than single rows.
// CHECK-LABEL: func.func @relu
//       CHECK: scf.forall (%{{.*}}) = (0) to (256) step (4)
//       CHECK:   linalg.generic {{.*}} memref<4x256xf32
func.func @relu(%a: memref<256x256xf32>, %c: memref<256x256xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<256x256xf32>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Small ops stay as they are.
// CHECK-LABEL: func.func @small
//   CHECK-NOT: scf.forall
//       CHECK: linalg.generic
func.func @small(%a: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}
