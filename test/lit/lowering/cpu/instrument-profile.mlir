// RUN: kiln-opt %s --kiln-cpu-parallel-to-runtime=mark-kernels --kiln-cpu-instrument-profile | FileCheck %s
// RUN: kiln-opt %s --kiln-cpu-parallel-to-runtime | FileCheck %s --check-prefix=PLAIN

// A serial nest and a parallel loop become kernels 0 and 1; each call is
// bracketed by the hook (called only when present), and the module lists the
// kernels with their nodes. The marks are gone.
// CHECK-LABEL: module attributes {kiln.profile.kernels = [
//  CHECK-SAME:   {node = "init", symbol = "f_init_ser0"}, {node = "scale", symbol = "f_scale_par1"}]}
// CHECK-LABEL: func.func @f(
//       CHECK:   %[[HOOK:.*]] = llvm.mlir.addressof @kiln_rt_profile_event
//       CHECK:   %[[HAS:.*]] = llvm.icmp "ne" %[[HOOK]]
//       CHECK:   scf.if %[[HAS]] {
//       CHECK:     %[[K0:.*]] = llvm.mlir.constant(0 : i64)
//       CHECK:     %[[BEGIN:.*]] = llvm.mlir.constant(0 : i64)
//       CHECK:     llvm.call @kiln_rt_profile_event(%[[K0]], %[[BEGIN]])
//       CHECK:   call @f_init_ser0
//   CHECK-NOT:     kiln.kernel
//       CHECK:     %[[END:.*]] = llvm.mlir.constant(1 : i64)
//       CHECK:     llvm.call @kiln_rt_profile_event(%{{.*}}, %[[END]])
//       CHECK:     %[[K1:.*]] = llvm.mlir.constant(1 : i64)
//       CHECK:     llvm.call @kiln_rt_profile_event(%[[K1]], %{{.*}})
//       CHECK:   llvm.call @kiln_parallel_dispatch
//       CHECK:     llvm.call @kiln_rt_profile_event
//       CHECK: llvm.func extern_weak @kiln_rt_profile_event(i64, i64)

// Without mark-kernels nothing is marked.
// PLAIN-NOT: kiln.kernel
func.func @f(%m: memref<64xf32>, %x: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %x, %m[%i] : memref<64xf32>
  } loc("init")
  scf.forall (%i) in (%n) {
    %v = memref.load %m[%i] : memref<64xf32>
    %s = arith.mulf %v, %x : f32
    memref.store %s, %m[%i] : memref<64xf32>
  } loc("scale")
  return
}
