// Selection alone: each op's schedule attribute for a target description,
// without applying it.
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512}))' -split-input-file | FileCheck %s --check-prefix=V512
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256 parallel=0}))' -split-input-file | FileCheck %s --check-prefix=V256
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=0}))' -split-input-file | FileCheck %s --check-prefix=SCALAR

// Every function gets the default for ops without their own: vector rows,
// 64 chunks of threads above half min_parallel_work iterations.
// V512-LABEL: func.func @matmul
// V512-SAME: kiln.default_schedule = #kiln_kernel.cpu_schedule<strategy = "rows", vector_bits = 512, {{.*}}threads = 64, min_parallel_work = 65536,
// A contraction: 8 x 32 register tile at 512 bits (two zmm per row), cache
// blocks of 32 register tiles (down to 8 while the 8 thread chunks need the
// rows: 64 rows here; 192 at 256 bits without threads), K blocks of 256, B
// panels with rows 512 bytes apart packed once 16 register tiles read them;
// 8 thread chunks once the multiply-adds reach 16 lanes x 131072 / 4 (one
// row block here, so the columns make the chunks: three of 32); register
// tiles row by row for a K of 160 or less.
// V512: linalg.matmul {kiln.op_id = "mm0#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "contraction", vector_bits = 512, tile_m = 64, tile_n = 32, tile_k = 256, reg_m = 8, reg_n = 32, reg_k = 1, pack_row_bytes = 512, pack_a_row_bytes = 0, pack_min_reuse = 16, pack_a_min_reuse = 2, threads = 8, min_parallel_work = 524288, block_bytes = 0, accumulators = 0, loop_order = 2>}
// 6 x 16 at 256 bits; no threads when parallel is off.
// V256: func.func @matmul{{.*}}threads = 0
// V256: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 256, tile_m = 192, tile_n = 128, tile_k = 256, reg_m = 6, reg_n = 16, {{.*}}threads = 0,
// Without vectors a register tile is 6 x 8: one whole row block of 48, so
// the columns make the thread chunks (six blocks of 16).
// SCALAR: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 0, tile_m = 30, tile_n = 48, tile_k = 256, reg_m = 6, reg_n = 8,
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>, %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32> loc("mm0")
  return %r : tensor<64x96xf32>
}

// -----

// A 1x1 projection to 96 channels at 14x14 (96 x 196 x 576): row blocks of
// 64 and 32 would leave the 32 rows past the whole block to one thread;
// two equal blocks of 48 make the chunks, and the columns stay in one block
// (on two threads 102 -> 82 us, where six column blocks of 32 took 102).
// With two whole row blocks (128 channels) the columns stay in one block.
// With K = 576, register tiles column by column.
// V512-LABEL: func.func @projection
// V512: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 512, tile_m = 48, tile_n = 256, tile_k = 256,{{.*}}loop_order = 1>
// V512-LABEL: func.func @projection128
// V512: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 512, tile_m = 64, tile_n = 256, tile_k = 256,
func.func @projection(%a: tensor<96x576xf32>, %b: tensor<576x196xf32>, %c: tensor<96x196xf32>) -> tensor<96x196xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<96x576xf32>, tensor<576x196xf32>) outs(%c : tensor<96x196xf32>) -> tensor<96x196xf32>
  return %r : tensor<96x196xf32>
}

func.func @projection128(%a: tensor<128x576xf32>, %b: tensor<576x196xf32>, %c: tensor<128x196xf32>) -> tensor<128x196xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x576xf32>, tensor<576x196xf32>) outs(%c : tensor<128x196xf32>) -> tensor<128x196xf32>
  return %r : tensor<128x196xf32>
}

// A 3x3 convolution's product at 17x17 (200 x 289 x 1800): blocks of 40
// rows (5 register tiles, dividing 25) and 96 columns (3, dividing 9) leave
// only the last register tile's column past the whole blocks, where 64 x
// 256 left 8 rows and 33 columns to ops of their own. With 104 rows (13
// register tiles) B (2 MB, more than the cache and twice A) is not packed
// again per row block: the rows stay whole and the columns split for the
// threads (against 64-row blocks, 1.14 -> 1.07 ms on one thread and 0.75
// -> 0.72 on two, memory flushed).
// V512-LABEL: func.func @whole_blocks
// V512: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 512, tile_m = 40, tile_n = 96, tile_k = 256,
// V512-LABEL: func.func @prime_row_tiles
// V512: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 512, tile_m = 256, tile_n = 64, tile_k = 256,
func.func @whole_blocks(%a: tensor<200x1800xf32>, %b: tensor<1800x289xf32>, %c: tensor<200x289xf32>) -> tensor<200x289xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<200x1800xf32>, tensor<1800x289xf32>) outs(%c : tensor<200x289xf32>) -> tensor<200x289xf32>
  return %r : tensor<200x289xf32>
}

