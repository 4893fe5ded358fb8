// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-split-ragged-matmul))' | FileCheck %s

// 100x90 (K = 60): the aligned 96x80 block with K = 56 for the tensor
// cores, then K's last 4 onto it, the last 10 columns, the last 4 rows.
// CHECK-LABEL: func.func @ragged(
// CHECK-NOT:   linalg.matmul ins(%arg0, %arg1
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : memref<96x56xf32, strided<[60, 1]>>, memref<56x80xf32, strided<[90, 1]>>) outs(%{{.*}} : memref<96x80xf32, strided<[90, 1]>>)
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : memref<96x4xf32, strided<[60, 1], offset: 56>>, memref<4x80xf32, strided<[90, 1], offset: 5040>>) outs(%{{.*}} : memref<96x80xf32, strided<[90, 1]>>)
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : memref<100x60xf32, strided<[60, 1]>>, memref<60x10xf32, strided<[90, 1], offset: 80>>) outs(%{{.*}} : memref<100x10xf32, strided<[90, 1], offset: 80>>)
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x60xf32, strided<[60, 1], offset: 5760>>, memref<60x80xf32, strided<[90, 1]>>) outs(%{{.*}} : memref<4x80xf32, strided<[90, 1], offset: 8640>>)
func.func @ragged(%a: memref<100x60xf32>, %b: memref<60x90xf32>, %c: memref<100x90xf32>) {
  linalg.matmul ins(%a, %b : memref<100x60xf32>, memref<60x90xf32>) outs(%c : memref<100x90xf32>)
  return
}

// Aligned products, and products too small for one tile, stay whole.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT:   linalg.matmul
func.func @kept(%a: memref<32x16xf32>, %b: memref<16x48xf32>, %c: memref<32x48xf32>,
                %x: memref<8x8xf32>, %y: memref<8x8xf32>, %z: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x48xf32>) outs(%c : memref<32x48xf32>)
  linalg.matmul ins(%x, %y : memref<8x8xf32>, memref<8x8xf32>) outs(%z : memref<8x8xf32>)
  return
}
