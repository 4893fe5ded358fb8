// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Errors found by result-type inference come with MLIR's generic
// "failed to infer returned types".

func.func @broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{shapes [2, 3] and [4] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @broadcast_mismatch_dynamic(%a: tensor<?x3xf32>, %b: tensor<?x5xf32>) {
  // expected-error @+2 {{not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Mul %a, %b : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @element_type_mismatch(%a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+2 {{operand element types differ: 'f32' vs 'i32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Add %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_needs_i1(%c: tensor<3xf32>, %a: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be tensor of 1-bit signless integer values}}
  %0 = kiln_graph.Where %c, %a, %a : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @float_only(%a: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = kiln_graph.Sigmoid %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @wrong_result_type(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Relu %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @wrong_result_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xi1>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Less %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @novalue_not_a_tensor(%a: tensor<2x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+1 {{operand #1 must be tensor of any type values}}
  %0 = kiln_graph.MatMul %a, %none : (tensor<2x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{MatMul contraction dims differ: 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.MatMul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+2 {{shapes [2] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.MatMul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @gemm_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Gemm contraction dims differ: 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Gemm %a, %b, %none : (tensor<2x3xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  return
}

// -----

// C broadcasts to [M, N] in one direction only.
func.func @gemm_c_not_unidirectional(%a: tensor<1x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x1xf32>) {
  // expected-error @+2 {{Gemm C of shape [3, 1] is not broadcastable to [1, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Gemm %a, %b, %c : (tensor<1x4xf32>, tensor<4x5xf32>, tensor<3x1xf32>) -> tensor<1x5xf32>
  return
}

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Gemm operands must be rank-2 tensors}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Gemm %a, %b, %none : (tensor<2x3x4xf32>, tensor<4x5xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_channel_mismatch(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Conv input channels (4) != W channels (3) * group (1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %none : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_group_mismatch(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Conv output channels (6) not divisible by group (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %none {group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_bias_size(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{Conv bias must be 1-D of size 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_unknown_auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{unknown auto_pad 'SAME'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME"} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{'strides' must be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_UPPER", strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_pads_count(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{'pads' must have 4 values, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %none {pads = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_kernel_shape_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{kernel_shape does not match W}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %none {kernel_shape = array<i64: 3>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_window_too_large(%x: tensor<1x3x2x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{window of size 3 is larger than the padded input (2) along spatial dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Conv %x, %w, %none : (tensor<1x3x2x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<3x8x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{ConvTranspose input channels (4) != W dim 0 (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.ConvTranspose %x, %w, %none : (tensor<1x4x8x8xf32>, tensor<3x8x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_auto_pad(%x: tensor<1x4x8x8xf32>, %w: tensor<4x8x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{unknown auto_pad 'same_upper'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.ConvTranspose %x, %w, %none {auto_pad = "same_upper"} : (tensor<1x4x8x8xf32>, tensor<4x8x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<4x8x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{output_padding must be smaller than the stride or the dilation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.ConvTranspose %x, %w, %none {output_padding = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x8x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_kernel_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<4x8x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{'kernel_shape' must have 2 values, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.ConvTranspose %x, %w, %none {kernel_shape = array<i64: 3>} : (tensor<1x4x8x8xf32>, tensor<4x8x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<3x8xf32>) {
  // expected-error @+2 {{pooling needs a ranked input of rank >= 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.MaxPool %x {kernel_shape = array<i64: 2>} : (tensor<3x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool_kernel_rank(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{kernel has 1 spatial dims, input has 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.AveragePool %x {kernel_shape = array<i64: 2>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batchnorm_training(%x: tensor<1x3x8x8xf32>, %p: tensor<3xf32>) {
  // expected-error @+2 {{BatchNormalization training mode is not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.BatchNormalization %x, %p, %p, %p, %p {training_mode = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @batchnorm_param_size(%x: tensor<1x3x8x8xf32>, %p: tensor<3xf32>, %q: tensor<4xf32>) {
  // expected-error @+2 {{BatchNormalization parameters must be 1-D of size C = 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.BatchNormalization %x, %p, %q, %p, %p : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @layernorm_scale(%x: tensor<2x8x16xf32>, %s: tensor<8xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{LayerNormalization scale/bias shape is not broadcastable to the normalized shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.LayerNormalization %x, %s, %none : (tensor<2x8x16xf32>, tensor<8xf32>, none) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @softmax_bad_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Softmax %x {axis = 2 : si64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_bad_axis(%x: tensor<2x3xf32>) {
  %axes = kiln_graph.Constant {value = dense<[-3]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.ReduceSum %x, %axes : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_bad_axis(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Gather %x, %i {axis = -3 : si64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @flatten_bad_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{Flatten axis 3 out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Flatten %x {axis = 3 : si64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[5, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Reshape of 24 elements into shape [5, 5] of 25}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_infer_not_divisible(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[5, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Reshape cannot infer -1: 24 elements into 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_two_infer(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[-1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Reshape shape has more than one -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_copy_missing_dim(%x: tensor<24xf32>) {
  %s = kiln_graph.Constant {value = dense<[4, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Reshape copies dim 1 which the input does not have}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Reshape %x, %s : (tensor<24xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{Transpose perm is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Transpose %x {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{Transpose perm has 2 entries for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{Concat inputs differ in dim 0: 2 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Concat %a, %b {axis = 1 : si64} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+2 {{Concat inputs have different ranks}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Concat %a, %b {axis = 0 : si64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_bad_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Concat %a, %a {axis = 2 : si64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @split_sizes_sum(%x: tensor<6x2xf32>) {
  %s = kiln_graph.Constant {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Split sizes sum to 5 but the axis has 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln_graph.Split %x, %s : (tensor<6x2xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @split_result_count(%x: tensor<6x2xf32>) {
  %s = kiln_graph.Constant {value = dense<[2, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<2x2xf32>', 'tensor<4x2xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = kiln_graph.Split %x, %s : (tensor<6x2xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

// ONNX makes only the last chunk smaller: 5 = 2 + 2 + 1 + 0 is not allowed.
func.func @split_num_outputs_too_many(%x: tensor<5xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Split of a dim of 5 into 4 outputs leaves no last chunk}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:4 = kiln_graph.Split %x, %none {num_outputs = 4 : i64} : (tensor<5xf32>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @split_both(%x: tensor<6xf32>) {
  %s = kiln_graph.Constant {value = dense<[3, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Split takes 'split' or 'num_outputs', not both}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln_graph.Split %x, %s {num_outputs = 2 : i64} : (tensor<6xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @split_neither(%x: tensor<6xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Split needs 'split' or 'num_outputs'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln_graph.Split %x, %none : (tensor<6xf32>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @slice_zero_step(%x: tensor<10xf32>) {
  %s = kiln_graph.Constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = kiln_graph.Constant {value = dense<5> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Slice step must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Slice %x, %s, %e, %none, %s : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

// Malformed constants are reported even when other inputs are not constant.
func.func @slice_repeated_axis(%x: tensor<10x4xf32>, %st: tensor<2xi64>) {
  %e = kiln_graph.Constant {value = dense<5> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = kiln_graph.Constant {value = dense<[1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %p = kiln_graph.Constant {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Slice axis 1 repeated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Slice %x, %e, %e, %a, %p : (tensor<10x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_lengths(%x: tensor<10x4xf32>) {
  %s = kiln_graph.Constant {value = dense<0> : tensor<2xi64>} : () -> tensor<2xi64>
  %e = kiln_graph.Constant {value = dense<5> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Slice starts/ends/axes/steps lengths differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Slice %x, %s, %e, %none, %none : (tensor<10x4xf32>, tensor<2xi64>, tensor<1xi64>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @squeeze_non_one(%x: tensor<2x3xf32>) {
  %a = kiln_graph.Constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{Squeeze of dim 0 with extent 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Squeeze %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @unsqueeze_bad_axis(%x: tensor<2x3xf32>) {
  %a = kiln_graph.Constant {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{axis 3 is out of range for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Unsqueeze %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @unsqueeze_repeated(%x: tensor<2x3xf32>) {
  %a = kiln_graph.Constant {value = dense<[0, -4]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{Unsqueeze axis repeated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Unsqueeze %x, %a : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @expand_incompatible(%x: tensor<3x2xf32>) {
  %s = kiln_graph.Constant {value = dense<[4, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{shapes [3, 2] and [4, 3] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Expand %x, %s : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>) {
  %p = kiln_graph.Constant {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Pad needs 4 pads, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Pad %x, %p, %none, %none : (tensor<2x3xf32>, tensor<2xi64>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<2x3xf32>, %p: tensor<4xi64>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{unknown Pad mode 'symmetric'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Pad %x, %p, %none, %none {mode = "symmetric"} : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @pad_negative_extent(%x: tensor<2x3xf32>) {
  %p = kiln_graph.Constant {value = dense<[0, -2, 0, -2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Pad makes dim 1 negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Pad %x, %p, %none, %none : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @resize_both(%x: tensor<1x3x8x8xf32>) {
  %none = kiln_graph.NoValue : none
  %sc = kiln_graph.Constant {value = dense<2.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %sz = kiln_graph.Constant {value = dense<16> : tensor<4xi64>} : () -> tensor<4xi64>
  // expected-error @+2 {{Resize takes 'scales' or 'sizes', not both}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Resize %x, %none, %sc, %sz : (tensor<1x3x8x8xf32>, none, tensor<4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_neither(%x: tensor<1x3x8x8xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{Resize needs 'scales' or 'sizes'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Resize %x, %none, %none, %none : (tensor<1x3x8x8xf32>, none, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @resize_scales_count(%x: tensor<1x3x8x8xf32>) {
  %none = kiln_graph.NoValue : none
  %sc = kiln_graph.Constant {value = dense<2.0> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @+2 {{Resize scales has 2 values for 4 axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Resize %x, %none, %sc, %none : (tensor<1x3x8x8xf32>, none, tensor<2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @resize_policy(%x: tensor<1x3x8x8xf32>) {
  %none = kiln_graph.NoValue : none
  %sz = kiln_graph.Constant {value = dense<16> : tensor<4xi64>} : () -> tensor<4xi64>
  // expected-error @+2 {{unknown keep_aspect_ratio_policy 'fit'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Resize %x, %none, %none, %sz {keep_aspect_ratio_policy = "fit"} : (tensor<1x3x8x8xf32>, none, none, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @cast_unsupported(%x: tensor<2xf32>) {
  // expected-error @+2 {{unsupported Cast target type string}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Cast %x {to = 8 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @cast_wrong_result(%x: tensor<2xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Cast %x {to = 7 : i64} : (tensor<2xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @shape_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 must be tensor of 64-bit signless integer values}}
  %0 = kiln_graph.Shape %x : (tensor<2x3xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @fused_conv_unknown_activation(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{unknown fused activation 'Mish'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.FusedConv %x, %w, %b {activation = "Mish"} : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @fused_conv_param_count(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{activation 'Clip' takes 2 activation_params, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.FusedConv %x, %w, %b {activation = "Clip", activation_params = array<f32: 0.0>} : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @fused_conv_no_activation(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{FusedConv needs an activation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.FusedConv %x, %w, %b {activation = ""} : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @fused_matmul_bias_size(%a: tensor<5x4xf32>, %m: tensor<4x6xf32>, %bias: tensor<5xf32>) {
  // expected-error @+2 {{FusedMatMul Bias must be 1-D of size 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.FusedMatMul %a, %m, %bias : (tensor<5x4xf32>, tensor<4x6xf32>, tensor<5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_elements_rank(%d: tensor<3x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{indices have rank 1 but data has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.GatherElements %d, %i : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) {
  // expected-error @+2 {{channels 6 are not a multiple of blocksize^2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.DepthToSpace %x {blocksize = 2 : i64} : (tensor<1x6x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @if_result_too_static(%c: tensor<i1>, %x: tensor<2x3xf32>, %y: tensor<2x1xf32>) {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not fit the yielded 'tensor<2x1xf32>'}}
  %0 = kiln_graph.If %c : tensor<i1> -> tensor<2x3xf32> {
    kiln_graph.Yield %x : tensor<2x3xf32>
  } {
    kiln_graph.Yield %y : tensor<2x1xf32>
  }
  return
}

// -----

func.func @compress_condition_rank(%x: tensor<4xf32>, %c: tensor<2x2xi1>) {
  // expected-error @+2 {{condition must be 1-D, got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.Compress %x, %c : (tensor<4xf32>, tensor<2x2xi1>) -> tensor<?xf32>
  return
}

// -----

func.func @nms_box_coordinates(%b: tensor<1x5x3xf32>, %s: tensor<1x2x5xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{boxes must be [batch, boxes, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln_graph.NonMaxSuppression %b, %s, %none, %none, %none : (tensor<1x5x3xf32>, tensor<1x2x5xf32>, none, none, none) -> tensor<?x3xi64>
  return
}

// -----

func.func @unique_axis_range(%x: tensor<4x2xf32>) {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i, %v, %n = kiln_graph.Unique %x {axis = 2 : si64} : (tensor<4x2xf32>) -> (tensor<*xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  return
}
