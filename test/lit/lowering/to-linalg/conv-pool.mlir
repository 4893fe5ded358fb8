// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// A 2-D ungrouped Conv: padded input, bias-initialised accumulator, named op.
// CHECK-LABEL: func.func @conv2d_bias
// The padded input is a filled tensor with the input inserted into its
// interior, so that the input's producer can write there directly.
// CHECK: %[[PE:.*]] = tensor.empty(%{{.*}}) : tensor<?x3x230x230xf32>
// CHECK: %[[PF:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[PE]] : tensor<?x3x230x230xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[PF]][0, 0, 3, 3] [%{{.*}}, 3, 224, 224] [1, 1, 1, 1] : tensor<?x3x224x224xf32> into tensor<?x3x230x230xf32>
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0{{.*}} : tensor<?x3x224x224xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x64x112x112xf32>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%{{.*}} : tensor<64xf32>) outs(%[[E]] : tensor<?x64x112x112xf32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x3x230x230xf32>, tensor<64x3x7x7xf32>) outs(%[[B]] : tensor<?x64x112x112xf32>)
func.func @conv2d_bias(%x: tensor<?x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<?x64x112x112xf32> {
  %0 = kiln_graph.Conv %x, %w, %b {kernel_shape = array<i64: 7, 7>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<?x64x112x112xf32>
  return %0 : tensor<?x64x112x112xf32>
}

// -----

// Depthwise Conv drops the unit channel dim of the weight; SAME_UPPER with
// dilation 2 pads 2 on each side.
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x8x20x20xf32>, tensor<8x3x3xf32>)
func.func @conv2d_depthwise(%x: tensor<?x8x16x16xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<?x8x16x16xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_UPPER", dilations = array<i64: 2, 2>, group = 8 : i64} : (tensor<?x8x16x16xf32>, tensor<8x1x3x3xf32>, none) -> tensor<?x8x16x16xf32>
  return %0 : tensor<?x8x16x16xf32>
}

// -----

// A depthwise Conv with two output channels per input channel (5x5): the
// padded input's channels repeated twice (channel f reads input f / 2), then
// the depthwise op over 16 channels.
// CHECK-LABEL: func.func @conv2d_depthwise_multiplier
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x8x2x20x20xf32>
// CHECK: %[[R:.*]] = linalg.broadcast ins(%{{.*}} : tensor<?x8x20x20xf32>) outs(%[[E]] : tensor<?x8x2x20x20xf32>) dimensions = [2]
// CHECK: %[[IN:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x8x2x20x20xf32> into tensor<?x16x20x20xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%[[IN]], %{{.*}} : tensor<?x16x20x20xf32>, tensor<16x5x5xf32>)
func.func @conv2d_depthwise_multiplier(%x: tensor<?x8x16x16xf32>, %w: tensor<16x1x5x5xf32>) -> tensor<?x16x16x16xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Conv %x, %w, %none {pads = array<i64: 2, 2, 2, 2>, group = 8 : i64} : (tensor<?x8x16x16xf32>, tensor<16x1x5x5xf32>, none) -> tensor<?x16x16x16xf32>
  return %0 : tensor<?x16x16x16xf32>
}

// -----

// With stride 2 and four output channels per input channel (3x3), the copy
// would outweigh the taps: a grouped convolution.
// CHECK-LABEL: func.func @conv2d_depthwise_multiplier_grouped
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// CHECK: linalg.conv_2d_ngchw_gfchw
func.func @conv2d_depthwise_multiplier_grouped(%x: tensor<1x8x16x16xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Conv %x, %w, %none {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, group = 8 : i64} : (tensor<1x8x16x16xf32>, tensor<32x1x3x3xf32>, none) -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// -----

// Other groups split the channel dims into [G, C/G].
// CHECK-LABEL: func.func @conv2d_grouped
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, 2, 4, 6, 6] : tensor<?x8x6x6xf32> into tensor<?x2x4x6x6xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 4, 3, 3] : tensor<6x4x3x3xf32> into tensor<2x3x4x3x3xf32>
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x3x4x4xf32> into tensor<?x6x4x4xf32>
func.func @conv2d_grouped(%x: tensor<?x8x6x6xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<?x6x4x4xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Conv %x, %w, %none {group = 2 : i64} : (tensor<?x8x6x6xf32>, tensor<6x4x3x3xf32>, none) -> tensor<?x6x4x4xf32>
  return %0 : tensor<?x6x4x4xf32>
}

// -----

