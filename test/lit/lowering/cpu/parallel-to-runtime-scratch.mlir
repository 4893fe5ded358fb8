// RUN: kiln-opt %s --kiln-cpu-parallel-to-runtime | FileCheck %s

// A static alloca at the top of the forall body (a packed GEMM panel) is
// allocated once per outlined call, before the loop over the call's
// iterations; inside it, each iteration would grow the stack.
// CHECK-LABEL: func.func private @g_par0(
//       CHECK:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x8xf32>
//       CHECK:   scf.for
//   CHECK-NOT:     memref.alloca
//       CHECK:     memref.store %{{.*}}, %[[BUF]]
func.func @g(%x: f32, %n: index) {
  scf.forall (%i) in (%n) {
    %buf = memref.alloca() {alignment = 64 : i64} : memref<16x8xf32>
    %c0 = arith.constant 0 : index
    memref.store %x, %buf[%c0, %c0] : memref<16x8xf32>
  }
  return
}
