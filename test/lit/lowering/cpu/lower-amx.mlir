// RUN: kiln-opt %s --kiln-cpu-lower-amx | FileCheck %s

// Tiles carried by a loop become x86_amx values of LLVM intrinsics, the
// loop's iter_args with them; memrefs and indices reach the intrinsics
// through casts.
// CHECK-LABEL: func.func @carried
//       CHECK: %[[Z:.*]] = llvm.call_intrinsic "llvm.x86.tilezero.internal"
//       CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (!llvm.x86_amx)
//       CHECK:   llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
//       CHECK:   llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
//       CHECK: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
//   CHECK-NOT: amx.
func.func @carried(%a: memref<16x64xbf16>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %z = amx.tile_zero : !amx.tile<16x16xf32>
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %z) -> (!amx.tile<16x16xf32>) {
    %o = arith.muli %k, %c32 : index
    %t = amx.tile_load %a[%c0, %o] : memref<16x64xbf16> into !amx.tile<16x32xbf16>
    %n = amx.tile_mulf %t, %t, %acc : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
    scf.yield %n : !amx.tile<16x16xf32>
  }
  amx.tile_store %c[%c0, %c0], %r : memref<16x16xf32>, !amx.tile<16x16xf32>
  return
}

// A function without tiles is left alone.
// CHECK-LABEL: func.func @none
//  CHECK-NEXT: return
func.func @none() {
  return
}
