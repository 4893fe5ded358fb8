// (loop-order=1 keeps the order below for the short products that test
// packing; @rows_outer takes the other from its schedule.)
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 tile-m=24 tile-n=32 tile-k=64 loop-order=1 min-parallel-work=32768 schedule-file=%S/Inputs/tile-schedules.json},kiln-cpu-tile-and-vectorize))' -split-input-file | FileCheck %s

// A matmul becomes a K block loop, a forall over cache blocks (each K
// block's B block stays in cache while the threads' row blocks sweep it), a
// register tile (N outside M, M peeled) and a K loop that carries the
// accumulator. The 16 rows past the last whole block of 24 are a matmul of
// their own, so every tile is static: its register tiles are 6, 6 and a
// peeled 4; its 16 x 96 x 128 multiply-adds (above a quarter of
// min_parallel_work, times 8 lanes) take threads over its column blocks,
// each running its own K steps (one row block: no B block to share, and its
// A stays in cache).
// CHECK-LABEL: func.func @matmul
//       CHECK: scf.for {{.*}} = %c0 to %c128 step %c64
//       CHECK:   scf.forall ({{.*}}) = (0, 0) to (48, 96) step (24, 32)
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         %[[ACC:.*]] = vector.transfer_read {{.*}} vector<6x16xf32>
//       CHECK:         %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[IT:.*]] = %[[ACC]]) -> (vector<6x16xf32>)
//       CHECK:           vector.transfer_read {{.*}} vector<6x1xf32>
//       CHECK:           vector.transfer_read {{.*}} vector<1x16xf32>
//       CHECK:           vector.contract {{.*}} %[[IT]] : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
//       CHECK:         vector.transfer_write %[[SUM]]
//       CHECK: scf.forall ({{.*}}) = (0) to (96) step (32)
//       CHECK:   scf.for {{.*}} = %c0 to %c128 step %c64
//       CHECK: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
//       CHECK:   vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
//   CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<64x128xf32>, %b: memref<128x96xf32>, %c: memref<64x96xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// Nine whole row blocks of 24 among eight thread chunks: one thread block
// each, so that no rows are left to run on one thread after the forall (in
// blocks of 48 the last 24 rows were a matmul of their own).
// CHECK-LABEL: func.func @nine_row_blocks
//       CHECK: scf.forall ({{.*}}) = (0) to (216) step (24)
//   CHECK-NOT: linalg.matmul
func.func @nine_row_blocks(%a: memref<216x64xf32>, %b: memref<64x32xf32>, %c: memref<216x32xf32>) {
  linalg.matmul ins(%a, %b : memref<216x64xf32>, memref<64x32xf32>) outs(%c : memref<216x32xf32>)
  return
}

// -----

// Large elementwise ops get a forall over leading parallel dims, in 64
// blocks of rows rather than single rows, then vector rows of 8 lanes.
// CHECK-LABEL: func.func @relu
//       CHECK: scf.forall (%{{.*}}) = (0) to (256) step (4)
//       CHECK:   scf.for
//       CHECK:     vector.transfer_read {{.*}} vector<1x8xf32>
//       CHECK:     arith.maximumf {{.*}} : vector<1x8xf32>
//       CHECK:     vector.transfer_write
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

