// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 tile-m=8 tile-k=32 cache-bytes=4096},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 tile-m=8 tile-k=32 cache-bytes=4096 packed-weights=0},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s --check-prefix=OFF

// Constant weights beyond half the cache: packed at compile time in panels
// of one register tile's 16 columns ([N / 16][K][16]); per K block (32,
// then the 16 left), one forall over the whole 8-row blocks and panels and
// one over the 4 rows left, each product static and scheduled for one
// panel with no packing and no threads of its own.
// CHECK-LABEL: func.func @mlp
//       CHECK: %[[P:.*]] = arith.constant dense<1.500000e+00> : tensor<4x48x16xf32>
//       CHECK: %[[F0:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) in (2, 4) shared_outs(%[[ACC:.*]] = %{{.*}})
//       CHECK:   tensor.extract_slice %{{.*}}[%{{.*}}, 0] [8, 32] [1, 1] : tensor<20x48xf32> to tensor<8x32xf32>
//       CHECK:   tensor.extract_slice %[[P]][%[[J]], 0, 0] [1, 32, 16] [1, 1, 1] : tensor<4x48x16xf32> to tensor<32x16xf32>
//       CHECK:   linalg.matmul {kiln.op_id = "mlp#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "contraction", vector_bits = 256, tile_m = 8, tile_n = 16, tile_k = 32, reg_m = 6, reg_n = 16, reg_k = 1, pack_row_bytes = 0, pack_a_row_bytes = 0, {{.*}}threads = 0,
//  CHECK-SAME:     outs(%{{.*}} : tensor<8x16xf32>)
//       CHECK: %[[F1:.*]] = scf.forall {{.*}} in (1, 4) shared_outs(%{{.*}} = %[[F0]])
//       CHECK:   linalg.matmul {{.*}}tile_m = 4, tile_n = 16, tile_k = 32,
//       CHECK: %[[F2:.*]] = scf.forall {{.*}} in (2, 4) shared_outs(%{{.*}} = %[[F1]])
//       CHECK:   tensor.extract_slice %[[P]][%{{.*}}, 32, 0] [1, 16, 16] [1, 1, 1] : tensor<4x48x16xf32> to tensor<16x16xf32>
//       CHECK: %[[F3:.*]] = scf.forall {{.*}} in (1, 4) shared_outs(%{{.*}} = %[[F2]])
//       CHECK: return %[[F3]]
// OFF-LABEL: func.func @mlp
//       OFF: linalg.matmul {{.*}}strategy = "contraction"{{.*}} ins({{.*}} : tensor<20x48xf32>, tensor<48x64xf32>)
func.func @mlp(%x: tensor<20x48xf32>, %o: tensor<20x64xf32>) -> tensor<20x64xf32> {
  %w = arith.constant dense<1.5> : tensor<48x64xf32>
  %r = linalg.matmul ins(%x, %w : tensor<20x48xf32>, tensor<48x64xf32>) outs(%o : tensor<20x64xf32>) -> tensor<20x64xf32> loc("mlp")
  return %r : tensor<20x64xf32>
}

// -----

