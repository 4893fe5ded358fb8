// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{arch=aarch64 vector-bits=128 int8=1}),canonicalize,cse)' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{arch=aarch64 vector-bits=128}))' -split-input-file | FileCheck %s --check-prefix=NOI8MM
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{arch=aarch64 vector-bits=128 int8=1 int8-signed=1}),canonicalize,cse)' -split-input-file | FileCheck %s --check-prefix=SDOT

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// AArch64 with i8mm: 4 columns per 128-bit vector, 16-byte weight loads,
// the row's 4 bytes broadcast to every lane, usdot (u8 rows, s8 weights)
// into i32 accumulators; 7 rows x 32 columns: two panels of 4 vectors, each
// a 6-row tile and the last row.
// CHECK-LABEL: func.func @usdot
//   CHECK-NOT: linalg.fill
//       CHECK: scf.for {{.*}} iter_args
//       CHECK:   vector.load %{{.*}} : memref<2x128xi8>, vector<16xi8>
//       CHECK:   vector.broadcast {{.*}} : i32 to vector<4xi32>
//       CHECK:   llvm.call_intrinsic "llvm.aarch64.neon.usdot.v4i32.v16i8"({{.*}}) : (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>
//       CHECK: vector.store {{.*}} : memref<7x32xi32>, vector<4xi32>
//   CHECK-NOT: linalg.generic
// With only dotprod (sdot, s8 x s8): each panel first sums its weight
// columns (a row of ones through sdot) and starts its sums from 128 times
// that; the rows' bytes move to s8 by x ^ 0x80.
// SDOT-LABEL: func.func @usdot
//       SDOT: %[[ONES:.*]] = arith.constant dense<1> : vector<16xi8>
//       SDOT: scf.for
//       SDOT:   llvm.call_intrinsic "llvm.aarch64.neon.sdot.v4i32.v16i8"({{.*}}, %[[ONES]], {{.*}})
//       SDOT: arith.shli {{.*}} : vector<4xi32>
//       SDOT: scf.for {{.*}} iter_args
//       SDOT:   arith.xori {{.*}} : i32
//       SDOT:   llvm.call_intrinsic "llvm.aarch64.neon.sdot.v4i32.v16i8"
//   SDOT-NOT: usdot
// NOI8MM-LABEL: func.func @usdot
//       NOI8MM: linalg.generic
//   NOI8MM-NOT: llvm.call_intrinsic
func.func @usdot(%a: memref<7x2x4xi8>, %b: memref<2x32x4xi8>, %c: memref<7x32xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<7x32xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<7x2x4xi8>, memref<2x32x4xi8>) outs(%c : memref<7x32xi32>) {
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

// bf16 products have no NEON kernel here: they stay linalg.
// CHECK-LABEL: func.func @bf16_stays
//       CHECK: linalg.generic
func.func @bf16_stays(%a: memref<4x2x2xbf16>, %b: memref<2x16x2xbf16>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<4x2x2xbf16>, memref<2x16x2xbf16>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