// Small ops get no threads, but still vector rows.
// CHECK-LABEL: func.func @small
//   CHECK-NOT: scf.forall
//       CHECK: vector.transfer_read {{.*}} vector<1x8xf32>
func.func @small(%a: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// A per-channel broadcast operand becomes a broadcast read; the 44-wide
// rows split into 5 x 8 lanes plus a peeled remainder of 4.
// CHECK-LABEL: func.func @broadcast_rows
//       CHECK: scf.for %{{.*}} = %c0 to %c40 step %c8
//       CHECK:   arith.mulf {{.*}} : vector<1x1x1x8xf32>
//       CHECK: arith.mulf {{.*}} : vector<1x1x1x4xf32>
func.func @broadcast_rows(%a: memref<1x4x40x44xf32>, %b: memref<1x4x1x1xf32>, %c: memref<1x4x40x44xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, 0, 0)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : memref<1x4x40x44xf32>, memref<1x4x1x1xf32>) outs(%c : memref<1x4x40x44xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A transposing read is not contiguous along the row: blocks of 8 x 8 read
// the input transposed (rows and a transpose in registers, one shuffle
// after kiln-cpu-lower-vector: lower-vector.mlir) and write rows of the
// output.
// CHECK-LABEL: func.func @transposed
//       CHECK: scf.for %[[I:.*]] = %c0 to %c16 step %c8
//       CHECK:   scf.for %[[J:.*]] = %c0 to %c16 step %c8
//       CHECK:     %[[IN:.*]] = memref.subview %{{.*}}[%[[J]], %[[I]]] [8, 8]
//       CHECK:     %[[OUT:.*]] = memref.subview %{{.*}}[%[[I]], %[[J]]] [8, 8]
//       CHECK:     %[[BLOCK:.*]] = vector.transfer_read %[[IN]]{{.*}} {permutation_map = #{{.*}}} : memref<8x8xf32, strided<[16, 1], offset: ?>>, vector<8x8xf32>
//       CHECK:     vector.transfer_write %[[BLOCK]], %[[OUT]]
//   CHECK-NOT: linalg.generic
func.func @transposed(%a: memref<16x16xf32>, %c: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<16x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// A transposed input beside one read in order (a pixel-row product's result
// and a residual), 7 x 20: blocks of 8 channels by the 7 pixels, then the
// remainder of 4 channels; the in-order input is read as rows.
// CHECK-LABEL: func.func @transposed_add
//       CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8
//       CHECK:   vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : memref<7x8xf32, strided<[20, 1], offset: ?>>, vector<8x7xf32>
//       CHECK:   vector.transfer_read {{.*}} : memref<8x7xf32, strided<[7, 1], offset: ?>>, vector<8x7xf32>
//       CHECK:   arith.addf {{.*}} : vector<8x7xf32>
//       CHECK:   vector.transfer_write {{.*}} : vector<8x7xf32>
//       CHECK: }
//       CHECK: vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : memref<7x4xf32, strided<[20, 1], offset: 16>>, vector<4x7xf32>
//       CHECK: arith.addf {{.*}} : vector<4x7xf32>
//   CHECK-NOT: linalg.generic
func.func @transposed_add(%a: memref<7x20xf32>, %b: memref<20x7xf32>, %c: memref<20x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<7x20xf32>, memref<20x7xf32>) outs(%c : memref<20x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows past the last whole thread block (88 = 3 x 24 + 16) are an op of
// their own with one block of rows and one of columns; its columns are
// shared out in register-tile blocks, so that it does not run on one
// thread after the forall.
// CHECK-LABEL: func.func @rest_columns
//       CHECK: scf.forall (%{{.*}}) = (0) to (72) step (24)
//       CHECK: scf.forall (%{{.*}}) = (0) to (32) step (16)
//       CHECK:   vector.contract {{.*}} into vector<6x16xf32>
func.func @rest_columns(%a: memref<88x512xf32>, %b: memref<512x32xf32>, %c: memref<88x32xf32>) {
  linalg.matmul ins(%a, %b : memref<88x512xf32>, memref<512x32xf32>) outs(%c : memref<88x32xf32>)
  return
}

// -----

// A transpose gets threads from a quarter of the row ops' work (64 x 128
// elements, the rows' threshold being 16384 here) and its forall splits
// the transposed side in whole blocks of 8, never below a block's side;
// an in-order op of the same size stays on one thread.
// CHECK-LABEL: func.func @transposed_threads
//       CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (64, 128) step (8, 16)
//       CHECK:   vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : memref<8x8xf32, strided<[64, 1], offset: ?>>, vector<8x8xf32>
// CHECK-LABEL: func.func @in_order_same_size
//   CHECK-NOT: scf.forall
//       CHECK: vector.transfer_read {{.*}} vector<1x8xf32>
func.func @transposed_threads(%a: memref<128x64xf32>, %c: memref<64x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<128x64xf32>) outs(%c : memref<64x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}
func.func @in_order_same_size(%a: memref<64x128xf32>, %c: memref<64x128xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x128xf32>) outs(%c : memref<64x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A schedule file entry for the op's node overrides the pass options:
// register tile 4x16 and a 32-deep K block instead of 6x16 and 64.
// CHECK-LABEL: func.func @scheduled
//       CHECK: scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @scheduled(%a: memref<64x128xf32>, %b: memref<128x96xf32>, %c: memref<64x96xf32>) {
  linalg.matmul
    ins(%a, %b : memref<64x128xf32>, memref<128x96xf32>) outs(%c : memref<64x96xf32>) loc("scheduled")
  return
}

// -----

// A named broadcast (a bias initializer) takes the elementwise path: rows of
// 8 lanes, with the bias element splat across the row.
// CHECK-LABEL: func.func @bias_broadcast
//   CHECK-NOT: linalg.broadcast
//       CHECK: scf.for %{{.*}} = %c0 to %c40 step %c8
//       CHECK:   %[[ROW:.*]] = vector.transfer_read {{.*}} : memref<1xf32, {{.*}}>, vector<1x1x1x8xf32>
//       CHECK:   vector.transfer_write %[[ROW]]
func.func @bias_broadcast(%b: memref<4xf32>, %c: memref<1x4x20x40xf32>) {
  linalg.broadcast ins(%b : memref<4xf32>) outs(%c : memref<1x4x20x40xf32>) dimensions = [0, 2, 3]
  return
}

// -----

// A matmul already inside a parallel loop (a blocked convolution's) gets
// its register tiles but no parallel loop of its own.
// CHECK-LABEL: func.func @nested_matmul
//       CHECK: scf.forall
//   CHECK-NOT:   scf.forall
//       CHECK:   vector.contract
func.func @nested_matmul(%a: memref<24x64xf32>, %b: memref<4x64x64xf32>, %c: memref<4x24x64xf32>) {
  scf.forall (%i) in (4) {
    %bi = memref.subview %b[%i, 0, 0] [1, 64, 64] [1, 1, 1] : memref<4x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    %ci = memref.subview %c[%i, 0, 0] [1, 24, 64] [1, 1, 1] : memref<4x24x64xf32> to memref<24x64xf32, strided<[64, 1], offset: ?>>
    linalg.matmul ins(%a, %bi : memref<24x64xf32>, memref<64x64xf32, strided<[64, 1], offset: ?>>) outs(%ci : memref<24x64xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// -----

// B rows 8 KiB apart, read by 4 register tiles (the schedule's
// pack_min_reuse): each N step copies its kc x nr panel of B into a stack
// buffer (allocated once, at the start of the parallel body) that the M
// loop's register tiles then read contiguously.
// CHECK-LABEL: func.func @packed_b
//       CHECK: scf.forall
//  CHECK-NEXT:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
//       CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:     %[[PANEL:.*]] = memref.subview %[[BUF]]
//       CHECK:     vector.transfer_write {{.*}}, %{{.*}} : vector<1x8xf32>, memref<1x8xf32, strided<[16, 1], offset: ?>>
//       CHECK:     scf.for %{{.*}} = %c0 to %c24 step %c6
//       CHECK:       memref.subview %[[PANEL]]
//       CHECK:       vector.contract
func.func @packed_b(%a: memref<24x16xf32>, %b: memref<16x2048xf32>, %c: memref<24x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x2048xf32>) outs(%c : memref<24x2048xf32>) loc("packed_b")
  return
}

// -----

// Under the default pack_min_reuse (16) the same 4 register tiles read B in
// place.
// CHECK-LABEL: func.func @unpacked_b_few_tiles
//   CHECK-NOT: memref.alloca
//       CHECK: return
func.func @unpacked_b_few_tiles(%a: memref<24x16xf32>, %b: memref<16x2048xf32>, %c: memref<24x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x2048xf32>) outs(%c : memref<24x2048xf32>)
  return
}

// -----

// N = 52 in one 64-column block leaves a last panel of 4 columns: its
// width, an affine.min of the N step that tiling computes inside the M loop,
// moves out with the panel, which is packed like the whole ones (the last
// step is peeled afterwards).
// CHECK-LABEL: func.func @packed_b_partial
//       CHECK: %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
//       CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
//       CHECK:   memref.subview %[[BUF]][0, 0] [16, 16]
//       CHECK: memref.subview %{{.*}}[0, 48] [16, 4]
//       CHECK: %[[LAST:.*]] = memref.subview %[[BUF]][0, 0] [16, 4]
//       CHECK: vector.transfer_write {{.*}} : vector<1x4xf32>, memref<1x4xf32, strided<[16, 1], offset: ?>>
//       CHECK: scf.for %{{.*}} = %c0 to %c24 step %c6
//       CHECK:   memref.subview %[[LAST]]
//       CHECK:   vector.contract {{.*}} : vector<6x1xf32>, vector<1x4xf32>
func.func @packed_b_partial(%a: memref<24x16xf32>, %b: memref<16x52xf32>, %c: memref<24x52xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x52xf32>) outs(%c : memref<24x52xf32>) loc("packed_b_partial")
  return
}

// -----

// B rows 256 bytes apart stay in place. A contraction of 24 x 64 x 16
// multiply-adds is too small for threads.
// CHECK-LABEL: func.func @unpacked_b
//   CHECK-NOT: memref.alloca
//   CHECK-NOT: scf.forall
func.func @unpacked_b(%a: memref<24x16xf32>, %b: memref<16x64xf32>, %c: memref<24x64xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x64xf32>) outs(%c : memref<24x64xf32>)
  return
}

// -----

// B rows 49 floats apart (a 1x1 convolution's pixels at 7x7): under
// pack_row_bytes, but not whole cache lines apart, so the whole-width
// panels are packed (32 columns, then 16 as an op of their own under
// tile_n 32); the one-column tail reads B in place.
// CHECK-LABEL: func.func @misaligned_b
//       CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
//       CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
//   CHECK-NOT: memref.alloca
//       CHECK: return
func.func @misaligned_b(%a: memref<24x16xf32>, %b: memref<16x49xf32>, %c: memref<24x49xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x49xf32>) outs(%c : memref<24x49xf32>) loc("misaligned_b")
  return
}

// -----

// Rows a whole number of cache lines apart stay in place.
// CHECK-LABEL: func.func @aligned_b
//   CHECK-NOT: memref.alloca
//       CHECK: return
func.func @aligned_b(%a: memref<24x16xf32>, %b: memref<16x48xf32>, %c: memref<24x48xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x48xf32>) outs(%c : memref<24x48xf32>) loc("aligned_b")
  return
}