func.func @prime_row_tiles(%a: tensor<104x1800xf32>, %b: tensor<1800x289xf32>, %c: tensor<104x289xf32>) -> tensor<104x289xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<104x1800xf32>, tensor<1800x289xf32>) outs(%c : tensor<104x289xf32>) -> tensor<104x289xf32>
  return %r : tensor<104x289xf32>
}

// -----

// A dynamic contraction has no register kernel.
// V512-LABEL: func.func @dynamic_matmul
// V512: linalg.matmul {{.*}}strategy = "scalar"
func.func @dynamic_matmul(%a: tensor<?x128xf32>, %b: tensor<128x96xf32>, %c: tensor<?x96xf32>) -> tensor<?x96xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x128xf32>, tensor<128x96xf32>) outs(%c : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}

// -----

// A small convolution's im2col matrix stays in cache: plain im2col.
// V512-LABEL: func.func @small_conv
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "im2col", vector_bits = 512, tile_m = 64,
func.func @small_conv(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// 64 x 3 x 3 x 56 x 56 floats (7.2 MB) is more than 4 blocks of 384 KiB:
// gathered block by block, in 16 chunks (none without threads).
// V512-LABEL: func.func @large_conv
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "blocked_im2col", {{.*}}threads = 16, min_parallel_work = {{[0-9]+}}, block_bytes = 393216,
// V256-LABEL: func.func @large_conv
// V256: linalg.conv_2d_nchw_fchw {{.*}}strategy = "blocked_im2col", {{.*}}threads = 0, min_parallel_work = {{[0-9]+}}, block_bytes = 393216,
func.func @large_conv(%x: tensor<1x64x58x58xf32>, %w: tensor<64x64x3x3xf32>, %o: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// -----

// A 5x5 convolution whose blocks would be two output rows of 28 (56
// columns of 48 x 25 floats, 269 KB; four rows pass 384 KiB): under two
// register tiles of columns a block, so the whole im2col matrix (3.8 MB).
// V512-LABEL: func.func @narrow_blocks
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "im2col",
func.func @narrow_blocks(%x: tensor<1x48x32x32xf32>, %w: tensor<48x48x5x5xf32>, %o: tensor<1x48x28x28xf32>) -> tensor<1x48x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x48x32x32xf32>, tensor<48x48x5x5xf32>) outs(%o : tensor<1x48x28x28xf32>) -> tensor<1x48x28x28xf32>
  return %r : tensor<1x48x28x28xf32>
}

// -----

// Blocks of one output row (57 columns of 380 x 9 floats, 780 KB) are
// narrower than two register tiles, but the whole matrix (44 MB) is beyond
// the shared cache: blocked. Its 9 output channels are one register tile of
// 9 rows (8 + 1 would leave a one-row rest as slow as a 4-row tile); at
// 256 bits (6 rows at most) two of 5 and 4 rather than 6 + 3.
// V512-LABEL: func.func @narrow_blocks_beyond_shared_cache
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "blocked_im2col", vector_bits = 512, tile_m = {{[0-9]+}}, tile_n = {{[0-9]+}}, tile_k = {{[0-9]+}}, reg_m = 9,
// V256-LABEL: func.func @narrow_blocks_beyond_shared_cache
// V256: linalg.conv_2d_nchw_fchw {{.*}}strategy = "blocked_im2col", vector_bits = 256, tile_m = {{[0-9]+}}, tile_n = {{[0-9]+}}, tile_k = {{[0-9]+}}, reg_m = 5,
func.func @narrow_blocks_beyond_shared_cache(%x: tensor<1x380x59x59xf32>, %w: tensor<9x380x3x3xf32>, %o: tensor<1x9x57x57xf32>) -> tensor<1x9x57x57xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x380x59x59xf32>, tensor<9x380x3x3xf32>) outs(%o : tensor<1x9x57x57xf32>) -> tensor<1x9x57x57xf32>
  return %r : tensor<1x9x57x57xf32>
}

