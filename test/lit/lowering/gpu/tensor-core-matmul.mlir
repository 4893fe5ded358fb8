// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-tensor-core-matmul))' | FileCheck %s

// A 128x96 (K = 64) product: 2x2 blocks of 128 threads, each warp a 32x32
// tile as 2x2 accumulators starting from C, stepping K by 8.
// CHECK-LABEL: func.func @mm(
// CHECK-NOT:   linalg.matmul
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 96 : index} : memref<128x96xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK:       scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c8 iter_args(
// CHECK-COUNT-2: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 64 : index} : memref<128x64xf32> -> !gpu.mma_matrix<16x8xf32, "AOp">
// CHECK-COUNT-2: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 96 : index} : memref<64x96xf32> -> !gpu.mma_matrix<8x16xf32, "BOp">
// CHECK-COUNT-4: gpu.subgroup_mma_compute
// CHECK:       scf.if
// CHECK-NEXT:    gpu.subgroup_mma_store_matrix
func.func @mm(%a: memref<128x64xf32>, %b: memref<64x96xf32>, %c: memref<128x96xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x96xf32>) outs(%c : memref<128x96xf32>)
  return
}

// Batched: each block's z index takes one matrix of the batch.
// CHECK-LABEL: func.func @bmm(
// CHECK:       gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:.*]]) in ({{.*}} = %c3{{.*}})
// CHECK:       memref.subview %{{.*}}[%[[BZ]], 0, 0] [1, 32, 16] [1, 1, 1]
func.func @bmm(%a: memref<3x32x16xf32>, %b: memref<3x16x48xf32>, %c: memref<3x32x48xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x32x16xf32>, memref<3x16x48xf32>) outs(%c : memref<3x32x48xf32>)
  return
}

// Shapes off the 16x16x8 grid, f16 and tensors stay as they are.
// CHECK-LABEL: func.func @ragged(
// CHECK:       linalg.matmul
func.func @ragged(%a: memref<100x60xf32>, %b: memref<60x90xf32>, %c: memref<100x90xf32>) {
  linalg.matmul ins(%a, %b : memref<100x60xf32>, memref<60x90xf32>) outs(%c : memref<100x90xf32>)
  return
}