// Grouped 1-D Conv has no named op: a generic over (n, g, m, o, c, k).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 * 2 + d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
// CHECK-LABEL: func.func @conv1d_grouped
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
func.func @conv1d_grouped(%x: tensor<1x4x9xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x4xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Conv %x, %w, %none {group = 2 : i64, strides = array<i64: 2>} : (tensor<1x4x9xf32>, tensor<4x2x3xf32>, none) -> tensor<1x4x4xf32>
  return %0 : tensor<1x4x4xf32>
}

// -----

// ConvTranspose is a GEMM of the weight taps [Cout*KH*KW, Cin] with the input
// pixels, then col2im. With a symbolic batch the GEMM is a generic whose
// pixel loop is innermost; stride == kernel makes col2im a permutation of the
// taps into the pixels, with the bias added on the way.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[TAPS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d5, d2, d4)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>
// CHECK-LABEL: func.func @conv_transpose_2x2
// CHECK: %[[WF:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<16x8x2x2xf32> into tensor<16x32xf32>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[WF]] : tensor<16x32xf32>) outs(%{{.*}} : tensor<32x16xf32>) permutation = [1, 0]
// CHECK: %[[XF:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<?x16x4x4xf32> into tensor<?x16x16xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x32x16xf32>)
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[X]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[WT]], %[[XF]] : tensor<32x16xf32>, tensor<?x16x16xf32>) outs(%[[Z]] : tensor<?x32x16xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0], [1, 2, 3], [4, 5]] output_shape [%{{.*}}, 8, 2, 2, 4, 4] : tensor<?x32x16xf32> into tensor<?x8x2x2x4x4xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[TAPS]], #[[BIAS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[E]], %{{.*}} : tensor<?x8x2x2x4x4xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<?x8x4x2x4x2xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<?x8x4x2x4x2xf32> into tensor<?x8x8x8xf32>
// CHECK: return %[[R]]
func.func @conv_transpose_2x2(%x: tensor<?x16x4x4xf32>, %w: tensor<16x8x2x2xf32>, %b: tensor<8xf32>) -> tensor<?x8x8x8xf32> {
  %0 = kiln_graph.ConvTranspose %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<?x16x4x4xf32>, tensor<16x8x2x2xf32>, tensor<8xf32>) -> tensor<?x8x8x8xf32>
  return %0 : tensor<?x8x8x8xf32>
}

// -----

// One image: a named matmul for the contraction kernel, its constant weight
// transposed at compile time ([Cin=3, Cout=1, 1, 2] into [2, 3]); begin pads
// slice the permuted output.
// CHECK-LABEL: func.func @conv_transpose_const_weight
// CHECK-NOT: linalg.transpose
// CHECK: %[[WT:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK: %[[XF:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<1x3x4x5xf32> into tensor<3x20xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[WT]], %[[XF]] : tensor<2x3xf32>, tensor<3x20xf32>) outs(%{{.*}} : tensor<2x20xf32>)
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2, 3], [4, 5]] output_shape [1, 1, 1, 2, 4, 5] : tensor<2x20xf32> into tensor<1x1x1x2x4x5xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<1x1x4x1x5x2xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<1x1x4x1x5x2xf32> into tensor<1x1x4x10xf32>
// CHECK: tensor.extract_slice %[[C]][0, 0, 0, 1] [1, 1, 4, 8] [1, 1, 1, 1] : tensor<1x1x4x10xf32> to tensor<1x1x4x8xf32>
func.func @conv_transpose_const_weight(%x: tensor<1x3x4x5xf32>) -> tensor<1x1x4x8xf32> {
  %w = kiln_graph.Constant {value = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]]]> : tensor<3x1x1x2xf32>} : () -> tensor<3x1x1x2xf32>
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.ConvTranspose %x, %w, %none {strides = array<i64: 1, 2>, pads = array<i64: 0, 1, 0, 1>} : (tensor<1x3x4x5xf32>, tensor<3x1x1x2xf32>, none) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// Overlapping taps (kernel 3, stride 2) with pads 1 and output_padding 1:
// each tap's block of columns is added into the bias-initialised output at
// offset k - 1 with stride 2, clipped to the output; the first tap loses its
// first input row and column, the last (2, 2) writes from (1, 1).
// CHECK-LABEL: func.func @conv_transpose_overlap
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<18x3xf32>, tensor<3x16xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[M]] {{.*}} : tensor<18x16xf32> into tensor<1x2x3x3x4x4xf32>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%{{.*}} : tensor<2xf32>) outs(%{{.*}} : tensor<1x2x8x8xf32>) dimensions = [0, 2, 3]
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0, 0, 0, 1, 1] [1, 2, 1, 1, 3, 3] [1, 1, 1, 1, 1, 1] : tensor<1x2x3x3x4x4xf32> to tensor<1x2x3x3xf32>
// CHECK: %[[D0:.*]] = tensor.extract_slice %[[B]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x8x8xf32> to tensor<1x2x3x3xf32>
// CHECK: %[[A0:.*]] = linalg.generic {{.*}} ins(%[[S0]] : tensor<1x2x3x3xf32>) outs(%[[D0]] : tensor<1x2x3x3xf32>)
// CHECK: arith.addf
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A0]] into %[[B]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK-COUNT-7: tensor.insert_slice
// CHECK: %[[S8:.*]] = tensor.extract_slice %[[E]][0, 0, 2, 2, 0, 0] [1, 2, 1, 1, 4, 4] [1, 1, 1, 1, 1, 1] : tensor<1x2x3x3x4x4xf32> to tensor<1x2x4x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x8x8xf32> to tensor<1x2x4x4xf32>
// CHECK: %[[R:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2]
// CHECK: return %[[R]]
func.func @conv_transpose_overlap(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x8x8xf32> {
  %0 = kiln_graph.ConvTranspose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// Grouped ConvTranspose: zeros inserted by a strided insert_slice, the kernel
// flipped and transposed, then a stride-1 grouped convolution.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, -d3 + 1, -d4 + 1)>
// CHECK-LABEL: func.func @conv_transpose_grouped
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x7x7xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[Z]][0, 0, 1, 1] [1, 4, 3, 3] [1, 1, 2, 2] : tensor<1x4x3x3xf32> into tensor<1x4x7x7xf32>
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}]
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x2x2x7x7xf32>, tensor<2x1x2x2x2xf32>)
func.func @conv_transpose_grouped(%x: tensor<1x4x3x3xf32>, %w: tensor<4x1x2x2xf32>) -> tensor<1x2x6x6xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.ConvTranspose %x, %w, %none {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x1x2x2xf32>, none) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// MaxPool pads with -inf; ceil_mode grows the end padding.
// CHECK-LABEL: func.func @maxpool_ceil
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PF:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<?x3x7x7xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[PF]][0, 0, 0, 0] [%{{.*}}, 3, 6, 6]
// CHECK: linalg.fill ins(%[[NINF]] : f32)
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x3x7x7xf32>, tensor<3x3xf32>)
func.func @maxpool_ceil(%x: tensor<?x3x6x6xf32>) -> tensor<?x3x3x3xf32> {
  %0 = kiln_graph.MaxPool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x6x6xf32>) -> tensor<?x3x3x3xf32>
  return %0 : tensor<?x3x3x3xf32>
}