// -----

// A schedule's pack_row_bytes overrides the pass option: 256-byte rows are
// packed at 256, and the 8 KiB rows of @packed_b are not at 0.
// CHECK-LABEL: func.func @scheduled_packing
//       CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
//   CHECK-NOT: memref.alloca
//       CHECK: return
func.func @scheduled_packing(%a: memref<24x16xf32>, %b: memref<16x64xf32>, %c: memref<24x64xf32>, %b2: memref<16x2048xf32>, %c2: memref<24x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x64xf32>) outs(%c : memref<24x64xf32>) loc("pack256")
  linalg.matmul ins(%a, %b2 : memref<24x16xf32>, memref<16x2048xf32>) outs(%c2 : memref<24x2048xf32>) loc("nopack")
  return
}

// -----

// With pack_a_row_bytes, each K step copies its A block (mc x kc) into a
// stack buffer before the N loop; the register tiles read the copy (on one
// thread: with threads, each column block packs A for itself).
// CHECK-LABEL: func.func @packed_a
//       CHECK: %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<24x64xf32>
//       CHECK: scf.for %{{.*}} = %c0 to %c128 step %c64
//       CHECK:   memref.subview %[[BUF]]
//       CHECK:   vector.transfer_write {{.*}} : vector<1x8xf32>, memref<1x8xf32, strided<[64, 1], offset: ?>>
//       CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:     scf.for %{{.*}} = %c0 to %c24 step %c6
//       CHECK:       memref.subview %[[BUF]]
//       CHECK:       vector.contract
func.func @packed_a(%a: memref<24x128xf32>, %b: memref<128x64xf32>, %c: memref<24x64xf32>) {
  linalg.matmul ins(%a, %b : memref<24x128xf32>, memref<128x64xf32>) outs(%c : memref<24x64xf32>) loc("packed_a")
  return
}