// -----

// 707 -> 11 at 36x36: blocks of one output row (36 columns), a 33 MB matrix
// within the 32 MiB shared cache but more than 11 / 24 of it: blocked.
// 300 -> 16 at 40x40 (17 MB, less than 16 / 24 of it): the whole matrix.
// V512-LABEL: func.func @narrow_blocks_few_channels
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "blocked_im2col",
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "im2col",
func.func @narrow_blocks_few_channels(%x: tensor<1x707x38x38xf32>, %w: tensor<11x707x3x3xf32>, %o: tensor<1x11x36x36xf32>, %x2: tensor<1x300x42x42xf32>, %w2: tensor<16x300x3x3xf32>, %o2: tensor<1x16x40x40xf32>) -> (tensor<1x11x36x36xf32>, tensor<1x16x40x40xf32>) {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x707x38x38xf32>, tensor<11x707x3x3xf32>) outs(%o : tensor<1x11x36x36xf32>) -> tensor<1x11x36x36xf32>
  %r2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x2, %w2 : tensor<1x300x42x42xf32>, tensor<16x300x3x3xf32>) outs(%o2 : tensor<1x16x40x40xf32>) -> tensor<1x16x40x40xf32>
  return %r, %r2 : tensor<1x11x36x36xf32>, tensor<1x16x40x40xf32>
}

// -----

// A product of 10 rows: one register tile of 10 at 512 bits (rather than
// 8 and a 2-row rest); 24 rows stay three of 8.
// V512-LABEL: func.func @few_rows
// V512: linalg.matmul {{.*}}reg_m = 10,
// V512: linalg.matmul {{.*}}reg_m = 8,
func.func @few_rows(%a: tensor<10x512xf32>, %b: tensor<512x512xf32>, %c: tensor<10x512xf32>, %a2: tensor<24x512xf32>, %c2: tensor<24x512xf32>) -> (tensor<10x512xf32>, tensor<24x512xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<10x512xf32>, tensor<512x512xf32>) outs(%c : tensor<10x512xf32>) -> tensor<10x512xf32>
  %r2 = linalg.matmul ins(%a2, %b : tensor<24x512xf32>, tensor<512x512xf32>) outs(%c2 : tensor<24x512xf32>) -> tensor<24x512xf32>
  return %r, %r2 : tensor<10x512xf32>, tensor<24x512xf32>
}

// -----

// A 1x1 stride-1 convolution as large (256 x 56 x 56 floats, 3.2 MB) reads
// its input as the im2col matrix: blocks would only copy it.
// V512-LABEL: func.func @large_pointwise
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "im2col",
// V512-LABEL: func.func @strided_pointwise
// V512: linalg.conv_2d_nchw_fchw {{.*}}strategy = "blocked_im2col",
func.func @large_pointwise(%x: tensor<1x256x56x56xf32>, %w: tensor<64x256x1x1xf32>, %o: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x256x56x56xf32>, tensor<64x256x1x1xf32>) outs(%o : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}
// A stride-2 one gathers every other pixel: its matrix is a copy, here
// 9.6 MB, too large for 64 output channels to pay for its round trip.
func.func @strided_pointwise(%x: tensor<1x768x112x112xf32>, %w: tensor<64x768x1x1xf32>, %o: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x768x112x112xf32>, tensor<64x768x1x1xf32>) outs(%o : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// -----

// Depthwise: the vector kernel with 12 accumulators at 512 bits, 8 at 256,
// one thread chunk per (batch, channel) plane when large enough; direct
// without vector registers.
// V512-LABEL: func.func @depthwise
// V512: linalg.depthwise_conv_2d_nchw_chw {{.*}}strategy = "depthwise", vector_bits = 512, {{.*}}threads = 32, {{.*}}accumulators = 12>
// V256-LABEL: func.func @depthwise
// V256: linalg.depthwise_conv_2d_nchw_chw {{.*}}strategy = "depthwise", vector_bits = 256, {{.*}}threads = 0, {{.*}}accumulators = 8>
// SCALAR-LABEL: func.func @depthwise
// SCALAR: linalg.depthwise_conv_2d_nchw_chw {{.*}}strategy = "direct"
func.func @depthwise(%x: tensor<1x32x114x114xf32>, %w: tensor<32x3x3xf32>, %o: tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x32x114x114xf32>, tensor<32x3x3xf32>) outs(%o : tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32>
  return %r : tensor<1x32x112x112xf32>
}

// -----

// Ops that already have a schedule keep it, so the pass can run again.
// V512-LABEL: func.func @kept
// V512: linalg.matmul {kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "scalar", vector_bits = 128,
func.func @kept(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul {kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "scalar", vector_bits = 128, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 0, min_parallel_work = 0, block_bytes = 0, accumulators = 0>}
    ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A matrix-vector product (M = 1): one accumulator row of 16 vectors at
// 512 bits (8 at 256), a block of columns each, so that threads split even
// a few such rows, and the whole reduction in one pass: it is bound by
// memory, so it takes threads from as little work as an elementwise op (1M
// multiply-adds here).
// V512-LABEL: func.func @gemv
// V512: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 512, tile_m = 1, tile_n = 256, tile_k = 512, reg_m = 1, reg_n = 256, {{.*}}threads = 8, min_parallel_work = 65536,
// V256-LABEL: func.func @gemv
// V256: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 256, tile_m = 1, tile_n = 64, tile_k = 512, reg_m = 1, reg_n = 64,
func.func @gemv(%a: tensor<1x512xf32>, %b: tensor<512x2048xf32>, %c: tensor<1x2048xf32>) -> tensor<1x2048xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x512xf32>, tensor<512x2048xf32>) outs(%c : tensor<1x2048xf32>) -> tensor<1x2048xf32>
  return %r : tensor<1x2048xf32>
}

