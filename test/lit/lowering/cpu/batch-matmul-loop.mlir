// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s

// A batched product (attention's scores) becomes a loop over the batch of
// 2-D products that keep its contraction schedule (the register kernel
// takes one M, N and K dim).
// CHECK-LABEL: func.func @scores
//   CHECK-NOT: linalg.batch_matmul
//       CHECK: scf.forall (%[[I:.*]]) in (12) shared_outs(%[[ACC:.*]] = %{{.*}}) -> (tensor<12x197x197xf32>)
//   CHECK-DAG:   tensor.extract_slice %{{.*}}[%[[I]], 0, 0] [1, 197, 64] [1, 1, 1] : tensor<12x197x64xf32> to tensor<197x64xf32>
//   CHECK-DAG:   tensor.extract_slice %{{.*}}[%[[I]], 0, 0] [1, 64, 197] [1, 1, 1] : tensor<12x64x197xf32> to tensor<64x197xf32>
//       CHECK:   linalg.matmul {{.*}}kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "contraction"{{.*}} ins({{.*}} : tensor<197x64xf32>, tensor<64x197xf32>) outs({{.*}} : tensor<197x197xf32>)
//       CHECK:   tensor.parallel_insert_slice {{.*}} into %[[ACC]][%[[I]], 0, 0] [1, 197, 197]
func.func @scores(%q: tensor<12x197x64xf32>, %k: tensor<12x64x197xf32>, %o: tensor<12x197x197xf32>) -> tensor<12x197x197xf32> {
  %r = linalg.batch_matmul ins(%q, %k : tensor<12x197x64xf32>, tensor<12x64x197xf32>) outs(%o : tensor<12x197x197xf32>) -> tensor<12x197x197xf32>
  return %r : tensor<12x197x197xf32>
}

// -----

// Run-time sizes keep the batched op (and its scalar schedule).
// CHECK-LABEL: func.func @dynamic
//       CHECK: linalg.batch_matmul
func.func @dynamic(%a: tensor<?x8x16xf32>, %b: tensor<?x16x8xf32>, %o: tensor<?x8x8xf32>) -> tensor<?x8x8xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x8x16xf32>, tensor<?x16x8xf32>) outs(%o : tensor<?x8x8xf32>) -> tensor<?x8x8xf32>
  return %r : tensor<?x8x8xf32>
}
