// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-block-reductions))' | FileCheck %s

// A row maximum over 1000 elements: one block per row (6), 256 threads each
// folding a strided share from the identity (-inf), gpu.all_reduce over the
// block, thread 0 combining with the output's prior value.
// CHECK-LABEL: func.func @row_max(
// CHECK:       gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS:.*]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[P:.*]] = scf.for %[[K:.*]] = %[[T]] to %c1000 step %c256{{.*}} iter_args(%[[ACC:.*]] = %[[NEG_INF]])
// CHECK:           %[[V:.*]] = memref.load
// CHECK:           arith.maximumf %[[ACC]], %[[V]]
// CHECK:         %[[R:.*]] = gpu.all_reduce maximumf %[[P]] uniform
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK:         scf.if %[[FIRST]] {
// CHECK:           %[[OLD:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<6xf32>
// CHECK:           %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[R]]
// CHECK:           memref.store %[[NEW]]
func.func @row_max(%x: memref<6x1000xf32>, %o: memref<6xf32>) {
  linalg.reduce ins(%x : memref<6x1000xf32>) outs(%o : memref<6xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %m = arith.maximumf %in, %init : f32
      linalg.yield %m : f32
    }
  return
}

// The value folded may be computed from several inputs (softmax's sum of
// exp(x - max)); the reduction dim need not be the last.
// CHECK-LABEL: func.func @sum_exp(
// CHECK:       scf.for
// CHECK:         arith.subf
// CHECK:         math.exp
// CHECK:         arith.addf
// CHECK:       gpu.all_reduce add
func.func @sum_exp(%x: memref<512x4xf32>, %m: memref<4xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (c)>, affine_map<(r, c) -> (c)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x, %m : memref<512x4xf32>, memref<4xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  return
}

// Short reductions, products and bodies reading indices keep one thread
// per output.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:   gpu.launch
// CHECK:       linalg.reduce
// CHECK:       linalg.matmul
func.func @kept(%x: memref<6x64xf32>, %o: memref<6xf32>, %a: memref<4x512xf32>, %b: memref<512x4xf32>, %c: memref<4x4xf32>) {
  linalg.reduce ins(%x : memref<6x64xf32>) outs(%o : memref<6xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %m = arith.addf %in, %init : f32
      linalg.yield %m : f32
    }
  linalg.matmul ins(%a, %b : memref<4x512xf32>, memref<512x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
