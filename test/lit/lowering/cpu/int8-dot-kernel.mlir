// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-int8-dot-kernel{vector-bits=512}),canonicalize,cse)' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-int8-dot-kernel))' -split-input-file | FileCheck %s --check-prefix=NONE

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// 7 rows by 80 columns: one 6-row tile of 4 vectors, the last row, then the
// 16-column rest panel (12-row tiles, so all 7 rows at once). The product
// is too small for threads. The zero fill goes: tiles start from zero.
// CHECK-LABEL: func.func @small
//   CHECK-NOT: linalg.fill
//   CHECK-NOT: scf.forall
//       CHECK: scf.for {{.*}} iter_args
//       CHECK:   vector.load %{{.*}} : memref<2x320xi8>, vector<64xi8>
//       CHECK:   vector.load %{{.*}} : memref<7x8xi8>, vector<4xi8>
//       CHECK:   vector.bitcast {{.*}} : vector<4xi8> to vector<1xi32>
//       CHECK:   vector.broadcast {{.*}} : i32 to vector<16xi32>
//       CHECK:   llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
//       CHECK: vector.store {{.*}} : memref<7x80xi32>, vector<16xi32>
//   CHECK-NOT: linalg.generic
// NONE-LABEL: func.func @small
//       NONE: linalg.fill
//       NONE: linalg.generic
func.func @small(%a: memref<7x2x4xi8>, %b: memref<2x80x4xi8>, %c: memref<7x80xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<7x80xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<7x2x4xi8>, memref<2x80x4xi8>) outs(%c : memref<7x80xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %yi = arith.extsi %y : i8 to i32
    %p = arith.muli %xi, %yi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// Large enough for threads: a forall over row chunks and column groups.
// Without a zero fill the tiles start from the buffer's values.
// CHECK-LABEL: func.func @threads
//       CHECK: scf.forall
//       CHECK:   vector.load %arg2{{.*}} : memref<3136x64xi32>, vector<16xi32>
//       CHECK:   llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
func.func @threads(%a: memref<3136x16x4xi8>, %b: memref<16x64x4xi8>, %c: memref<3136x64xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<3136x16x4xi8>, memref<16x64x4xi8>) outs(%c : memref<3136x64xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %yi = arith.extsi %y : i8 to i32
    %p = arith.muli %xi, %yi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// Both operands sign-extended: not the u8 x s8 form, stays linalg.
// CHECK-LABEL: func.func @signed_signed
//       CHECK: linalg.generic
//   CHECK-NOT: llvm.call_intrinsic
func.func @signed_signed(%a: memref<8x2x4xi8>, %b: memref<2x16x4xi8>, %c: memref<8x16xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<8x2x4xi8>, memref<2x16x4xi8>) outs(%c : memref<8x16xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xi = arith.extsi %x : i8 to i32
    %yi = arith.extsi %y : i8 to i32
    %p = arith.muli %xi, %yi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
