// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{vector-bits=512 int8=1}),canonicalize,cse)' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{vector-bits=512}))' -split-input-file | FileCheck %s --check-prefix=NONE

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

// -----

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>
#rc = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>

// The requantization after the product (reading its first 20 of 32
// columns) runs on the accumulators: no i32 store, the epilogue's body on
// vectors; the second column vector's parameters are loaded and its u8
// results stored under the mask of the 4 columns left.
// CHECK-LABEL: func.func @fused_epilogue
//   CHECK-NOT: linalg.generic
//       CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
//       CHECK: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
//       CHECK: arith.mulf {{.*}} : vector<16xf32>
//       CHECK: arith.fptosi {{.*}} : vector<16xf32> to vector<16xi32>
//       CHECK: arith.trunci {{.*}} : vector<16xi32> to vector<16xi8>
//       CHECK: vector.maskedload %arg3
//       CHECK: vector.maskedstore %arg4
//   CHECK-NOT: vector.store {{.*}} : memref<8x32xi32>
func.func @fused_epilogue(%a: memref<8x2x4xi8>, %b: memref<2x32x4xi8>, %c: memref<8x32xi32>, %scale: memref<20xf32>, %out: memref<8x20xi8>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<8x32xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<8x2x4xi8>, memref<2x32x4xi8>) outs(%c : memref<8x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %yi = arith.extsi %y : i8 to i32
    %p = arith.muli %xi, %yi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  %view = memref.subview %c[0, 0] [8, 20] [1, 1] : memref<8x32xi32> to memref<8x20xi32, strided<[32, 1]>>
  linalg.generic {indexing_maps = [#rc, #col, #rc], iterator_types = ["parallel", "parallel"]} ins(%view, %scale : memref<8x20xi32, strided<[32, 1]>>, memref<20xf32>) outs(%out : memref<8x20xi8>) {
  ^bb0(%v: i32, %sc: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %sc : f32
    %i = arith.fptosi %m : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>
#rc = affine_map<(m, n) -> (m, n)>

// The memory plan put the epilogue's output over the product's rows (both
// views of one arena from byte 0): the tiles must not write it while they
// read the rows, so the epilogue stays a loop of its own.
// CHECK-LABEL: func.func @output_over_rows
//       CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
//       CHECK: vector.store {{.*}} : memref<8x16xi32>, vector<16xi32>
//       CHECK: linalg.generic
func.func @output_over_rows(%arena: memref<4096xi8>, %b: memref<2x16x4xi8>, %c: memref<8x16xi32>) {
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x2x4xi8>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<8x16xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<8x2x4xi8>, memref<2x16x4xi8>) outs(%c : memref<8x16xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %yi = arith.extsi %y : i8 to i32
    %p = arith.muli %xi, %yi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x16xf32>
  linalg.generic {indexing_maps = [#rc, #rc], iterator_types = ["parallel", "parallel"]} ins(%c : memref<8x16xi32>) outs(%out : memref<8x16xf32>) {
  ^bb0(%v: i32, %o: f32):
    %f = arith.sitofp %v : i32 to f32
    linalg.yield %f : f32
  }
  return
}
