// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-map-to-gpu))' | FileCheck %s

// A 2-D nest becomes one launch over its linearized iterations: 256
// threads a block, the innermost loop the fastest-varying index, threads
// past the trip count idle.
// CHECK-LABEL: func.func @nest(
func.func @nest(%a: memref<?x300xf32>, %b: memref<?x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  %n = memref.dim %a, %c0 : memref<?x300xf32>
  // CHECK:      arith.muli
  // CHECK:      %[[TOTAL:.*]] = arith.muli
  // CHECK:      %[[BLOCKS:.*]] = arith.ceildivui %[[TOTAL]], %c256
  // CHECK:      gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[BLOCKS]], {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[BDX:.*]] = %c256
  // CHECK:        %[[ID:.*]] = arith.addi %{{.*}}, %[[TX]]
  // CHECK:        %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[TOTAL]]
  // CHECK:        scf.if %[[IN]] {
  // CHECK:          %[[J:.*]] = arith.remui %[[ID]], %{{.*}}
  // CHECK:          %[[I:.*]] = arith.divui %[[ID]], %{{.*}}
  // CHECK:          memref.load %{{.*}}[%{{.*}}, %{{.*}}]
  // CHECK:          memref.store
  // CHECK:        gpu.terminator
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c300) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<?x300xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %b[%i, %j] : memref<?x300xf32>
  }
  return
}

// A rank-0 op (load, arithmetic, store) runs in a one-thread kernel; a small
// static nest gets a block of its own size; a scalar load only a kernel uses
// moves into it. (Function arguments are the caller's host buffers, which
// the host reads; device buffers are gpu.alloc'ed.)
// CHECK-LABEL: func.func @scalar(
func.func @scalar() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = gpu.alloc () : memref<f32>
  %b = gpu.alloc () : memref<f32>
  %c = gpu.alloc () : memref<8xf32>
  // CHECK:      gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
  // CHECK-NEXT:   memref.load
  // CHECK-NEXT:   arith.mulf
  // CHECK-NEXT:   memref.store
  // CHECK-NEXT:   gpu.terminator
  %v = memref.load %a[] : memref<f32>
  %w = arith.mulf %v, %v : f32
  memref.store %w, %b[] : memref<f32>
  // CHECK:      gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c8
  // CHECK:        scf.if
  // CHECK:          %[[S:.*]] = memref.load %{{.*}}[] : memref<f32>
  // CHECK:          memref.store %[[S]]
  %s = memref.load %b[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %s, %c[%i] : memref<8xf32>
  }
  return
}
