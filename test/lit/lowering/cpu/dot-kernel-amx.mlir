// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{vector-bits=512 bf16=1 int8=1 amx=1}),canonicalize,cse)' -split-input-file | FileCheck %s

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// bf16 with AMX: 64 rows by 64 columns, K = 72 (36 pairs: two whole steps
// of 16 pairs and a tail of 4). Blocks of 2 x 2 C tiles that start from zero,
// loop-carried through the K loop; the tail step reads the A tail through
// a zero-padded stack copy and the B tail through a zero-padded copy made
// once. The C tiles go to the product's buffer.
// CHECK-LABEL: func.func @bf16
//   CHECK-NOT: linalg.fill ins(%{{.*}} : f32) outs(%arg2
//       CHECK: %[[WT:.*]] = memref.alloc() : memref<16x128xbf16>
//       CHECK: linalg.copy ins(%{{.*}} : memref<4x128xbf16, {{.*}}>) outs(%{{.*}} : memref<4x128xbf16, {{.*}}>)
//       CHECK: memref.alloca() : memref<16x32xbf16>
//       CHECK: amx.tile_zero : !amx.tile<16x16xf32>
//       CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
//       CHECK:   amx.tile_load %{{.*}} : memref<64x72xbf16> into !amx.tile<16x32xbf16>
//       CHECK:   amx.tile_load %{{.*}} : memref<36x128xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-4:   amx.tile_mulf
//       CHECK: amx.tile_load %[[WT]]
//       CHECK: amx.tile_store %arg2[{{.*}}], %{{.*}} : memref<64x64xf32>, !amx.tile<16x16xf32>
//       CHECK: memref.dealloc %[[WT]]
func.func @bf16(%a: memref<64x36x2xbf16>, %b: memref<36x64x2xbf16>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<64x36x2xbf16>, memref<36x64x2xbf16>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: bf16, %w: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %wf = arith.extf %w : bf16 to f32
    %p = arith.mulf %xf, %wf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// u8 x s8 with AMX, 5 rows: fewer than a tile, so the rows are copied to a
// zero-padded 16-row buffer and the valid rows of the result copied back.
// Without a zero fill the tiles start from the product's buffer.
// CHECK-LABEL: func.func @int8_rows
//       CHECK: %[[R:.*]] = memref.alloc() : memref<16x64xi8>
//       CHECK: linalg.copy ins(%{{.*}} : memref<5x64xi8{{.*}}>) outs(%{{.*}} : memref<5x64xi8{{.*}}>)
//       CHECK: %[[T:.*]] = memref.alloc() : memref<16x32xi32>
//       CHECK: linalg.copy ins(%{{.*}} : memref<5x32xi32{{.*}}>) outs(%{{.*}} : memref<5x32xi32{{.*}}>)
//       CHECK: amx.tile_load %[[T]]{{.*}} into !amx.tile<16x16xi32>
//       CHECK: amx.tile_load %[[R]]{{.*}} into !amx.tile<16x64xi8>
//       CHECK: amx.tile_muli %{{.*}} zext, %{{.*}}, %{{.*}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
//       CHECK: linalg.copy ins(%{{.*}} : memref<5x32xi32{{.*}}>) outs(%{{.*}} : memref<5x32xi32{{.*}}>)
func.func @int8_rows(%a: memref<5x16x4xi8>, %b: memref<16x32x4xi8>, %c: memref<5x32xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<5x16x4xi8>, memref<16x32x4xi8>) outs(%c : memref<5x32xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %wi = arith.extsi %w : i8 to i32
    %p = arith.muli %xi, %wi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
