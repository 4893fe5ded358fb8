// RUN: kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A schedule round-trips with every field.
// CHECK-LABEL: func.func @valid
// CHECK: kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "contraction", vector_bits = 512, tile_m = 64, tile_n = 256, tile_k = 256, reg_m = 8, reg_n = 32, reg_k = 1, pack_row_bytes = 8192, pack_a_row_bytes = 0, pack_min_reuse = 4, pack_a_min_reuse = 2, threads = 8, min_parallel_work = 2097152, block_bytes = 0, accumulators = 0>
func.func @valid(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul {kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "contraction", vector_bits = 512, tile_m = 64, tile_n = 256, tile_k = 256, reg_m = 8, reg_n = 32, reg_k = 1, pack_row_bytes = 8192, pack_a_row_bytes = 0, pack_min_reuse = 4, pack_a_min_reuse = 2, threads = 8, min_parallel_work = 2097152, block_bytes = 0, accumulators = 0>}
    ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

func.func @unknown_strategy() attributes {
  // expected-error @+1 {{unknown strategy 'winograd' (known: contraction, im2col, blocked_im2col, im2col_transposed, winograd_f4, winograd_f2, packed_weights, direct, depthwise, rows, scalar)}}
  s = #kiln_kernel.cpu_schedule<strategy = "winograd", vector_bits = 256, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 0, min_parallel_work = 0, block_bytes = 0, accumulators = 0>
} {
  return
}

// -----

func.func @missing_tiles() attributes {
  // expected-error @+1 {{strategy 'im2col' needs reg_m > 0}}
  s = #kiln_kernel.cpu_schedule<strategy = "im2col", vector_bits = 256, tile_m = 48, tile_n = 128, tile_k = 256, reg_m = 0, reg_n = 16, reg_k = 1, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 0, min_parallel_work = 0, block_bytes = 0, accumulators = 0>
} {
  return
}

// -----

func.func @negative() attributes {
  // expected-error @+1 {{threads must be >= 0, not -1}}
  s = #kiln_kernel.cpu_schedule<strategy = "rows", vector_bits = 256, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = -1, min_parallel_work = 0, block_bytes = 0, accumulators = 0>
} {
  return
}

// -----

func.func @vector_bits() attributes {
  // expected-error @+1 {{vector_bits must be 0 or a power of two >= 64, not 96}}
  s = #kiln_kernel.cpu_schedule<strategy = "rows", vector_bits = 96, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 0, min_parallel_work = 0, block_bytes = 0, accumulators = 0>
} {
  return
}

// -----

// loop_order may be left out (0, the kernel's default order) and is printed
// only when set.
// CHECK-LABEL: func.func @rows_outer
// CHECK: block_bytes = 0, accumulators = 0, loop_order = 2>
func.func @rows_outer(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul {kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "contraction", vector_bits = 512, tile_m = 64, tile_n = 256, tile_k = 256, reg_m = 8, reg_n = 32, reg_k = 1, pack_row_bytes = 8192, pack_a_row_bytes = 0, pack_min_reuse = 4, pack_a_min_reuse = 2, threads = 8, min_parallel_work = 2097152, block_bytes = 0, accumulators = 0, loop_order = 2>}
    ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

func.func @bad_loop_order() attributes {
  // expected-error @+1 {{loop_order must be 0, 1 (columns outer) or 2 (rows outer), not 3}}
  s = #kiln_kernel.cpu_schedule<strategy = "contraction", vector_bits = 256, tile_m = 48, tile_n = 128, tile_k = 256, reg_m = 6, reg_n = 16, reg_k = 1, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 0, min_parallel_work = 0, block_bytes = 0, accumulators = 0, loop_order = 3>
} {
  return
}

// -----

func.func @blocked_without_block() attributes {
  // expected-error @+1 {{strategy 'blocked_im2col' needs block_bytes > 0}}
  s = #kiln_kernel.cpu_schedule<strategy = "blocked_im2col", vector_bits = 256, tile_m = 48, tile_n = 128, tile_k = 256, reg_m = 6, reg_n = 16, reg_k = 1, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 16, min_parallel_work = 0, block_bytes = 0, accumulators = 0>
} {
  return
}

// -----

func.func @depthwise_scalar() attributes {
  // expected-error @+1 {{strategy 'depthwise' needs vector_bits >= 128}}
  s = #kiln_kernel.cpu_schedule<strategy = "depthwise", vector_bits = 0, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 0, min_parallel_work = 0, block_bytes = 0, accumulators = 8>
} {
  return
}