// -----

// With constant weights beyond the cache (a classifier), packed in panels
// at compile time, the last one zero-padded: 1000 columns in panels of 64
// (four accumulators), so that there are eight whole panels or more for
// the threads.
// V512-LABEL: func.func @gemv_constant
// V512: linalg.matmul {{.*}}strategy = "packed_weights", vector_bits = 512, tile_m = 1, tile_n = 64, tile_k = 1024, reg_m = 1, reg_n = 64,
func.func @gemv_constant(%a: tensor<1x1024xf32>, %c: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %b = arith.constant dense<0.5> : tensor<1024x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x1024xf32>, tensor<1024x1000xf32>) outs(%c : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}

// -----

// Fewer than two register tiles of rows (3, 15) read the packed panels as a
// matrix-vector product does, a partial last panel included; so do 16 and
// 248 rows over 1000 columns (fewer than 32 tiles of rows), while 256 rows
// over partial panels copy B's panels at run time.
// V512-LABEL: func.func @few_rows_constant
// V512: linalg.matmul {{.*}}strategy = "packed_weights"
// V512: linalg.matmul {{.*}}strategy = "packed_weights"
// V512: linalg.matmul {{.*}}strategy = "packed_weights"
// V512: linalg.matmul {{.*}}strategy = "packed_weights"
// V512: linalg.matmul {{.*}}strategy = "contraction"
func.func @few_rows_constant(%a: tensor<3x1024xf32>, %c: tensor<3x1000xf32>, %a2: tensor<15x1024xf32>, %c2: tensor<15x1000xf32>, %a3: tensor<16x1024xf32>, %c3: tensor<16x1000xf32>, %a4: tensor<248x1024xf32>, %c4: tensor<248x1000xf32>, %a5: tensor<256x1024xf32>, %c5: tensor<256x1000xf32>) -> (tensor<3x1000xf32>, tensor<15x1000xf32>, tensor<16x1000xf32>, tensor<248x1000xf32>, tensor<256x1000xf32>) {
  %b = arith.constant dense<0.5> : tensor<1024x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<3x1024xf32>, tensor<1024x1000xf32>) outs(%c : tensor<3x1000xf32>) -> tensor<3x1000xf32>
  %r2 = linalg.matmul ins(%a2, %b : tensor<15x1024xf32>, tensor<1024x1000xf32>) outs(%c2 : tensor<15x1000xf32>) -> tensor<15x1000xf32>
  %r3 = linalg.matmul ins(%a3, %b : tensor<16x1024xf32>, tensor<1024x1000xf32>) outs(%c3 : tensor<16x1000xf32>) -> tensor<16x1000xf32>
  %r4 = linalg.matmul ins(%a4, %b : tensor<248x1024xf32>, tensor<1024x1000xf32>) outs(%c4 : tensor<248x1000xf32>) -> tensor<248x1000xf32>
  %r5 = linalg.matmul ins(%a5, %b : tensor<256x1024xf32>, tensor<1024x1000xf32>) outs(%c5 : tensor<256x1000xf32>) -> tensor<256x1000xf32>
  return %r, %r2, %r3, %r4, %r5 : tensor<3x1000xf32>, tensor<15x1000xf32>, tensor<16x1000xf32>, tensor<248x1000xf32>, tensor<256x1000xf32>
}

