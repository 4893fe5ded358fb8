// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512}))' -split-input-file | FileCheck %s --check-prefix=SELECT
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=256}))' -split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512 winograd=0}))' -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-select-schedule{vector-bits=512 schedule-file=%S/Inputs/winograd-schedules.json},kiln-cpu-conv-to-im2col))' -split-input-file | FileCheck %s

// 128 channels at 28x28: 49 tiles of F(4x4,3x3), each transformed weight
// serves enough of them.
// SELECT-LABEL: func.func @c28
//       SELECT: strategy = "winograd_f4"
//    OFF-LABEL: func.func @c28
//          OFF: strategy = "im2col"
func.func @c28(%x: tensor<1x128x30x30xf32>, %o: tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32> {
  %w = arith.constant dense<0.5> : tensor<128x128x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x128x30x30xf32>, tensor<128x128x3x3xf32>) outs(%o : tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32>
  return %r : tensor<1x128x28x28xf32>
}

// -----

// 16 tiles of F(4x4) at 14x14, 256 filters: F(4x4) pays from 16 tiles.
// SELECT-LABEL: func.func @c14
//       SELECT: strategy = "winograd_f4"
//   AVX2-LABEL: func.func @c14
//         AVX2: strategy = "winograd_f4"
func.func @c14(%x: tensor<1x256x16x16xf32>, %o: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %w = arith.constant dense<0.5> : tensor<256x256x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x256x16x16xf32>, tensor<256x256x3x3xf32>) outs(%o : tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  return %r : tensor<1x256x14x14xf32>
}

// -----

// 32 output channels at 14x14 (DenseNet's growth): 512-bit products of 32
// filters over 16 tiles are too short to pay for the transforms; with
// 256-bit vectors F(4x4) pays.
// SELECT-LABEL: func.func @c14_narrow
//       SELECT: strategy = "im2col"
//   AVX2-LABEL: func.func @c14_narrow
//         AVX2: strategy = "winograd_f4"
func.func @c14_narrow(%x: tensor<1x128x16x16xf32>, %o: tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32> {
  %w = arith.constant dense<0.5> : tensor<32x128x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x128x16x16xf32>, tensor<32x128x3x3xf32>) outs(%o : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  return %r : tensor<1x32x14x14xf32>
}

// -----

// 49 pixels, 64 -> 64 channels in whole panels of 32: the pixel-row
// product (F(2x2)'s products would be too short); with 256-bit vectors
// F(2x2) (16 tiles).
// SELECT-LABEL: func.func @c7
//       SELECT: strategy = "im2col_transposed"
//   AVX2-LABEL: func.func @c7
//         AVX2: strategy = "winograd_f2"
func.func @c7(%x: tensor<1x64x9x9xf32>, %o: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x64x9x9xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %r : tensor<1x64x7x7xf32>
}

// -----

// 512 -> 512 at 7x7: F(2x2) (16 tiles) with both widths.
// SELECT-LABEL: func.func @c7_wide
//       SELECT: strategy = "winograd_f2"
//   AVX2-LABEL: func.func @c7_wide
//         AVX2: strategy = "winograd_f2"
func.func @c7_wide(%x: tensor<1x512x9x9xf32>, %o: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<512x512x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x512x9x9xf32>, tensor<512x512x3x3xf32>) outs(%o : tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32>
  return %r : tensor<1x512x7x7xf32>
}

// -----

// 128 -> 32 at 56x56: the transformed data (4.5 MB) outgrows four times the
// cache, and C F / (C + F) = 25.6 pays for its traffic with 512-bit vectors.
// SELECT-LABEL: func.func @c56_narrow
//       SELECT: strategy = "winograd_f4"
//   AVX2-LABEL: func.func @c56_narrow
//         AVX2: strategy = "winograd_f4"
func.func @c56_narrow(%x: tensor<1x128x58x58xf32>, %o: tensor<1x32x56x56xf32>) -> tensor<1x32x56x56xf32> {
  %w = arith.constant dense<0.5> : tensor<32x128x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x128x58x58xf32>, tensor<32x128x3x3xf32>) outs(%o : tensor<1x32x56x56xf32>) -> tensor<1x32x56x56xf32>
  return %r : tensor<1x32x56x56xf32>
}

// -----

// 32 -> 32 at 224x224: C F / (C + F) = 16 does not pay for the traffic
// with 512-bit vectors.
// SELECT-LABEL: func.func @c224_narrow
//   SELECT-NOT: winograd
//       SELECT: return
//   AVX2-LABEL: func.func @c224_narrow
//         AVX2: strategy = "winograd_f4"
func.func @c224_narrow(%x: tensor<1x32x226x226xf32>, %o: tensor<1x32x224x224xf32>) -> tensor<1x32x224x224xf32> {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x32x226x226xf32>, tensor<32x32x3x3xf32>) outs(%o : tensor<1x32x224x224xf32>) -> tensor<1x32x224x224xf32>
  return %r : tensor<1x32x224x224xf32>
}

