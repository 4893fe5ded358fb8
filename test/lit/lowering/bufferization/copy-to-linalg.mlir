// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-copy-to-linalg))' | FileCheck %s

// CHECK-LABEL: func.func @strided
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%{{.*}} : memref<4x2xf32, strided<[8, 1]>>) outs(%{{.*}} : memref<4x2xf32>)
func.func @strided(%src: memref<4x8xf32>, %dst: memref<4x2xf32>) {
  %v = memref.subview %src[0, 0] [4, 2] [1, 1] : memref<4x8xf32> to memref<4x2xf32, strided<[8, 1]>>
  memref.copy %v, %dst : memref<4x2xf32, strided<[8, 1]>> to memref<4x2xf32>
  return
}