// -----

// Unsigned integers take a generic with maxui and 0 as the identity.
// CHECK-LABEL: func.func @maxpool_1d_u8
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.maxui
func.func @maxpool_1d_u8(%x: tensor<1x3x8xui8>) -> tensor<1x3x7xui8> {
  %0 = kiln_graph.MaxPool %x {kernel_shape = array<i64: 2>} : (tensor<1x3x8xui8>) -> tensor<1x3x7xui8>
  return %0 : tensor<1x3x7xui8>
}

// -----

// Without count_include_pad the border windows divide by fewer taps.
// CHECK-LABEL: func.func @avgpool_pads
// CHECK: arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [%{{.*}}, 2, 3, 3]
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @avgpool_pads(%x: tensor<?x2x3x3xf32>) -> tensor<?x2x3x3xf32> {
  %0 = kiln_graph.AveragePool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x2x3x3xf32>) -> tensor<?x2x3x3xf32>
  return %0 : tensor<?x2x3x3xf32>
}

// -----

// The spatial dims reduce as one row of H * W elements.
// CHECK-LABEL: func.func @global_avgpool
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<?x4x7x7xf32> into tensor<?x4x49xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: arith.sitofp
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: -> tensor<?x4x1x1xf32>
func.func @global_avgpool(%x: tensor<?x4x7x7xf32>) -> tensor<?x4x1x1xf32> {
  %0 = kiln_graph.GlobalAveragePool %x : (tensor<?x4x7x7xf32>) -> tensor<?x4x1x1xf32>
  return %0 : tensor<?x4x1x1xf32>
}

// -----

