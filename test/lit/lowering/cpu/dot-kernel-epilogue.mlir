// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{vector-bits=512 int8=1}),canonicalize,cse)' -split-input-file | FileCheck %s

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>
#rc = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>

// Two products of one shape whose zero fill CSE merged: each copies the
// zero-filled buffer into its own. The copies go (the tiles start from
// zero); the fill stays for nobody. The second epilogue adds a residual,
// a whole [M, N] operand read where the output is written, and applies
// Relu on the accumulators; the product never reaches memory.
// CHECK-LABEL: func.func @shared_zeros_residual
//   CHECK-NOT: linalg.copy
//       CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
//       CHECK: vector.store {{.*}} %arg3
//       CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
//       CHECK: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
//       CHECK: vector.load %arg5{{.*}} : memref<6x16xf32>, vector<16xf32>
//       CHECK: arith.addf
//       CHECK: arith.maximumf
//       CHECK: vector.store {{.*}}, %arg6{{.*}} : memref<6x16xf32>, vector<16xf32>
//   CHECK-NOT: linalg.generic
func.func @shared_zeros_residual(%a: memref<6x2x4xi8>, %b: memref<2x16x4xi8>, %zeros: memref<6x16xi32>, %c1: memref<6x16xi32>, %c2: memref<6x16xi32>, %res: memref<6x16xf32>, %y: memref<6x16xf32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%zeros : memref<6x16xi32>)
  linalg.copy ins(%zeros : memref<6x16xi32>) outs(%c1 : memref<6x16xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<6x2x4xi8>, memref<2x16x4xi8>) outs(%c1 : memref<6x16xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %wi = arith.extsi %w : i8 to i32
    %p = arith.muli %xi, %wi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.copy ins(%zeros : memref<6x16xi32>) outs(%c2 : memref<6x16xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<6x2x4xi8>, memref<2x16x4xi8>) outs(%c2 : memref<6x16xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %wi = arith.extsi %w : i8 to i32
    %p = arith.muli %xi, %wi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#rc, #rc, #rc], iterator_types = ["parallel", "parallel"]} ins(%res, %c2 : memref<6x16xf32>, memref<6x16xi32>) outs(%y : memref<6x16xf32>) {
  ^bb0(%r: f32, %acc: i32, %out: f32):
    %f = arith.sitofp %acc : i32 to f32
    %s = arith.addf %f, %r : f32
    %zero2 = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %zero2 : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>
#rc = affine_map<(m, n) -> (m, n)>

// The product is read again after its epilogue: the epilogue stays apart
// and the product is stored.
// CHECK-LABEL: func.func @read_later
//       CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
//       CHECK: vector.store {{.*}} %arg2
//       CHECK: linalg.generic
//       CHECK: linalg.copy ins(%arg2
func.func @read_later(%a: memref<6x2x4xi8>, %b: memref<2x16x4xi8>, %c: memref<6x16xi32>, %y: memref<6x16xf32>, %keep: memref<6x16xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<6x16xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<6x2x4xi8>, memref<2x16x4xi8>) outs(%c : memref<6x16xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %wi = arith.extsi %w : i8 to i32
    %p = arith.muli %xi, %wi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#rc, #rc], iterator_types = ["parallel", "parallel"]} ins(%c : memref<6x16xi32>) outs(%y : memref<6x16xf32>) {
  ^bb0(%acc: i32, %out: f32):
    %f = arith.sitofp %acc : i32 to f32
    linalg.yield %f : f32
  }
  linalg.copy ins(%c : memref<6x16xi32>) outs(%keep : memref<6x16xi32>)
  return
}