// Three whole K blocks: a loop over them, the row blocks and panels inside.
// CHECK-LABEL: func.func @k_loop
//       CHECK: scf.for %[[K:.*]] = %c0 to %c96 step %c32 iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<16x32xf32>)
//       CHECK:   scf.forall {{.*}} in (2, 2) shared_outs(%{{.*}} = %[[A]])
//       CHECK:     tensor.extract_slice %{{.*}}[%{{.*}}, %[[K]]] [8, 32] [1, 1] : tensor<16x96xf32> to tensor<8x32xf32>
//       CHECK:     linalg.matmul
//       CHECK:   scf.yield
func.func @k_loop(%x: tensor<16x96xf32>, %o: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %w = arith.constant dense<0.5> : tensor<96x32xf32>
  %r = linalg.matmul ins(%x, %w : tensor<16x96xf32>, tensor<96x32xf32>) outs(%o : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Weights within half the cache, fed at run time, or with a partial panel
// of columns under 32 register tiles of rows (192 at reg_m 6) or more keep
// the contraction kernel.
// CHECK-LABEL: func.func @kept
//   CHECK-NOT: scf.forall
//       CHECK: linalg.matmul {{.*}}strategy = "contraction"{{.*}} tensor<16x32xf32>
//       CHECK: linalg.matmul {{.*}}strategy = "contraction"{{.*}} tensor<96x32xf32>
//       CHECK: linalg.matmul {{.*}}strategy = "contraction"{{.*}} tensor<96x40xf32>
func.func @kept(%x: tensor<16x16xf32>, %x2: tensor<16x96xf32>, %w2: tensor<96x32xf32>, %o: tensor<16x32xf32>, %x3: tensor<192x96xf32>, %o3: tensor<192x40xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<192x40xf32>) {
  %w = arith.constant dense<0.5> : tensor<16x32xf32>
  %w3 = arith.constant dense<0.5> : tensor<96x40xf32>
  %r = linalg.matmul ins(%x, %w : tensor<16x16xf32>, tensor<16x32xf32>) outs(%o : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r2 = linalg.matmul ins(%x2, %w2 : tensor<16x96xf32>, tensor<96x32xf32>) outs(%o : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r3 = linalg.matmul ins(%x3, %w3 : tensor<192x96xf32>, tensor<96x40xf32>) outs(%o3 : tensor<192x40xf32>) -> tensor<192x40xf32>
  return %r, %r2, %r3 : tensor<16x32xf32>, tensor<16x32xf32>, tensor<192x40xf32>
}

// -----

// Given the strategy (a schedule file, the tuner), B fed at run time is
// packed by a copy: the whole panels as a transpose of [K][N/16][16], the
// last panel's 8 columns inserted; that panel runs as a product of its own,
// 8 columns wide.
// CHECK-LABEL: func.func @runtime_b
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<3x32x16xf32>
//       CHECK: %[[W:.*]] = tensor.extract_slice %[[B:.*]][0, 0] [32, 32] [1, 1] : tensor<32x40xf32> to tensor<32x32xf32>
//       CHECK: %[[R:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0], [1, 2]] output_shape [32, 2, 16]
//       CHECK: %[[S:.*]] = tensor.extract_slice %[[E]][0, 0, 0] [2, 32, 16] [1, 1, 1]
//       CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<32x2x16xf32>) outs(%[[S]] : tensor<2x32x16xf32>)
//       CHECK: %[[I:.*]] = tensor.insert_slice %[[T]] into %[[E]][0, 0, 0] [2, 32, 16] [1, 1, 1]
//       CHECK: %[[L:.*]] = tensor.extract_slice %[[B]][0, 32] [32, 8] [1, 1] : tensor<32x40xf32> to tensor<32x8xf32>
//       CHECK: %[[P:.*]] = tensor.insert_slice %[[L]] into %[[I]][2, 0, 0] [1, 32, 8] [1, 1, 1]
//       CHECK: scf.forall {{.*}} in (2, 2)
//       CHECK:   tensor.extract_slice %[[P]][%{{.*}}, 0, 0] [1, 32, 16] [1, 1, 1] : tensor<3x32x16xf32> to tensor<32x16xf32>
//       CHECK: scf.forall {{.*}} in (2, 1)
//       CHECK:   tensor.extract_slice %[[P]][%{{.*}}, 0, 0] [1, 32, 8] [1, 1, 1] : tensor<3x32x16xf32> to tensor<32x8xf32>
//       CHECK:   linalg.matmul {{.*}} outs(%{{.*}} : tensor<8x8xf32>)
func.func @runtime_b(%x: tensor<16x32xf32>, %b: tensor<32x40xf32>, %o: tensor<16x40xf32>) -> tensor<16x40xf32> {
  %r = linalg.matmul {kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "packed_weights", vector_bits = 256, tile_m = 8, tile_n = 16, tile_k = 32, reg_m = 6, reg_n = 16, reg_k = 1, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 16, pack_a_min_reuse = 2, threads = 8, min_parallel_work = 0, block_bytes = 0, accumulators = 0>} ins(%x, %b : tensor<16x32xf32>, tensor<32x40xf32>) outs(%o : tensor<16x40xf32>) -> tensor<16x40xf32>
  return %r : tensor<16x40xf32>
}