// -----

// The pixel-row product reads its A (the image) in place, a K step's column
// a few floats of a new line: A's block of pixels x tile_k stays in L1, so
// 49 pixels take K blocks of 128; 25 pixels keep 256.
// V256-LABEL: func.func @pixel_rows_k_blocks
//       V256: strategy = "im2col_transposed", vector_bits = 256, {{.*}}tile_k = 128,
//       V256: strategy = "im2col_transposed", vector_bits = 256, {{.*}}tile_k = 256,
func.func @pixel_rows_k_blocks(%x: tensor<1x512x7x7xf32>, %o: tensor<1x64x7x7xf32>, %y: tensor<1x512x5x5xf32>, %p: tensor<1x64x5x5xf32>) -> (tensor<1x64x7x7xf32>, tensor<1x64x5x5xf32>) {
  %w = arith.constant dense<0.5> : tensor<64x512x1x1xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x512x7x7xf32>, tensor<64x512x1x1xf32>) outs(%o : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%y, %w : tensor<1x512x5x5xf32>, tensor<64x512x1x1xf32>) outs(%p : tensor<1x64x5x5xf32>) -> tensor<1x64x5x5xf32>
  return %r, %s : tensor<1x64x7x7xf32>, tensor<1x64x5x5xf32>
}

// -----

// 1000 rows in one column block: blocks of 120 rows (eight, and 40 rows
// after them) where blocks of 128 left seven and 104 rows, which two or
// four threads share unevenly.
// V512-LABEL: func.func @even_row_blocks
// V512: linalg.matmul {{.*}}strategy = "contraction", vector_bits = 512, tile_m = 120, tile_n = 256,
func.func @even_row_blocks(%a: tensor<1000x512xf32>, %b: tensor<512x169xf32>, %c: tensor<1000x169xf32>) -> tensor<1000x169xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1000x512xf32>, tensor<512x169xf32>) outs(%c : tensor<1000x169xf32>) -> tensor<1000x169xf32>
  return %r : tensor<1000x169xf32>
}

// -----

// One row block (50 rows) over too few columns for two register-tile
// blocks (57: a tile of 32 and a rest) leaves the threads nothing to share:
// the rows split in two blocks of whole tiles (24), the columns stay whole.
// Packed constant weights and B fed at run time alike; 64 columns (two
// tiles) split the columns as before, and nothing splits without threads.
// V512-LABEL: func.func @halved_rows
// V512: linalg.matmul {{.*}}strategy = "packed_weights", {{.*}}tile_m = 24, {{.*}}threads = 8
// V512: linalg.matmul {{.*}}strategy = "contraction", {{.*}}tile_m = 24, tile_n = 256,
// V512: linalg.matmul {{.*}}strategy = "contraction", {{.*}}tile_m = 64, tile_n = 32,
// V256-LABEL: func.func @halved_rows
// V256-NOT: tile_m = 24,
func.func @halved_rows(%a: tensor<50x2568xf32>, %c: tensor<50x57xf32>, %b2: tensor<2568x57xf32>, %a3: tensor<56x2568xf32>, %b3: tensor<2568x64xf32>, %c3: tensor<56x64xf32>) -> (tensor<50x57xf32>, tensor<50x57xf32>, tensor<56x64xf32>) {
  %b = arith.constant dense<0.5> : tensor<2568x57xf32>
  %r = linalg.matmul ins(%a, %b : tensor<50x2568xf32>, tensor<2568x57xf32>) outs(%c : tensor<50x57xf32>) -> tensor<50x57xf32>
  %r2 = linalg.matmul ins(%a, %b2 : tensor<50x2568xf32>, tensor<2568x57xf32>) outs(%c : tensor<50x57xf32>) -> tensor<50x57xf32>
  %r3 = linalg.matmul ins(%a3, %b3 : tensor<56x2568xf32>, tensor<2568x64xf32>) outs(%c3 : tensor<56x64xf32>) -> tensor<56x64xf32>
  return %r, %r2, %r3 : tensor<50x57xf32>, tensor<50x57xf32>, tensor<56x64xf32>
}

