// RUN: kiln-opt %s --kiln-gpu-emulate-on-host | FileCheck %s

// A launch becomes loops over blocks then threads (x innermost) running its
// body; device buffers become host buffers and a weight upload returns the
// weight.
// CHECK-LABEL: func.func @f(
// CHECK-NOT:   gpu.
// CHECK:       %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK:       memref.copy %{{.*}}, %[[BUF]]
// CHECK:       scf.for %{{.*}} = %{{.*}} to %c1
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c1
// CHECK:           scf.for %[[B:.*]] = %{{.*}} to %c2
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 scf.for %[[T:.*]] = %{{.*}} to %c4
// CHECK:                   %[[I:.*]] = arith.addi %{{.*}}, %[[T]]
// CHECK:                   memref.load %[[W:.*]][%[[I]]]
// CHECK:                   memref.store %{{.*}}, %[[BUF]][%[[I]]]
// CHECK:       memref.dealloc %[[BUF]]
// CHECK-NOT:   kiln_gpu_constant
memref.global "private" constant @w : memref<8xf32> = dense<2.0>
func.func private @kiln_gpu_constant_f32(memref<?xf32>, i64) -> memref<?xf32> attributes {llvm.emit_c_interface}
func.func @f(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c4_i64 = arith.constant 4 : i64
  %g = memref.get_global @w : memref<8xf32>
  %gd = memref.cast %g : memref<8xf32> to memref<?xf32>
  %wd = call @kiln_gpu_constant_f32(%gd, %c4_i64) : (memref<?xf32>, i64) -> memref<?xf32>
  %d = gpu.alloc () : memref<8xf32>
  gpu.memcpy %d, %x : memref<8xf32>, memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %wd[%i] : memref<?xf32>
    memref.store %v, %d[%i] : memref<8xf32>
    gpu.terminator
  }
  gpu.memcpy %x, %d : memref<8xf32>, memref<8xf32>
  gpu.dealloc %d : memref<8xf32>
  return
}
