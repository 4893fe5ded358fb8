// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-device-memory))' | FileCheck %s

// Inputs get a device copy filled from the caller's buffer; outputs a device
// buffer copied back before the return; the arena a device block, copied
// neither way; a weight its device copy from the launcher, once; host
// buffers become device buffers; a scalar of an input is read on the host.

memref.global "private" constant @w : memref<4x8xf32> = dense<1.0>

// CHECK-LABEL: func.func @kiln_entry(
// CHECK-SAME:    %[[X:.*]]: memref<4x8xf32> {kiln.gpu.copy_in}, %[[K:.*]]: memref<i64> {kiln.gpu.copy_in}, %[[Y:.*]]: memref<4x8xf32>, %[[ARENA:.*]]: memref<?xi8> {kiln.arena})
func.func @kiln_entry(%x: memref<4x8xf32> {kiln.gpu.copy_in}, %k: memref<i64> {kiln.gpu.copy_in},
                      %y: memref<4x8xf32>, %arena: memref<?xi8> {kiln.arena}) {
  // CHECK:      %[[HOST_W:.*]] = memref.get_global @w : memref<4x8xf32>
  // CHECK:      %[[FLAT:.*]] = memref.reinterpret_cast %[[HOST_W]] to offset: [0], sizes: [32], strides: [1]
  // CHECK:      %[[DYN:.*]] = memref.cast %[[FLAT]] : memref<32xf32> to memref<?xf32>
  // CHECK:      %[[DEV_FLAT:.*]] = call @kiln_gpu_constant_f32(%[[DYN]], %c4_i64)
  // CHECK:      %[[DEV_W:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [4, 8], strides: [8, 1]
  // CHECK:      %[[DX:.*]] = gpu.alloc () : memref<4x8xf32>
  // CHECK-NEXT: gpu.memcpy %[[DX]], %[[X]]
  // CHECK:      %[[DK:.*]] = gpu.alloc () : memref<i64>
  // CHECK-NEXT: gpu.memcpy %[[DK]], %[[K]]
  // CHECK:      %[[DY:.*]] = gpu.alloc () : memref<4x8xf32>
  // CHECK-NOT:  gpu.memcpy %[[DY]]
  // CHECK:      %[[N:.*]] = memref.dim %[[ARENA]]
  // CHECK:      %[[DA:.*]] = gpu.alloc (%[[N]]) : memref<?xi8>
  // CHECK-NOT:  gpu.memcpy
  // CHECK:      memref.load %[[K]][]
  %kk = memref.load %k[] : memref<i64>
  // CHECK:      %[[T:.*]] = gpu.alloc () : memref<4x8xf32>
  %t = memref.alloc() : memref<4x8xf32>
  %w = memref.get_global @w : memref<4x8xf32>
  // CHECK:      linalg.add ins(%[[DX]], %[[DEV_W]] : {{.*}}) outs(%[[T]] : {{.*}})
  linalg.add ins(%x, %w : memref<4x8xf32>, memref<4x8xf32>) outs(%t : memref<4x8xf32>)
  // CHECK:      linalg.copy ins(%[[T]] : {{.*}}) outs(%[[DY]] : {{.*}})
  linalg.copy ins(%t : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  // CHECK:      gpu.dealloc %[[T]]
  memref.dealloc %t : memref<4x8xf32>
  // CHECK:      gpu.memcpy %[[Y]], %[[DY]]
  // CHECK-NOT:  gpu.memcpy
  // CHECK:      gpu.dealloc %[[DX]]
  // CHECK:      gpu.dealloc %[[DA]]
  // CHECK-NEXT: return
  return
}
// CHECK: func.func private @kiln_gpu_constant_f32(memref<?xf32>, i64) -> memref<?xf32> attributes {llvm.emit_c_interface}
