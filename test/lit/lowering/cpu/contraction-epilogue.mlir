// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 tile-m=8 tile-n=32 tile-k=64 parallel=0},kiln-cpu-tile-and-vectorize))' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 tile-m=8 tile-n=32 tile-k=64 parallel=0},kiln-cpu-tile-and-vectorize{fuse-epilogues=0}))' -split-input-file | FileCheck %s --check-prefix=OFF
// One pass instance on the functions of a chunk one after the other, as a
// single-threaded run does: epilogue groups are numbered per function.
// RUN: kiln-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 tile-m=8 tile-n=32 tile-k=64 parallel=0},kiln-cpu-tile-and-vectorize))' -split-input-file | FileCheck %s
// With 512-bit vectors (AVX-512: masked stores as cheap as plain ones).
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512 tile-m=8 tile-n=32 tile-k=64 parallel=0},kiln-cpu-tile-and-vectorize))' -split-input-file | FileCheck %s --check-prefix=MASKED

// A convolution's product on buffers (C = the collapsed output of a 1x1
// convolution): the bias broadcast before it and the ReLU after it run in
// its register tiles. One K block (K = 48 <= 64): each tile starts from
// the bias of its 6 rows (scalar loads, broadcast along the row) and
// stores max(acc, 0) to D; C is never read or written.
// CHECK-LABEL: func.func @bias_relu
//   CHECK-NOT: linalg.generic
// The lines of D the tile stores (one a row) are fetched before its K loop.
// CHECK-COUNT-6: memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}], write, locality<3>, data : memref<16x64xf32>
//       CHECK: memref.load %[[BIAS:.*]][%{{.*}}] : memref<16xf32>
//       CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
//       CHECK: vector.insert %{{.*}}, %{{.*}} [0] : vector<16xf32> into vector<6x16xf32>
//   CHECK-NOT: memref.prefetch
//       CHECK: scf.for {{.*}} -> (vector<6x16xf32>)
//       CHECK:   vector.contract
//       CHECK: %[[M:.*]] = arith.maximumf %{{.*}}, %{{.*}} : vector<6x16xf32>
//       CHECK: vector.transfer_write %[[M]], %[[D:.*]][%{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<6x16xf32>, memref<16x64xf32
//   CHECK-NOT: linalg.generic
// OFF-LABEL: func.func @bias_relu
//   OFF-NOT: memref.load
//       OFF: vector.transfer_write {{.*}} : vector<1x1x1x8xf32>
//       OFF: vector.contract
//       OFF: arith.maximumf {{.*}} : vector<1x1x1x8xf32>
func.func @bias_relu(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %bias: memref<16xf32>, %arena: memref<?xi8>, %d: memref<1x16x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c0][] : memref<?xi8> to memref<1x16x8x8xf32>
  linalg.broadcast ins(%bias : memref<16xf32>) outs(%c : memref<1x16x8x8xf32>) dimensions = [0, 2, 3]
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%cv : memref<16x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x8x8xf32>) outs(%d : memref<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Several K blocks (K = 160, blocks of 64): the first starts from the fill,
// the others from C; the last stores the residual add to D, the others C.
// An op between the product and its epilogue that touches neither C, D nor
// the residual (a copy elsewhere in the arena) does not stand in the way.
// The last K block fetches the residual's and D's lines of its tile first.
// CHECK-LABEL: func.func @k_blocks_residual
//  CHECK-SAME: %[[RES:[a-z0-9]+]]: memref<16x32xf32>, %{{[a-z0-9]+}}: memref<?xi8>, %[[DST:[a-z0-9]+]]: memref<16x32xf32>
//       CHECK: scf.for %[[KB:.*]] = %c0 to %c160 step %c64
//       CHECK:   %[[PNEXT:.*]] = arith.addi %[[KB]], %c64
//       CHECK:   %[[PLAST:.*]] = arith.cmpi sge, %[[PNEXT]], %c160
//       CHECK:   scf.if %[[PLAST]] {
// CHECK-COUNT-6:   memref.prefetch %[[RES]][%{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK-COUNT-6:   memref.prefetch %[[DST]][%{{.*}}, %{{.*}}], write, locality<3>, data
//   CHECK-NOT:   memref.prefetch
//       CHECK:   }
//       CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[KB]], %c0
//       CHECK:   %[[INIT:.*]] = scf.if %[[FIRST]] -> (vector<6x16xf32>)
//       CHECK:     vector.broadcast %{{.*}} : f32 to vector<6x16xf32>
//       CHECK:   } else {
//       CHECK:     vector.transfer_read
//       CHECK:   %[[NEXT:.*]] = arith.addi %[[KB]], %c64
//       CHECK:   %[[LAST:.*]] = arith.cmpi sge, %[[NEXT]], %c160
//       CHECK:   scf.if %[[LAST]] {
//       CHECK:     %[[R:.*]] = vector.transfer_read %{{.*}} : memref<16x32xf32{{.*}}>, vector<6x16xf32>
//       CHECK:     arith.addf %{{.*}}, %[[R]] : vector<6x16xf32>
//       CHECK:     vector.transfer_write
//       CHECK:   } else {
//       CHECK:     vector.transfer_write
// CHECK-NOT: linalg.fill
func.func @k_blocks_residual(%w: memref<16x160xf32>, %x: memref<160x32xf32>, %res: memref<16x32xf32>, %arena: memref<?xi8>, %d: memref<16x32xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c0][] : memref<?xi8> to memref<16x32xf32>
  %other = memref.view %arena[%c4096][] : memref<?xi8> to memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x32xf32>)
  linalg.matmul ins(%w, %x : memref<16x160xf32>, memref<160x32xf32>) outs(%c : memref<16x32xf32>)
  linalg.copy ins(%y : memref<64xf32>) outs(%other : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%c, %res : memref<16x32xf32>, memref<16x32xf32>) outs(%d : memref<16x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An epilogue whose output D is the interior of a padded buffer (the next
// convolution's input): its rows of 8 pixels are 10 apart, so each row of
// a tile's 16 lanes is stored in up to three pieces, one per image row,
// through a flat view of D's buffer. With 256-bit vectors a piece reads
// the 16 places back, selects its lanes and stores all 16 (the others are
// the tile's own pixels or padding); with 512 bits it is a masked store.
// CHECK-LABEL: func.func @padded_interior
//       CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1578], strides: [1]
//       CHECK: vector.contract
//       CHECK: %[[R:.*]] = arith.maximumf {{.*}} : vector<6x16xf32>
//       CHECK: %[[MASK:.*]] = arith.xori
//       CHECK: %[[ROW:.*]] = vector.extract %[[R]][0]
//       CHECK: %[[OLD:.*]] = vector.load %[[FLAT]][%[[AT:.*]]] : memref<1578xf32, strided<[1], offset: ?>>, vector<16xf32>
//       CHECK: %[[NEW:.*]] = arith.select %[[MASK]], %[[ROW]], %[[OLD]] : vector<16xi1>, vector<16xf32>
//       CHECK: vector.store %[[NEW]], %[[FLAT]][%[[AT]]]
//       CHECK: scf.if
//       CHECK:   arith.xori
//       CHECK:   arith.select
//       CHECK:   scf.if
//       CHECK:     arith.select
//   CHECK-NOT: vector.maskedstore
//   CHECK-NOT: linalg.generic
//   CHECK-NOT: vector.transfer_write
// MASKED-LABEL: func.func @padded_interior
//       MASKED: %[[R:.*]] = arith.maximumf {{.*}} : vector<8x32xf32>
//       MASKED: %[[ROW:.*]] = vector.extract %[[R]][0]
//       MASKED: vector.maskedstore %{{.*}}[%{{.*}}], %{{.*}}, %[[ROW]] : memref<1578xf32, strided<[1], offset: ?>>, vector<32xi1>, vector<32xf32>
//   MASKED-NOT: arith.select
func.func @padded_interior(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %bias: memref<16xf32>, %arena: memref<?xi8>, %pad: memref<1x16x10x10xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c0][] : memref<?xi8> to memref<1x16x8x8xf32>
  linalg.broadcast ins(%bias : memref<16xf32>) outs(%c : memref<1x16x8x8xf32>) dimensions = [0, 2, 3]
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%cv : memref<16x64xf32>)
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x8x8xf32>) outs(%inner : memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Rows of 32 pixels, 34 apart: a tile's 16 lanes lie within one image row
// whenever its first pixel is at 0 or 16 of its row, as here every tile's
// does. Those tiles store plainly; the pieces stay for tiles that would
// cross a row.
// CHECK-LABEL: func.func @padded_wide_rows
//       CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [18426], strides: [1]
//       CHECK: %[[R:.*]] = arith.maximumf {{.*}} : vector<6x16xf32>
//       CHECK: %[[FITS:.*]] = arith.cmpi sle, %{{.*}}, %c16
//       CHECK: scf.if %[[FITS]] {
//       CHECK:   %[[ROW:.*]] = vector.extract %[[R]][0]
//       CHECK:   vector.store %[[ROW]], %[[FLAT]][%{{.*}}] : memref<18426xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK-COUNT-5:   vector.store %{{.*}}, %[[FLAT]]
//   CHECK-NOT:   arith.select {{.*}} : vector<16xi1>, vector<16xf32>
//       CHECK: } else {
//       CHECK:   arith.select
func.func @padded_wide_rows(%w: memref<16x48xf32>, %x: memref<48x1024xf32>, %arena: memref<?xi8>, %pad: memref<1x16x34x34xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c0][] : memref<?xi8> to memref<1x16x32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x16x32x32xf32>)
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x32x32xf32> into memref<16x1024xf32>
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x1024xf32>) outs(%cv : memref<16x1024xf32>)
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 32, 32] [1, 1, 1, 1] : memref<1x16x34x34xf32> to memref<1x16x32x32xf32, strided<[18496, 1156, 34, 1], offset: 35>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x32x32xf32>) outs(%inner : memref<1x16x32x32xf32, strided<[18496, 1156, 34, 1], offset: 35>>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The memory plan reuses bytes only after a buffer's last use, so a later
// op reaching C's bytes through another arena view shows C dead there: the
// epilogue (the copy into a padded interior made after the product) runs
// in the tiles. A zero fill of C's 2-D view starts them. With D placed over
// the product's input X (as the plan may do when D's life begins at the
// epilogue), the tiles would write D while other tiles still read X: the
// epilogue stays a pass of its own.
// CHECK-LABEL: func.func @reused_bytes
//   CHECK-NOT: linalg.fill
//       CHECK: %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<6x16xf32>
//       CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]])
//       CHECK: arith.select {{.*}} : vector<16xi1>, vector<16xf32>
//       CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<64xf32>)
// CHECK-LABEL: func.func @d_over_input
//       CHECK: vector.contract
//       CHECK: vector.transfer_write %{{.*}} : vector<6x16xf32>, memref<6x16xf32
//   CHECK-NOT: arith.select {{.*}} : vector<16xi1>, vector<16xf32>
//       CHECK: arith.maximumf {{.*}} : vector<1x1x1x8xf32>
func.func @reused_bytes(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %arena: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x16x8x8xf32>
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%cv : memref<16x64xf32>)
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%cv : memref<16x64xf32>)
  %pad = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x16x10x10xf32>
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x8x8xf32>) outs(%inner : memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %later = memref.view %arena[%c4096][] : memref<?xi8> to memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%later : memref<64xf32>)
  return
}
func.func @d_over_input(%w: memref<16x48xf32>, %arena: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %c16384 = arith.constant 16384 : index
  %zero = arith.constant 0.0 : f32
  %x = memref.view %arena[%c0][] : memref<?xi8> to memref<48x64xf32>
  %c = memref.view %arena[%c16384][] : memref<?xi8> to memref<1x16x8x8xf32>
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%cv : memref<16x64xf32>)
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%cv : memref<16x64xf32>)
  %pad = memref.view %arena[%c0][] : memref<?xi8> to memref<1x16x10x10xf32>
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x8x8xf32>) outs(%inner : memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// What stays a pass of its own: an epilogue after an op that reads C. Its
// initializer still starts the product's tiles: per column (a MatMul's
// bias) one row read and broadcast down the tile.
// CHECK-LABEL: func.func @kept
//       CHECK: vector.transfer_read %{{.*}} : memref<64xf32>, vector<16xf32>
//       CHECK: vector.broadcast %{{.*}} : vector<16xf32> to vector<6x16xf32>
//       CHECK: vector.contract
//       CHECK: arith.negf {{.*}} : vector<{{[0-9x]+}}xf32>
func.func @kept(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %cbias: memref<64xf32>, %arena: memref<?xi8>, %e: memref<16x64xf32>) {
  %c8192 = arith.constant 8192 : index
  %c2 = memref.view %arena[%c8192][] : memref<?xi8> to memref<16x64xf32>
  linalg.broadcast ins(%cbias : memref<64xf32>) outs(%c2 : memref<16x64xf32>) dimensions = [0]
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%c2 : memref<16x64xf32>)
  linalg.copy ins(%c2 : memref<16x64xf32>) outs(%e : memref<16x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%c2 : memref<16x64xf32>) outs(%c2 : memref<16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// A bias from a constant global starts the tiles even where an op in between
// reads that global (another layer sharing the bias): nothing writes it.
// CHECK-LABEL: func.func @shared_bias
//   CHECK-NOT: linalg.broadcast
//       CHECK: memref.load %{{.*}} : memref<16xf32>
//       CHECK: vector.contract
memref.global "private" constant @bias16 : memref<16xf32> = dense<1.0>
func.func @shared_bias(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %arena: memref<?xi8>, %d: memref<16x64xf32>, %e: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %bias = memref.get_global @bias16 : memref<16xf32>
  %c = memref.view %arena[%c0][] : memref<?xi8> to memref<16x64xf32>
  linalg.broadcast ins(%bias : memref<16xf32>) outs(%c : memref<16x64xf32>) dimensions = [1]
  linalg.copy ins(%bias : memref<16xf32>) outs(%e : memref<16xf32>)
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<16x64xf32>) outs(%d : memref<16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// C is dead after the epilogue when the next op to reach its bytes writes
// all of them without reading them: through a collapsed view of C itself
// (a later activation the memory plan put in C's bytes), or as a loop that
// says so (`kiln.overwrites`, the depthwise kernel with its activation). A
// loop without the attribute might read C: the epilogue stays a pass.
// CHECK-LABEL: func.func @overwritten_collapsed
//       CHECK: arith.select {{.*}} : vector<16xi1>, vector<16xf32>
//   CHECK-NOT: linalg.generic {{.*}} ins(%{{.*}} : memref<1x16x8x8xf32>)
// CHECK-LABEL: func.func @overwritten_by_loop
//       CHECK: arith.select {{.*}} : vector<16xi1>, vector<16xf32>
//       CHECK: memref.store
//  CHECK-NEXT: } {kiln.overwrites = array<i64: 4096, 8192>}
// CHECK-LABEL: func.func @loop_may_read
//       CHECK: vector.transfer_write %{{.*}} : vector<6x16xf32>, memref<6x16xf32
//   CHECK-NOT: arith.select {{.*}} : vector<16xi1>, vector<16xf32>
func.func @overwritten_collapsed(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %arena: memref<?xi8>, %y: memref<1024xf32>) {
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x16x8x8xf32>
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%cv : memref<16x64xf32>)
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%cv : memref<16x64xf32>)
  %pad = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x16x10x10xf32>
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x8x8xf32>) outs(%inner : memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %flat = memref.collapse_shape %c [[0, 1, 2, 3]] : memref<1x16x8x8xf32> into memref<1024xf32>
  linalg.generic {indexing_maps = [affine_map<(a) -> (a)>, affine_map<(a) -> (a)>], iterator_types = ["parallel"]} ins(%y : memref<1024xf32>) outs(%flat : memref<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
func.func @overwritten_by_loop(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %arena: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x16x8x8xf32>
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%cv : memref<16x64xf32>)
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%cv : memref<16x64xf32>)
  %pad = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x16x10x10xf32>
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x8x8xf32>) outs(%inner : memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %flat = memref.collapse_shape %c [[0, 1, 2, 3]] : memref<1x16x8x8xf32> into memref<1024xf32>
  scf.for %i = %c0 to %c1024 step %c1 {
    memref.store %zero, %flat[%i] : memref<1024xf32>
  } {kiln.overwrites = array<i64: 4096, 8192>}
  return
}
func.func @loop_may_read(%w: memref<16x48xf32>, %x: memref<48x64xf32>, %arena: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c4096][] : memref<?xi8> to memref<1x16x8x8xf32>
  %cv = memref.collapse_shape %c [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%cv : memref<16x64xf32>)
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%cv : memref<16x64xf32>)
  %pad = memref.view %arena[%c8192][] : memref<?xi8> to memref<1x16x10x10xf32>
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<1x16x8x8xf32>) outs(%inner : memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %flat = memref.collapse_shape %c [[0, 1, 2, 3]] : memref<1x16x8x8xf32> into memref<1024xf32>
  scf.for %i = %c0 to %c1024 step %c1 {
    memref.store %zero, %flat[%i] : memref<1024xf32>
  }
  return
}