// -----

// A packed product of one row block whose A stays in half the cache (17 x
// 2513 floats, 171 KB) takes all of K in one block, each chunk streaming
// its panel once; with A over half the cache (64 x 4096, 1 MB) K stays in
// blocks of 256.
// V512-LABEL: func.func @packed_whole_k
// V512: linalg.matmul {{.*}}strategy = "packed_weights", {{.*}}tile_k = 2513,
// V512: linalg.matmul {{.*}}strategy = "packed_weights", {{.*}}tile_k = 256,
func.func @packed_whole_k(%a: tensor<17x2513xf32>, %c: tensor<17x2678xf32>, %a2: tensor<64x4096xf32>, %c2: tensor<64x1000xf32>) -> (tensor<17x2678xf32>, tensor<64x1000xf32>) {
  %b = arith.constant dense<0.5> : tensor<2513x2678xf32>
  %b2 = arith.constant dense<0.5> : tensor<4096x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<17x2513xf32>, tensor<2513x2678xf32>) outs(%c : tensor<17x2678xf32>) -> tensor<17x2678xf32>
  %r2 = linalg.matmul ins(%a2, %b2 : tensor<64x4096xf32>, tensor<4096x1000xf32>) outs(%c2 : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %r, %r2 : tensor<17x2678xf32>, tensor<64x1000xf32>
}

// -----

// Outputs of fewer pixels than two register tiles of columns take pixel
// rows with their channels in no whole panels (70, 48): 9 pixels, one
// pixel (a squeeze-excitation 1x1) and 49 pixels at 512 bits (under 64),
// 9 and 1 at 256 bits (under 32), where 49 keeps im2col; 64 pixels keep it
// at both widths.
// V512-LABEL: func.func @few_pixels
// V512: strategy = "im2col_transposed"
// V512: strategy = "im2col_transposed"
// V512: strategy = "im2col_transposed"
// V512: strategy = "im2col",
// V256-LABEL: func.func @few_pixels
// V256: strategy = "im2col_transposed"
// V256: strategy = "im2col_transposed"
// V256: strategy = "im2col",
// V256: strategy = "im2col",
func.func @few_pixels(%x: tensor<1x60x3x3xf32>, %o: tensor<1x70x3x3xf32>, %y: tensor<1x152x1x1xf32>, %p: tensor<1x48x1x1xf32>, %z: tensor<1x60x7x7xf32>, %q: tensor<1x70x7x7xf32>, %u: tensor<1x60x8x8xf32>, %e: tensor<1x70x8x8xf32>) -> (tensor<1x70x3x3xf32>, tensor<1x48x1x1xf32>, tensor<1x70x7x7xf32>, tensor<1x70x8x8xf32>) {
  %w = arith.constant dense<0.5> : tensor<70x60x1x1xf32>
  %v = arith.constant dense<0.5> : tensor<48x152x1x1xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x60x3x3xf32>, tensor<70x60x1x1xf32>) outs(%o : tensor<1x70x3x3xf32>) -> tensor<1x70x3x3xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%y, %v : tensor<1x152x1x1xf32>, tensor<48x152x1x1xf32>) outs(%p : tensor<1x48x1x1xf32>) -> tensor<1x48x1x1xf32>
  %t = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%z, %w : tensor<1x60x7x7xf32>, tensor<70x60x1x1xf32>) outs(%q : tensor<1x70x7x7xf32>) -> tensor<1x70x7x7xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%u, %w : tensor<1x60x8x8xf32>, tensor<70x60x1x1xf32>) outs(%e : tensor<1x70x8x8xf32>) -> tensor<1x70x8x8xf32>
  return %r, %s, %t, %g : tensor<1x70x3x3xf32>, tensor<1x48x1x1xf32>, tensor<1x70x7x7xf32>, tensor<1x70x8x8xf32>
}