// -----

// A gather indexed by `m floordiv 64` and `m mod 64` (an NHWC im2col) is
// split for threads only along the batch dim: a block of m would read the
// wrong input rows.
// CHECK-LABEL: func.func @gather_rows
//       CHECK: scf.forall (%{{.*}}) in (4)
//   CHECK-NOT: scf.forall
//       CHECK: linalg.generic
//  CHECK-SAME: ins({{.*}} : memref<1x64x64x16xf32, strided
//  CHECK-SAME: outs({{.*}} : memref<1x4096x16xf32, strided
func.func @gather_rows(%a: memref<4x64x64x16xf32>, %c: memref<4x4096x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, m, k) -> (n, m floordiv 64, m mod 64, k)>, affine_map<(n, m, k) -> (n, m, k)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<4x64x64x16xf32>) outs(%c : memref<4x4096x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// An im2col gather reads x[c, oh + kh, ow + kw]: rows of ow are contiguous
// once c, kh, kw and oh run one at a time, so it becomes vector rows too;
// the row's read map drops the fixed loops.
// CHECK-LABEL: func.func @gather_im2col
//   CHECK-NOT: linalg.generic
//       CHECK: %[[ROW:.*]] = vector.transfer_read {{.*}} : memref<1x1x8xf32, strided<[360, 20, 1], offset: ?>>, vector<1x1x1x1x8xf32>
//       CHECK: vector.transfer_write %[[ROW]], {{.*}} : vector<1x1x1x1x8xf32>, memref<1x1x1x1x8xf32
func.func @gather_im2col(%x: memref<4x18x20xf32>, %c: memref<4x3x3x16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, kh, kw, oh, ow) -> (c, oh + kh, ow + kw)>, affine_map<(c, kh, kw, oh, ow) -> (c, kh, kw, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<4x18x20xf32>) outs(%c : memref<4x3x3x16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// A gather marked to follow its product's pixels: the threads take its
// output rows (oh), each row of every channel and tap inside.
// CHECK-LABEL: func.func @gather_split_rows
//       CHECK: scf.forall (%[[OH:.*]]) in (32)
//       CHECK:   memref.subview %{{.*}}[0, 0, %[[OH]], 0] [1, 8, 3, 34]
//       CHECK:   memref.subview %{{.*}}[0, 0, 0, 0, %[[OH]], 0] [1, 8, 3, 3, 1, 32]
func.func @gather_split_rows(%x: memref<1x8x34x34xf32>, %c: memref<1x8x3x3x32x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, kh, kw, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(n, c, kh, kw, oh, ow) -> (n, c, kh, kw, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x34x34xf32>) outs(%c : memref<1x8x3x3x32x32xf32>) attrs = {kiln.split_gather_rows} {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// With stride 2 a row of 8 reads 15 input elements: two loads of 8 (the
// second ending on the last element) and a shuffle of the even ones.
// CHECK-LABEL: func.func @gather_strided
//       CHECK: %[[IN:.*]] = memref.subview {{.*}} [1, 1, 15] [1, 1, 1]
//       CHECK: %[[LO:.*]] = vector.transfer_read %[[IN]][%[[Z:.*]], %[[Z]], %[[Z]]]{{.*}} vector<8xf32>
//       CHECK: %[[HI:.*]] = vector.transfer_read %[[IN]][%[[Z]], %[[Z]], %c7]{{.*}} vector<8xf32>
//       CHECK: %[[ROW:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6, 9, 11, 13, 15]
//       CHECK: vector.transfer_write %[[ROW]]
//   CHECK-NOT: linalg.generic
func.func @gather_strided(%x: memref<4x18x40xf32>, %c: memref<4x3x3x8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, kh, kw, oh, ow) -> (c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(c, kh, kw, oh, ow) -> (c, kh, kw, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<4x18x40xf32>) outs(%c : memref<4x3x3x8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// A sum over the innermost loops (a global average pool) reads rows of 8
// and adds them lane by lane into a vector that the row loop carries, then
// folds it into the output element with one horizontal reduction after the
// loop; the element stays in a register, the 4-wide remainder is peeled.
// CHECK-LABEL: func.func @row_sum
//       CHECK: scf.for
//       CHECK:   scf.for
//       CHECK:     %[[ACC:.*]] = vector.transfer_read %{{.*}} : memref<1x1xf32, strided<[64, 1], offset: ?>>, vector<1x1xf32>
//       CHECK:     %[[ZERO:.*]] = arith.constant dense<-0.000000e+00> : vector<1x1x1x8xf32>
//       CHECK:     %[[SUM:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]], %[[L:.*]] = %[[ZERO]])
//       CHECK:       %[[ROW:.*]] = vector.transfer_read {{.*}} vector<1x1x1x8xf32>
//       CHECK:       arith.addf %[[ROW]], %[[L]] : vector<1x1x1x8xf32>
//   CHECK-NOT:       vector.multi_reduction
//       CHECK:     %[[R:.*]] = vector.multi_reduction <add>, %[[SUM]]#1, %[[ACC]] [2, 3] : vector<1x1x1x8xf32> to vector<1x1xf32>
//       CHECK:     vector.transfer_write %[[R]]
//       CHECK:     vector.multi_reduction <add>, {{.*}} : vector<1x1x1x4xf32> to vector<1x1xf32>
func.func @row_sum(%x: memref<1x64x20x20xf32>, %o: memref<1x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : memref<1x64x20x20xf32>) outs(%o : memref<1x64xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction over a non-innermost loop stays scalar.
// CHECK-LABEL: func.func @column_sum
//   CHECK-NOT: vector.multi_reduction
//       CHECK: linalg.generic
func.func @column_sum(%x: memref<64x256xf32>, %o: memref<256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x256xf32>) outs(%o : memref<256xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A named reduction (softmax's row maximum) takes the same row path as a
// generic one: rows of 8 along the reduced innermost dim, combined lane by
// lane (from -inf), one horizontal reduction after the row loop, the
// 5-wide remainder peeled.
// CHECK-LABEL: func.func @named_row_max
//   CHECK-NOT: linalg.reduce
//       CHECK: arith.constant dense<0xFF800000> : vector<1x8xf32>
//       CHECK: scf.for
//       CHECK:   arith.maxnumf {{.*}} : vector<1x8xf32>
//       CHECK: vector.multi_reduction <maxnumf>, {{.*}} : vector<1x8xf32> to vector<1xf32>
//       CHECK: vector.multi_reduction <maxnumf>, {{.*}} : vector<1x5xf32> to vector<1xf32>
func.func @named_row_max(%x: memref<12x197xf32>, %o: memref<12xf32>) {
  linalg.reduce ins(%x : memref<12x197xf32>) outs(%o : memref<12xf32>) dimensions = [1]
    (%v: f32, %a: f32) {
      %m = arith.maxnumf %v, %a : f32
      linalg.yield %m : f32
    }
  return
}

// -----

// loop_order 2 (the default for K of 16 or less): the register tiles' M
// loop outside N, so that each row block of C is written in one run along
// the columns while A's 6 x 16 panel is reused; B is not packed.
// CHECK-LABEL: func.func @rows_outer
//   CHECK-NOT: memref.alloca
//       CHECK: scf.for %{{.*}} = %c0 to %c24 step %c6
//       CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:     vector.contract
func.func @rows_outer(%a: memref<24x16xf32>, %b: memref<16x2048xf32>, %c: memref<24x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<24x16xf32>, memref<16x2048xf32>) outs(%c : memref<24x2048xf32>) loc("rows_outer")
  return
}
