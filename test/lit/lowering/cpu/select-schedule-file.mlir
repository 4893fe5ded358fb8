// A schedule file overrides single ops, keyed by node name (or identity):
// conv1 becomes a direct convolution, conv0 keeps the heuristic's im2col.
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{schedule-file=%S/Inputs/override-conv1.json}))' | FileCheck %s
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}kiln.op_id = "conv0#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "im2col"
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}kiln.op_id = "conv1#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "direct"
// Ops outside the tunable kinds keep their heuristic's strategy beside a file
// (max pooling runs the depthwise kernel's loops).
// CHECK: linalg.pooling_nchw_max {{.*}}kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "depthwise"

// Mistakes are errors that name the entry, the op and what is wrong.
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{schedule-file=%S/Inputs/bad-key.json}))' 2>&1 | FileCheck %s --check-prefix=KEY
// KEY: error: schedule file '{{.*}}bad-key.json': entry 'conv1': unknown key 'tile_q' (known: strategy, vector_bits, tile_m,
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{schedule-file=%S/Inputs/bad-strategy.json}))' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: error: {{.*}}schedule of 'conv1#{{[0-9a-f]+}}': strategy 'depthwise' does not fit linalg.conv_2d_nchw_fchw (fits: im2col, blocked_im2col, im2col_transposed, winograd_f4, winograd_f2, direct)
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{schedule-file=%S/Inputs/bad-value.json}))' 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: error: {{.*}}schedule of 'conv1#{{[0-9a-f]+}}': strategy 'im2col' needs reg_m > 0
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{schedule-file=%S/Inputs/no-such-file.json}))' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read schedule file '{{.*}}no-such-file.json'

func.func @two_convs(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<1x8x8x8xf32>, %w1: tensor<8x8x3x3xf32>, %o1: tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("conv0")
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%r, %w1 : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%o1 : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> loc("conv1")
  %win = tensor.empty() : tensor<2x2xf32>
  %po = tensor.empty() : tensor<1x8x3x3xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%s, %win : tensor<1x8x6x6xf32>, tensor<2x2xf32>) outs(%po : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32> loc("pool")
  return %p : tensor<1x8x3x3xf32>
}

// A strategy named by the file gets that strategy's tiles and thread blocks
// fitted to the op, as if the heuristic had chosen it: im2col forced over
// Winograd F(4x4) splits 256 rows in blocks of 64 (Winograd's single block
// of 256 left the product on one thread); fields the entry names still win.
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512}))' | FileCheck %s --check-prefix=HEUR
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512 schedule-file=%S/Inputs/force-im2col.json}))' | FileCheck %s --check-prefix=FORCE
// HEUR: linalg.conv_2d_nchw_fchw {{.*}}kiln.op_id = "wide#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "winograd_f4", vector_bits = 512, tile_m = 256,
// FORCE: linalg.conv_2d_nchw_fchw {{.*}}kiln.op_id = "wide#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "im2col", vector_bits = 512, tile_m = 64, {{.*}}threads = 8,
// FORCE: linalg.conv_2d_nchw_fchw {{.*}}kiln.op_id = "wide_tiled#{{[0-9a-f]+}}", kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "im2col", vector_bits = 512, tile_m = 128,
func.func @wide(%x: tensor<1x64x15x15xf32>, %o: tensor<1x256x13x13xf32>) -> (tensor<1x256x13x13xf32>, tensor<1x256x13x13xf32>) {
  %w = arith.constant dense<0.5> : tensor<256x64x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x64x15x15xf32>, tensor<256x64x3x3xf32>) outs(%o : tensor<1x256x13x13xf32>) -> tensor<1x256x13x13xf32> loc("wide")
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x64x15x15xf32>, tensor<256x64x3x3xf32>) outs(%o : tensor<1x256x13x13xf32>) -> tensor<1x256x13x13xf32> loc("wide_tiled")
  return %r, %s : tensor<1x256x13x13xf32>, tensor<1x256x13x13xf32>
}