// -----

// A filter known only at run time: no compile-time transform.
// SELECT-LABEL: func.func @runtime_filter
//       SELECT: strategy = "im2col"
func.func @runtime_filter(%x: tensor<1x128x30x30xf32>, %w: tensor<128x128x3x3xf32>, %o: tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x128x30x30xf32>, tensor<128x128x3x3xf32>) outs(%o : tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32>
  return %r : tensor<1x128x28x28xf32>
}

// -----

// F(4x4,3x3) forced on a small layer (6x6 output, 8 channels: 4 tiles, as
// columns): the filter transformed at compile time into 36 taps; the input
// zero-padded to whole tiles and phases (8 -> 10 rows, 12 columns); then one
// scf.forall per stage: 4 phases, 6 rows, 36 taps, 36 products, 24 columns,
// 16 outputs; the scatter into 8x8 and the sum with the init.
// CHECK-LABEL: func.func @winograd_f4
//   CHECK-NOT: linalg.conv_2d_nchw_fchw
//       CHECK: %[[U:.*]] = arith.constant dense_resource<winograd_filter> : tensor<36x8x8xf32>
//       CHECK: linalg.fill {{.*}} -> tensor<1x8x10x12xf32>
//       CHECK: scf.forall (%{{.*}}) in (4) {{.*}} -> (tensor<4x1x8x10x3xf32>)
//       CHECK:   tensor.extract_slice {{.*}} [1, 8, 10, 3] [1, 1, 1, 4] : tensor<1x8x10x12xf32> to tensor<1x8x10x3xf32>
//       CHECK: scf.forall (%{{.*}}) in (6) {{.*}} -> (tensor<6x1x8x10x2xf32>)
//       CHECK: scf.forall (%{{.*}}) in (36) {{.*}} -> (tensor<36x9x1x2x2xf32>)
//       CHECK:   tensor.extract_slice {{.*}} [1, 1, 8, 2, 2] [1, 1, 1, 4, 1] : tensor<6x1x8x10x2xf32> to tensor<1x8x2x2xf32>
//       CHECK: scf.forall (%{{.*}}, %{{.*}}) in (36, 1) {{.*}} -> (tensor<36x9x4xf32>)
//       CHECK:   tensor.extract_slice %[[U]]{{.*}} to tensor<8x8xf32>
//       CHECK:   linalg.matmul {{.*}}kiln.schedule = #kiln_kernel.cpu_schedule<strategy = "winograd_f4"{{.*}} ins({{.*}} : tensor<8x8xf32>, tensor<8x4xf32>) outs({{.*}} : tensor<8x4xf32>)
//       CHECK: scf.forall (%{{.*}}) in (24) {{.*}} -> (tensor<24x8x4xf32>)
//       CHECK: scf.forall (%{{.*}}) in (16) {{.*}} -> (tensor<16x9x4xf32>)
//       CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<1x8x2x4x2x4xf32>)
//       CHECK: tensor.extract_slice {{.*}} : tensor<1x8x8x8xf32> to tensor<1x8x6x6xf32>
//       CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x6x6xf32>)
//       CHECK:   arith.addf
func.func @winograd_f4(%x: tensor<1x8x8x8xf32>, %o: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> loc("wg4")
  return %r : tensor<1x8x6x6xf32>
}

// -----