// Dynamic image extents: the padded input and the output get their extents
// at run time, out = (in + pads - window) floordiv stride + 1.
// CHECK-LABEL: func.func @conv_dynamic_image
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[HP:.*]] = arith.addi %[[H]], %c2
// CHECK: tensor.empty(%{{.*}}, %[[HP]], %{{.*}}) : tensor<?x3x?x?xf32>
// CHECK: %[[SPAN:.*]] = arith.addi %{{.*}}, %c-1 : index
// CHECK: %[[STEPS:.*]] = arith.floordivsi %[[SPAN]], %c2
// CHECK: %[[OH:.*]] = arith.addi %[[STEPS]], %c1
// CHECK: tensor.empty(%{{.*}}, %[[OH]], %{{.*}}) : tensor<?x4x?x?xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<?x4x?x?xf32>
func.func @conv_dynamic_image(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Conv %x, %w, %none {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Channels computed at run time take the weight's.
// CHECK-LABEL: func.func @conv_dynamic_channels
// CHECK: tensor.cast %arg0 : tensor<1x?x5x5xf32> to tensor<1x6x5x5xf32>
func.func @conv_dynamic_channels(%x: tensor<1x?x5x5xf32>, %w: tensor<4x6x1x1xf32>) -> tensor<1x4x5x5xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Conv %x, %w, %none : (tensor<1x?x5x5xf32>, tensor<4x6x1x1xf32>, none) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// MaxPool over dynamic extents (no ceil_mode).
// CHECK-LABEL: func.func @maxpool_dynamic_image
// CHECK: arith.floordivsi
// CHECK: linalg.pooling_nchw_max {{.*}} -> tensor<1x3x?x?xf32>
func.func @maxpool_dynamic_image(%x: tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32> {
  %0 = kiln_graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  return %0 : tensor<1x3x?x?xf32>
}

// -----

// AveragePool over dynamic extents without padding: every window is whole,
// one divisor (3 * 2) for all positions.
// CHECK-LABEL: func.func @avgpool_dynamic_image
// CHECK: %[[DIV:.*]] = arith.constant dense<6.000000e+00> : tensor<f32>
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[DIV]] : tensor<1x3x?x?xf32>, tensor<f32>)
// CHECK: arith.divf
func.func @avgpool_dynamic_image(%x: tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32> {
  %0 = kiln_graph.AveragePool %x {kernel_shape = array<i64: 3, 2>, strides = array<i64: 3, 2>} : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  return %0 : tensor<1x3x?x?xf32>
}

// -----

// ConvTranspose over dynamic extents with overlapping taps: each output
// element gathers the taps on the stride grid inside the input (reduction
// over channels and taps, the weight read in the body).
// CHECK-LABEL: func.func @conv_transpose_dynamic_image
// CHECK: %[[TAPS:.*]] = tensor.empty() : tensor<4x2x2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[TAPS]] : tensor<4x2x2xf32>)
// CHECK: arith.floordivsi
// CHECK: arith.cmpi eq
// CHECK: tensor.extract %arg0
// CHECK: tensor.extract %arg1
// CHECK: arith.select
func.func @conv_transpose_dynamic_image(%x: tensor<1x4x?x?xf32>, %w: tensor<4x2x2x2xf32>) -> tensor<1x2x?x?xf32> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.ConvTranspose %x, %w, %none {strides = array<i64: 1, 2>} : (tensor<1x4x?x?xf32>, tensor<4x2x2x2xf32>, none) -> tensor<1x2x?x?xf32>
  return %0 : tensor<1x2x?x?xf32>
}

// -----

// Taps that do not overlap (stride == kernel, no pads): a 1x1 convolution to
// the taps [N, M*Kh*Kw, H, W], then each tap moved to its output pixel with
// the bias, collapsed to [N, M, H*Kh, W*Kw].
// CHECK-LABEL: func.func @conv_transpose_upsample_dynamic
// CHECK: %[[F:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] output_shape [8, 4, 1, 1] : tensor<8x4xf32> into tensor<8x4x1x1xf32>
// CHECK: %[[COLS:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%arg0, %[[F]] : tensor<?x4x?x?xf32>, tensor<8x4x1x1xf32>) {{.*}} -> tensor<?x8x?x?xf32>
// CHECK: %[[TAPS:.*]] = tensor.expand_shape %[[COLS]] {{\[\[}}0], [1, 2, 3], [4], [5]] {{.*}} into tensor<?x2x2x2x?x?xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[TAPS]], %arg2 : tensor<?x2x2x2x?x?xf32>, tensor<2xf32>) outs(%{{.*}} : tensor<?x2x?x2x?x2xf32>)
// CHECK: tensor.collapse_shape %[[OUT]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<?x2x?x2x?x2xf32> into tensor<?x2x?x?xf32>
func.func @conv_transpose_upsample_dynamic(%x: tensor<?x4x?x?xf32>, %w: tensor<4x2x2x2xf32>, %b: tensor<2xf32>) -> tensor<?x2x?x?xf32> {
  %0 = kiln_graph.ConvTranspose %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<?x4x?x?xf32>, tensor<4x2x2x2xf32>, tensor<2xf32>) -> tensor<?x2x?x?xf32>
  return %0 : tensor<?x2x?x?xf32>
}