// An input zero-padded by the convolution's own pads is padded once: the
// unpadded tensor goes straight into the buffer of whole tiles and phases.
// CHECK-LABEL: func.func @winograd_padded_input
//  CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x8x6x6xf32>
//       CHECK: %[[Z:[a-z0-9_]+]] = linalg.fill {{.*}} -> tensor<1x8x10x12xf32>
//       CHECK: tensor.insert_slice %[[X]] into %[[Z]][0, 0, 1, 1] [1, 8, 6, 6] [1, 1, 1, 1] : tensor<1x8x6x6xf32> into tensor<1x8x10x12xf32>
//   CHECK-NOT: tensor<1x8x8x8xf32> into tensor<1x8x10x12xf32>
func.func @winograd_padded_input(%x: tensor<1x8x6x6xf32>, %o: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p = tensor.insert_slice %x into %f[0, 0, 1, 1] [1, 8, 6, 6] [1, 1, 1, 1] : tensor<1x8x6x6xf32> into tensor<1x8x8x8xf32>
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> loc("wg4")
  return %r : tensor<1x8x6x6xf32>
}

// -----

// A per-channel bias broadcast into the init is read as it is (its 8
// values along the channels) and the sum goes to a fresh tensor, not into
// the broadcast's.
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @winograd_bias
//       CHECK: tensor.extract_slice {{.*}} : tensor<1x8x8x8xf32> to tensor<1x8x6x6xf32>
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x6x6xf32>
//       CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CH]], #{{.*}}]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x6x6xf32>, tensor<8xf32>) outs(%[[E]] : tensor<1x8x6x6xf32>)
//       CHECK:   arith.addf
//   CHECK-NOT: linalg.broadcast
func.func @winograd_bias(%x: tensor<1x8x8x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %o = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x6x6xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> loc("wg4")
  return %r : tensor<1x8x6x6xf32>
}

// -----

// F(2x2,3x3) with 32 channels over 32 tiles (16 of each image of a batch
// of two): 16 taps, the tiles as rows of the products (one panel of 32
// channels), which read the taps transposed.
// CHECK-LABEL: func.func @winograd_f2_tile_rows
//       CHECK: arith.constant dense_resource<winograd_filter> : tensor<16x1x32x32xf32>
//       CHECK: scf.forall (%{{.*}}) in (16) {{.*}} -> (tensor<16x33x2x4x4xf32>)
//       CHECK: scf.forall (%{{.*}}, %{{.*}}) in (16, 1) {{.*}} -> (tensor<16x33x32xf32>)
//       CHECK:   linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] {{.*}} ins({{.*}} : tensor<32x32xf32>, tensor<32x32xf32>) outs({{.*}} : tensor<32x32xf32>)
//       CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<2x32x4x2x4x2xf32>)
func.func @winograd_f2_tile_rows(%x: tensor<2x32x10x10xf32>, %o: tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<2x32x10x10xf32>, tensor<32x32x3x3xf32>) outs(%o : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> loc("wg2")
  return %r : tensor<2x32x8x8xf32>
}

// -----

// The pixel-row product of a 1x1 convolution: the input is already the
// columns; the weights transposed and packed in two panels of 32 channels
// (a splat here, so each panel folds to a constant), one product per panel
// reading the columns transposed, then added to the init transposed back.
//       CHECK: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
//       CHECK: #[[BK:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
//       CHECK: #[[TR:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @pixel_rows
//       CHECK: arith.constant dense<5.000000e-01> : tensor<16x32xf32>
//       CHECK: scf.forall (%{{.*}}) in (2) {{.*}} -> (tensor<49x64xf32>)
//       CHECK:   linalg.matmul indexing_maps = [#[[AT]], #[[BK]], #{{.*}}] {{.*}} ins({{.*}} : tensor<16x49xf32>, tensor<16x32xf32>) outs({{.*}} : tensor<49x32xf32>)
//       CHECK: linalg.generic {indexing_maps = [#[[TR]], #{{.*}}]{{.*}} ins({{.*}} : tensor<49x64xf32>) outs({{.*}} : tensor<64x49xf32>)
func.func @pixel_rows(%x: tensor<1x16x7x7xf32>, %o: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x16x1x1xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x7x7xf32>, tensor<64x16x1x1xf32>) outs(%o : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> loc("rows")
  return %r : tensor<1x64x7x7xf32>
}
