// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Result-type inference. Every case appears twice: with its exact
// inferred type, which must verify, and with a wrong type, whose
// diagnostic prints the inferred type (a less precise written type would
// be accepted as compatible, so the diagnostic is what pins the result).
// MLIR adds "failed to infer returned types" to every such diagnostic.

// -----

//===--- Broadcasting ------------------------------------------------------===//

func.func @add_rank_extend(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) {
  %r = kiln_graph.Add %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

func.func @add_rank_extend_wrong(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Add %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @add_dyn_and_one(%a: tensor<?x1x4xf32>, %b: tensor<3x1xf32>) {
  %r = kiln_graph.Add %a, %b : (tensor<?x1x4xf32>, tensor<3x1xf32>) -> tensor<?x3x4xf32>
  return
}

func.func @add_dyn_and_one_wrong(%a: tensor<?x1x4xf32>, %b: tensor<3x1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Add %a, %b : (tensor<?x1x4xf32>, tensor<3x1xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @mul_dyn_vs_static(%a: tensor<?x5xf32>, %b: tensor<7x1xf32>) {
  %r = kiln_graph.Mul %a, %b : (tensor<?x5xf32>, tensor<7x1xf32>) -> tensor<7x5xf32>
  return
}

func.func @mul_dyn_vs_static_wrong(%a: tensor<?x5xf32>, %b: tensor<7x1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<7x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Mul %a, %b : (tensor<?x5xf32>, tensor<7x1xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @sub_dyn_vs_one(%a: tensor<1x?xf32>, %b: tensor<?x1xf32>) {
  %r = kiln_graph.Sub %a, %b : (tensor<1x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return
}

func.func @sub_dyn_vs_one_wrong(%a: tensor<1x?xf32>, %b: tensor<?x1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Sub %a, %b : (tensor<1x?xf32>, tensor<?x1xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @div_scalar(%a: tensor<f32>, %b: tensor<?x2xf32>) {
  %r = kiln_graph.Div %a, %b : (tensor<f32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return
}

func.func @div_scalar_wrong(%a: tensor<f32>, %b: tensor<?x2xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x2xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Div %a, %b : (tensor<f32>, tensor<?x2xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @equal_i1(%a: tensor<4x1xi64>, %b: tensor<3xi64>) {
  %r = kiln_graph.Equal %a, %b : (tensor<4x1xi64>, tensor<3xi64>) -> tensor<4x3xi1>
  return
}

func.func @equal_i1_wrong(%a: tensor<4x1xi64>, %b: tensor<3xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xi1>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Equal %a, %b : (tensor<4x1xi64>, tensor<3xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @where_three_way(%c: tensor<?x1xi1>, %x: tensor<1x4xf32>, %y: tensor<3x1x1xf32>) {
  %r = kiln_graph.Where %c, %x, %y : (tensor<?x1xi1>, tensor<1x4xf32>, tensor<3x1x1xf32>) -> tensor<3x?x4xf32>
  return
}

func.func @where_three_way_wrong(%c: tensor<?x1xi1>, %x: tensor<1x4xf32>, %y: tensor<3x1x1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3x?x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Where %c, %x, %y : (tensor<?x1xi1>, tensor<1x4xf32>, tensor<3x1x1xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @pow_mixed_types(%a: tensor<2x3xf32>, %b: tensor<i32>) {
  %r = kiln_graph.Pow %a, %b : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

func.func @pow_mixed_types_wrong(%a: tensor<2x3xf32>, %b: tensor<i32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Pow %a, %b : (tensor<2x3xf32>, tensor<i32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @unranked_operand(%a: tensor<*xf32>, %b: tensor<3xf32>) {
  %r = kiln_graph.Add %a, %b : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

func.func @unranked_operand_wrong(%a: tensor<*xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<*xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Add %a, %b : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xi8>
  return
}

// -----

//===--- MatMul and Gemm ---------------------------------------------------===//

func.func @matmul_vec_vec(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  %r = kiln_graph.MatMul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

func.func @matmul_vec_vec_wrong(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<f32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MatMul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @matmul_vec_batched(%a: tensor<4xf32>, %b: tensor<2x4x5xf32>) {
  %r = kiln_graph.MatMul %a, %b : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
  return
}

func.func @matmul_vec_batched_wrong(%a: tensor<4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MatMul %a, %b : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @matmul_batched_vec(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) {
  %r = kiln_graph.MatMul %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

func.func @matmul_batched_vec_wrong(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MatMul %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @matmul_batched_2d(%a: tensor<?x8x3x4xf32>, %b: tensor<4x5xf32>) {
  %r = kiln_graph.MatMul %a, %b : (tensor<?x8x3x4xf32>, tensor<4x5xf32>) -> tensor<?x8x3x5xf32>
  return
}

func.func @matmul_batched_2d_wrong(%a: tensor<?x8x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x8x3x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MatMul %a, %b : (tensor<?x8x3x4xf32>, tensor<4x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @matmul_broadcast_batch(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) {
  %r = kiln_graph.MatMul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return
}

func.func @matmul_broadcast_batch_wrong(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x5x3x6xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MatMul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @matmul_dyn_k(%a: tensor<3x?xf32>, %b: tensor<4x?xf32>) {
  %r = kiln_graph.MatMul %a, %b : (tensor<3x?xf32>, tensor<4x?xf32>) -> tensor<3x?xf32>
  return
}

func.func @matmul_dyn_k_wrong(%a: tensor<3x?xf32>, %b: tensor<4x?xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MatMul %a, %b : (tensor<3x?xf32>, tensor<4x?xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @gemm_plain(%a: tensor<?x16xf32>, %b: tensor<16x32xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Gemm %a, %b, %none : (tensor<?x16xf32>, tensor<16x32xf32>, none) -> tensor<?x32xf32>
  return
}

func.func @gemm_plain_wrong(%a: tensor<?x16xf32>, %b: tensor<16x32xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<?x32xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Gemm %a, %b, %none : (tensor<?x16xf32>, tensor<16x32xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @gemm_trans_a_b(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) {
  %r = kiln_graph.Gemm %a, %b, %c {transA = 1 : i64, transB = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return
}

func.func @gemm_trans_a_b_wrong(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Gemm %a, %b, %c {transA = 1 : i64, transB = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @gemm_c_column(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x1xf32>) {
  %r = kiln_graph.Gemm %a, %b, %c : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  return
}

func.func @gemm_c_column_wrong(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Gemm %a, %b, %c : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<3x1xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Conv --------------------------------------------------------------===//

func.func @conv_pads(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x32x32xf32>
  return
}

func.func @conv_pads_wrong(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x32x32xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_strides(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x15x15xf32>
  return
}

func.func @conv_strides_wrong(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x15x15xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_dilations(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {dilations = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x28x28xf32>
  return
}

func.func @conv_dilations_wrong(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x28x28xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {dilations = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_asymmetric_pads(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {pads = array<i64: 0, 1, 2, 3>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x32x34xf32>
  return
}

func.func @conv_asymmetric_pads_wrong(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x32x34xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {pads = array<i64: 0, 1, 2, 3>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_group(%x: tensor<1x8x10x10xf32>, %w: tensor<16x2x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {group = 4 : i64} : (tensor<1x8x10x10xf32>, tensor<16x2x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  return
}

func.func @conv_group_wrong(%x: tensor<1x8x10x10xf32>, %w: tensor<16x2x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x8x8xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {group = 4 : i64} : (tensor<1x8x10x10xf32>, tensor<16x2x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_depthwise(%x: tensor<?x8x10x10xf32>, %w: tensor<8x1x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x8x10x10xf32>, tensor<8x1x3x3xf32>, none) -> tensor<?x8x10x10xf32>
  return
}

func.func @conv_depthwise_wrong(%x: tensor<?x8x10x10xf32>, %w: tensor<8x1x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<?x8x10x10xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x8x10x10xf32>, tensor<8x1x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_same_upper(%x: tensor<1x3x33x33xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x3x33x33xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x17x17xf32>
  return
}

func.func @conv_same_upper_wrong(%x: tensor<1x3x33x33xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x17x17xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x3x33x33xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_same_lower(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_LOWER", kernel_shape = array<i64: 4, 4>} : (tensor<1x3x32x32xf32>, tensor<16x3x4x4xf32>, none) -> tensor<1x16x32x32xf32>
  return
}

func.func @conv_same_lower_wrong(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x32x32xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_LOWER", kernel_shape = array<i64: 4, 4>} : (tensor<1x3x32x32xf32>, tensor<16x3x4x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_valid(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "VALID", strides = array<i64: 3, 3>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x10x10xf32>
  return
}

func.func @conv_valid_wrong(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x10x10xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "VALID", strides = array<i64: 3, 3>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_same_dynamic_spatial(%x: tensor<?x3x?x33xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<?x3x?x33xf32>, tensor<16x3x3x3xf32>, none) -> tensor<?x16x?x17xf32>
  return
}

func.func @conv_same_dynamic_spatial_wrong(%x: tensor<?x3x?x33xf32>, %w: tensor<16x3x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<?x16x?x17xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<?x3x?x33xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_1d(%x: tensor<1x4x100xf32>, %w: tensor<8x4x5xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Conv %x, %w, %none {strides = array<i64: 4>} : (tensor<1x4x100xf32>, tensor<8x4x5xf32>, none) -> tensor<1x8x24xf32>
  return
}

func.func @conv_1d_wrong(%x: tensor<1x4x100xf32>, %w: tensor<8x4x5xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x24xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %none {strides = array<i64: 4>} : (tensor<1x4x100xf32>, tensor<8x4x5xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) {
  %r = kiln_graph.Conv %x, %w, %b : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x30x30xf32>
  return
}

func.func @conv_bias_wrong(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x30x30xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Conv %x, %w, %b : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- ConvTranspose -----------------------------------------------------===//

func.func @convt_strides_pads(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.ConvTranspose %x, %w, %none {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x8x28x28xf32>
  return
}

func.func @convt_strides_pads_wrong(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x28x28xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ConvTranspose %x, %w, %none {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @convt_output_padding(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.ConvTranspose %x, %w, %none {output_padding = array<i64: 1, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x8x29x28xf32>
  return
}

func.func @convt_output_padding_wrong(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x29x28xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ConvTranspose %x, %w, %none {output_padding = array<i64: 1, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @convt_output_shape(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.ConvTranspose %x, %w, %none {output_shape = array<i64: 30, 29>, strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x8x30x29xf32>
  return
}

func.func @convt_output_shape_wrong(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x30x29xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ConvTranspose %x, %w, %none {output_shape = array<i64: 30, 29>, strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @convt_same_upper(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.ConvTranspose %x, %w, %none {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x8x28x28xf32>
  return
}

func.func @convt_same_upper_wrong(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x28x28xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ConvTranspose %x, %w, %none {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @convt_valid(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.ConvTranspose %x, %w, %none {auto_pad = "VALID", strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x8x30x30xf32>
  return
}

func.func @convt_valid_wrong(%x: tensor<1x16x14x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x30x30xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ConvTranspose %x, %w, %none {auto_pad = "VALID", strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @convt_group_dilation(%x: tensor<1x16x14x14xf32>, %w: tensor<16x4x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.ConvTranspose %x, %w, %none {dilations = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x16x14x14xf32>, tensor<16x4x3x3xf32>, none) -> tensor<1x8x18x18xf32>
  return
}

func.func @convt_group_dilation_wrong(%x: tensor<1x16x14x14xf32>, %w: tensor<16x4x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x18x18xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ConvTranspose %x, %w, %none {dilations = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x16x14x14xf32>, tensor<16x4x3x3xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @convt_dynamic(%x: tensor<?x16x?x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.ConvTranspose %x, %w, %none {strides = array<i64: 2, 2>} : (tensor<?x16x?x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<?x8x?x30xf32>
  return
}

func.func @convt_dynamic_wrong(%x: tensor<?x16x?x14xf32>, %w: tensor<16x8x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<?x8x?x30xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ConvTranspose %x, %w, %none {strides = array<i64: 2, 2>} : (tensor<?x16x?x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Pooling -----------------------------------------------------------===//

func.func @maxpool_2x2(%x: tensor<1x3x32x32xf32>) {
  %r = kiln_graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
  return
}

func.func @maxpool_2x2_wrong(%x: tensor<1x3x32x32xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x16x16xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @maxpool_floor(%x: tensor<1x3x32x32xf32>) {
  %r = kiln_graph.MaxPool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x15x15xf32>
  return
}

func.func @maxpool_floor_wrong(%x: tensor<1x3x32x32xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x15x15xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MaxPool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @maxpool_ceil(%x: tensor<1x3x32x32xf32>) {
  %r = kiln_graph.MaxPool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
  return
}

func.func @maxpool_ceil_wrong(%x: tensor<1x3x32x32xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x16x16xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MaxPool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @maxpool_ceil_drops_pad_window(%x: tensor<1x3x5x5xf32>) {
  %r = kiln_graph.MaxPool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>
  return
}

func.func @maxpool_ceil_drops_pad_window_wrong(%x: tensor<1x3x5x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x3x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MaxPool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x5x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @maxpool_dilations(%x: tensor<1x3x32x32xf32>) {
  %r = kiln_graph.MaxPool %x {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 3, 3>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x28x28xf32>
  return
}

func.func @maxpool_dilations_wrong(%x: tensor<1x3x32x32xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x28x28xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MaxPool %x {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 3, 3>} : (tensor<1x3x32x32xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @maxpool_same_upper(%x: tensor<?x3x7x8xf32>) {
  %r = kiln_graph.MaxPool %x {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x7x8xf32>) -> tensor<?x3x4x4xf32>
  return
}

func.func @maxpool_same_upper_wrong(%x: tensor<?x3x7x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x4x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.MaxPool %x {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x7x8xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @avgpool_floor(%x: tensor<2x4x6xf32>) {
  %r = kiln_graph.AveragePool %x {kernel_shape = array<i64: 3>, strides = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<2x4x2xf32>
  return
}

func.func @avgpool_floor_wrong(%x: tensor<2x4x6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x4x2xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.AveragePool %x {kernel_shape = array<i64: 3>, strides = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @avgpool_ceil(%x: tensor<2x4x6xf32>) {
  %r = kiln_graph.AveragePool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 3>, strides = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<2x4x3xf32>
  return
}

func.func @avgpool_ceil_wrong(%x: tensor<2x4x6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x4x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.AveragePool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 3>, strides = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @avgpool_dynamic(%x: tensor<?x3x?x9xf32>) {
  %r = kiln_graph.AveragePool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>} : (tensor<?x3x?x9xf32>) -> tensor<?x3x?x8xf32>
  return
}

func.func @avgpool_dynamic_wrong(%x: tensor<?x3x?x9xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x?x8xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.AveragePool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>} : (tensor<?x3x?x9xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @global_avgpool(%x: tensor<?x64x7x7xf32>) {
  %r = kiln_graph.GlobalAveragePool %x : (tensor<?x64x7x7xf32>) -> tensor<?x64x1x1xf32>
  return
}

func.func @global_avgpool_wrong(%x: tensor<?x64x7x7xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x64x1x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.GlobalAveragePool %x : (tensor<?x64x7x7xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @global_avgpool_1d(%x: tensor<2x5x9xf32>) {
  %r = kiln_graph.GlobalAveragePool %x : (tensor<2x5x9xf32>) -> tensor<2x5x1xf32>
  return
}

func.func @global_avgpool_1d_wrong(%x: tensor<2x5x9xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x5x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.GlobalAveragePool %x : (tensor<2x5x9xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Reductions --------------------------------------------------------===//

func.func @reduce_axis_keep(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.ReduceMean %x, %axes : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  return
}

func.func @reduce_axis_keep_wrong(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<2x1x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceMean %x, %axes : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_axes_drop(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<[-1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.ReduceSum %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
  return
}

func.func @reduce_axes_drop_wrong(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<[-1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceSum %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_none_keep(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.NoValue : none
  %r = kiln_graph.ReduceMax %x, %axes : (tensor<2x3x4xf32>, none) -> tensor<1x1x1xf32>
  return
}

func.func @reduce_none_keep_wrong(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x1x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceMax %x, %axes : (tensor<2x3x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_none_drop(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.NoValue : none
  %r = kiln_graph.ReduceMean %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, none) -> tensor<f32>
  return
}

func.func @reduce_none_drop_wrong(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<f32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceMean %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_none_noop(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.NoValue : none
  %r = kiln_graph.ReduceSum %x, %axes {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, none) -> tensor<2x3x4xf32>
  return
}

func.func @reduce_none_noop_wrong(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<2x3x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceSum %x, %axes {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_empty_all(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  %r = kiln_graph.ReduceSum %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<f32>
  return
}

func.func @reduce_empty_all_wrong(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<f32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceSum %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_empty_noop(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  %r = kiln_graph.ReduceSum %x, %axes {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<2x3x4xf32>
  return
}

func.func @reduce_empty_noop_wrong(%x: tensor<2x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<2x3x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceSum %x, %axes {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_unknown_axes_keep(%x: tensor<2x3x4xf32>, %axes: tensor<1xi64>) {
  %r = kiln_graph.ReduceMean %x, %axes : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return
}

func.func @reduce_unknown_axes_keep_wrong(%x: tensor<2x3x4xf32>, %axes: tensor<1xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x?x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceMean %x, %axes : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reduce_unknown_axes_drop(%x: tensor<2x3x4xf32>, %axes: tensor<1xi64>) {
  %r = kiln_graph.ReduceMean %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

func.func @reduce_unknown_axes_drop_wrong(%x: tensor<2x3x4xf32>, %axes: tensor<1xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<*xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceMean %x, %axes {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<*xi8>
  return
}

// -----

func.func @reduce_dynamic_kept_dim(%x: tensor<?x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.ReduceMean %x, %axes : (tensor<?x3x4xf32>, tensor<1xi64>) -> tensor<?x3x1xf32>
  return
}

func.func @reduce_dynamic_kept_dim_wrong(%x: tensor<?x3x4xf32>) {
  %axes = kiln_graph.Constant {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.ReduceMean %x, %axes : (tensor<?x3x4xf32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Reshape and Flatten -----------------------------------------------===//

func.func @reshape_copy_and_infer(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return
}

func.func @reshape_copy_and_infer_wrong(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<2x12xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reshape_infer_middle(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[4, -1, 1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<4x6x1xf32>
  return
}

func.func @reshape_infer_middle_wrong(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[4, -1, 1]> : tensor<3xi64>} : () -> tensor<3xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4x6x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reshape_flat(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<24xf32>
  return
}

func.func @reshape_flat_wrong(%x: tensor<2x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<24xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reshape_dynamic_copy(%x: tensor<?x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[0, 12]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Reshape %x, %s : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  return
}

func.func @reshape_dynamic_copy_wrong(%x: tensor<?x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[0, 12]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x12xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Reshape %x, %s : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reshape_dynamic_infer(%x: tensor<?x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[0, 3, -1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = kiln_graph.Reshape %x, %s : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x3x?xf32>
  return
}

func.func @reshape_dynamic_infer_wrong(%x: tensor<?x3x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[0, 3, -1]> : tensor<3xi64>} : () -> tensor<3xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Reshape %x, %s : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reshape_allowzero(%x: tensor<0x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[4, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Reshape %x, %s {allowzero = 1 : i64} : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<4x0xf32>
  return
}

func.func @reshape_allowzero_wrong(%x: tensor<0x4xf32>) {
  %s = kiln_graph.Constant {value = dense<[4, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4x0xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Reshape %x, %s {allowzero = 1 : i64} : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @reshape_unknown_shape(%x: tensor<2x3x4xf32>, %s: tensor<3xi64>) {
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return
}

func.func @reshape_unknown_shape_wrong(%x: tensor<2x3x4xf32>, %s: tensor<3xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x?x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Reshape %x, %s : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @flatten_axis2(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Flatten %x {axis = 2 : si64} : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
  return
}

func.func @flatten_axis2_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<6x20xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Flatten %x {axis = 2 : si64} : (tensor<2x3x4x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @flatten_axis0(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Flatten %x {axis = 0 : si64} : (tensor<2x3x4x5xf32>) -> tensor<1x120xf32>
  return
}

func.func @flatten_axis0_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x120xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Flatten %x {axis = 0 : si64} : (tensor<2x3x4x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @flatten_axis_neg(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Flatten %x {axis = -1 : si64} : (tensor<2x3x4x5xf32>) -> tensor<24x5xf32>
  return
}

func.func @flatten_axis_neg_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<24x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Flatten %x {axis = -1 : si64} : (tensor<2x3x4x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @flatten_axis_rank(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Flatten %x {axis = 4 : si64} : (tensor<2x3x4x5xf32>) -> tensor<120x1xf32>
  return
}

func.func @flatten_axis_rank_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<120x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Flatten %x {axis = 4 : si64} : (tensor<2x3x4x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @flatten_dynamic(%x: tensor<?x3x4xf32>) {
  %r = kiln_graph.Flatten %x {axis = 1 : si64} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return
}

func.func @flatten_dynamic_wrong(%x: tensor<?x3x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x12xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Flatten %x {axis = 1 : si64} : (tensor<?x3x4xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Transpose and Concat ----------------------------------------------===//

func.func @transpose_default(%x: tensor<2x?x4xf32>) {
  %r = kiln_graph.Transpose %x : (tensor<2x?x4xf32>) -> tensor<4x?x2xf32>
  return
}

func.func @transpose_default_wrong(%x: tensor<2x?x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x?x2xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Transpose %x : (tensor<2x?x4xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @transpose_perm(%x: tensor<1x3x8x9xf32>) {
  %r = kiln_graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x9xf32>) -> tensor<1x8x9x3xf32>
  return
}

func.func @transpose_perm_wrong(%x: tensor<1x3x8x9xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x9x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x9xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @concat_axis1(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  %r = kiln_graph.Concat %a, %b, %a {axis = 1 : si64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  return
}

func.func @concat_axis1_wrong(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x11xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Concat %a, %b, %a {axis = 1 : si64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  %r = kiln_graph.Concat %a, %b {axis = -1 : si64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return
}

func.func @concat_negative_axis_wrong(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x8xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Concat %a, %b {axis = -1 : si64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @concat_dynamic(%a: tensor<?x3xf32>, %b: tensor<4x?xf32>) {
  %r = kiln_graph.Concat %a, %b {axis = 0 : si64} : (tensor<?x3xf32>, tensor<4x?xf32>) -> tensor<?x3xf32>
  return
}

func.func @concat_dynamic_wrong(%a: tensor<?x3xf32>, %b: tensor<4x?xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Concat %a, %b {axis = 0 : si64} : (tensor<?x3xf32>, tensor<4x?xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @concat_refines_other_dims(%a: tensor<2x?xf32>, %b: tensor<2x3xf32>) {
  %r = kiln_graph.Concat %a, %b {axis = 0 : si64} : (tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

func.func @concat_refines_other_dims_wrong(%a: tensor<2x?xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Concat %a, %b {axis = 0 : si64} : (tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Split -------------------------------------------------------------===//

func.func @split_sizes(%x: tensor<4x10xf32>) {
  %s = kiln_graph.Constant {value = dense<[2, 3, 5]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r:3 = kiln_graph.Split %x, %s {axis = 1 : si64} : (tensor<4x10xf32>, tensor<3xi64>) -> (tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x5xf32>)
  return
}

func.func @split_sizes_wrong(%x: tensor<4x10xf32>) {
  %s = kiln_graph.Constant {value = dense<[2, 3, 5]> : tensor<3xi64>} : () -> tensor<3xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4x2xf32>', 'tensor<4x3xf32>', 'tensor<4x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r:3 = kiln_graph.Split %x, %s {axis = 1 : si64} : (tensor<4x10xf32>, tensor<3xi64>) -> (tensor<*xi8>, tensor<*xi8>, tensor<*xi8>)
  return
}

// -----

func.func @split_num_outputs(%x: tensor<9x2xf32>) {
  %s = kiln_graph.NoValue : none
  %r:3 = kiln_graph.Split %x, %s {num_outputs = 3 : i64} : (tensor<9x2xf32>, none) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>)
  return
}

func.func @split_num_outputs_wrong(%x: tensor<9x2xf32>) {
  %s = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<3x2xf32>', 'tensor<3x2xf32>', 'tensor<3x2xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r:3 = kiln_graph.Split %x, %s {num_outputs = 3 : i64} : (tensor<9x2xf32>, none) -> (tensor<*xi8>, tensor<*xi8>, tensor<*xi8>)
  return
}

// -----

func.func @split_uneven(%x: tensor<2x10xf32>) {
  %s = kiln_graph.NoValue : none
  %r:4 = kiln_graph.Split %x, %s {axis = -1 : si64, num_outputs = 4 : i64} : (tensor<2x10xf32>, none) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>)
  return
}

func.func @split_uneven_wrong(%x: tensor<2x10xf32>) {
  %s = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>', 'tensor<2x3xf32>', 'tensor<2x3xf32>', 'tensor<2x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r:4 = kiln_graph.Split %x, %s {axis = -1 : si64, num_outputs = 4 : i64} : (tensor<2x10xf32>, none) -> (tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xi8>)
  return
}

// -----

func.func @split_dynamic_axis(%x: tensor<?x6xf32>) {
  %s = kiln_graph.NoValue : none
  %r:2 = kiln_graph.Split %x, %s {num_outputs = 2 : i64} : (tensor<?x6xf32>, none) -> (tensor<?x6xf32>, tensor<?x6xf32>)
  return
}

func.func @split_dynamic_axis_wrong(%x: tensor<?x6xf32>) {
  %s = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<?x6xf32>', 'tensor<?x6xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r:2 = kiln_graph.Split %x, %s {num_outputs = 2 : i64} : (tensor<?x6xf32>, none) -> (tensor<*xi8>, tensor<*xi8>)
  return
}

// -----

//===--- Slice -------------------------------------------------------------===//

func.func @slice_negative_end(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[-2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<6xf32>
  return
}

func.func @slice_negative_end_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[-2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<6xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_clamp_end(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<9xf32>
  return
}

func.func @slice_clamp_end_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<9xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_clamp_start(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[-100]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[3]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<3xf32>
  return
}

func.func @slice_clamp_start_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[-100]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[3]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_empty(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[20]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[30]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<0xf32>
  return
}

func.func @slice_empty_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[20]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[30]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<0xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_step3(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[10]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[3]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<4xf32>
  return
}

func.func @slice_step3_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[10]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[3]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_reverse(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[-9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<10xf32>
  return
}

func.func @slice_reverse_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[-9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<10xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_reverse_clamped_start(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[-9223372036854775808]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<10xf32>
  return
}

func.func @slice_reverse_clamped_start_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[-9223372036854775808]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<10xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_negative_step2(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[8]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[-2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<4xf32>
  return
}

func.func @slice_negative_step2_wrong(%x: tensor<10xf32>) {
  %st = kiln_graph.Constant {value = dense<[8]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %sp = kiln_graph.Constant {value = dense<[-2]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %sp : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_axes(%x: tensor<4x10x6xf32>) {
  %st = kiln_graph.Constant {value = dense<[1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %en = kiln_graph.Constant {value = dense<[-1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %none = kiln_graph.NoValue : none
  %ax = kiln_graph.Constant {value = dense<[-1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %sp = kiln_graph.Constant {value = dense<[2, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Slice %x, %st, %en, %ax, %sp : (tensor<4x10x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x3x2xf32>
  return
}

func.func @slice_axes_wrong(%x: tensor<4x10x6xf32>) {
  %st = kiln_graph.Constant {value = dense<[1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %en = kiln_graph.Constant {value = dense<[-1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %none = kiln_graph.NoValue : none
  %ax = kiln_graph.Constant {value = dense<[-1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %sp = kiln_graph.Constant {value = dense<[2, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4x3x2xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %ax, %sp : (tensor<4x10x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_dynamic_dim(%x: tensor<?x10xf32>) {
  %st = kiln_graph.Constant {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %en = kiln_graph.Constant {value = dense<[5, 8]> : tensor<2xi64>} : () -> tensor<2xi64>
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<?x10xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<?x6xf32>
  return
}

func.func @slice_dynamic_dim_wrong(%x: tensor<?x10xf32>) {
  %st = kiln_graph.Constant {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %en = kiln_graph.Constant {value = dense<[5, 8]> : tensor<2xi64>} : () -> tensor<2xi64>
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<?x6xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %none, %none : (tensor<?x10xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_dynamic_full(%x: tensor<?x10xf32>) {
  %st = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %ax = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Slice %x, %st, %en, %ax, %none : (tensor<?x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x10xf32>
  return
}

func.func @slice_dynamic_full_wrong(%x: tensor<?x10xf32>) {
  %st = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = kiln_graph.Constant {value = dense<[9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = kiln_graph.NoValue : none
  %ax = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x10xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %en, %ax, %none : (tensor<?x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @slice_unknown_starts(%x: tensor<4x10x6xf32>, %st: tensor<1xi64>) {
  %none = kiln_graph.NoValue : none
  %ax = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Slice %x, %st, %st, %ax, %none : (tensor<4x10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<4x?x6xf32>
  return
}

func.func @slice_unknown_starts_wrong(%x: tensor<4x10x6xf32>, %st: tensor<1xi64>) {
  %none = kiln_graph.NoValue : none
  %ax = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4x?x6xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Slice %x, %st, %st, %ax, %none : (tensor<4x10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Gather, Squeeze, Unsqueeze, Expand --------------------------------===//

func.func @gather_axis1(%x: tensor<5x4x3xf32>, %i: tensor<2x7xi64>) {
  %r = kiln_graph.Gather %x, %i {axis = 1 : si64} : (tensor<5x4x3xf32>, tensor<2x7xi64>) -> tensor<5x2x7x3xf32>
  return
}

func.func @gather_axis1_wrong(%x: tensor<5x4x3xf32>, %i: tensor<2x7xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<5x2x7x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Gather %x, %i {axis = 1 : si64} : (tensor<5x4x3xf32>, tensor<2x7xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @gather_scalar_index(%x: tensor<5x4x3xf32>, %i: tensor<i32>) {
  %r = kiln_graph.Gather %x, %i : (tensor<5x4x3xf32>, tensor<i32>) -> tensor<4x3xf32>
  return
}

func.func @gather_scalar_index_wrong(%x: tensor<5x4x3xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Gather %x, %i : (tensor<5x4x3xf32>, tensor<i32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @gather_negative_axis(%x: tensor<5x4x3xf32>, %i: tensor<2x?xi64>) {
  %r = kiln_graph.Gather %x, %i {axis = -1 : si64} : (tensor<5x4x3xf32>, tensor<2x?xi64>) -> tensor<5x4x2x?xf32>
  return
}

func.func @gather_negative_axis_wrong(%x: tensor<5x4x3xf32>, %i: tensor<2x?xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<5x4x2x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Gather %x, %i {axis = -1 : si64} : (tensor<5x4x3xf32>, tensor<2x?xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @squeeze_all_ones(%x: tensor<1x3x1x5xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Squeeze %x, %none : (tensor<1x3x1x5xf32>, none) -> tensor<3x5xf32>
  return
}

func.func @squeeze_all_ones_wrong(%x: tensor<1x3x1x5xf32>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<3x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Squeeze %x, %none : (tensor<1x3x1x5xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @squeeze_axis(%x: tensor<1x3x1x5xf32>) {
  %a = kiln_graph.Constant {value = dense<[-2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Squeeze %x, %a : (tensor<1x3x1x5xf32>, tensor<1xi64>) -> tensor<1x3x5xf32>
  return
}

func.func @squeeze_axis_wrong(%x: tensor<1x3x1x5xf32>) {
  %a = kiln_graph.Constant {value = dense<[-2]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Squeeze %x, %a : (tensor<1x3x1x5xf32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @squeeze_dynamic_axis(%x: tensor<?x3xf32>) {
  %a = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Squeeze %x, %a : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  return
}

func.func @squeeze_dynamic_axis_wrong(%x: tensor<?x3xf32>) {
  %a = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<3xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Squeeze %x, %a : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @unsqueeze_both_ends(%x: tensor<3x4xf32>) {
  %a = kiln_graph.Constant {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Unsqueeze %x, %a : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<1x3x4x1xf32>
  return
}

func.func @unsqueeze_both_ends_wrong(%x: tensor<3x4xf32>) {
  %a = kiln_graph.Constant {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x4x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Unsqueeze %x, %a : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @unsqueeze_middle(%x: tensor<?x4xf32>) {
  %a = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Unsqueeze %x, %a : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?x1x4xf32>
  return
}

func.func @unsqueeze_middle_wrong(%x: tensor<?x4xf32>) {
  %a = kiln_graph.Constant {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x1x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Unsqueeze %x, %a : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @unsqueeze_unknown_axes(%x: tensor<3x4xf32>, %a: tensor<2xi64>) {
  %r = kiln_graph.Unsqueeze %x, %a : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  return
}

func.func @unsqueeze_unknown_axes_wrong(%x: tensor<3x4xf32>, %a: tensor<2xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x?x?x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Unsqueeze %x, %a : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @expand(%x: tensor<3x1xf32>) {
  %s = kiln_graph.Constant {value = dense<[2, 1, 6]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = kiln_graph.Expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x6xf32>
  return
}

func.func @expand_wrong(%x: tensor<3x1xf32>) {
  %s = kiln_graph.Constant {value = dense<[2, 1, 6]> : tensor<3xi64>} : () -> tensor<3xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<2x3x6xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @expand_dynamic(%x: tensor<?x1xf32>) {
  %s = kiln_graph.Constant {value = dense<[1, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Expand %x, %s : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x5xf32>
  return
}

func.func @expand_dynamic_wrong(%x: tensor<?x1xf32>) {
  %s = kiln_graph.Constant {value = dense<[1, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x5xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Expand %x, %s : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @expand_unknown_shape(%x: tensor<4xf32>, %s: tensor<3xi64>) {
  %r = kiln_graph.Expand %x, %s : (tensor<4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return
}

func.func @expand_unknown_shape_wrong(%x: tensor<4xf32>, %s: tensor<3xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x?x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Expand %x, %s : (tensor<4xf32>, tensor<3xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Pad and Resize ----------------------------------------------------===//

func.func @pad_all_axes(%x: tensor<1x3x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %p = kiln_graph.Constant {value = dense<[0, 0, 1, 1, 0, 0, 2, 2]> : tensor<8xi64>} : () -> tensor<8xi64>
  %r = kiln_graph.Pad %x, %p, %none, %none : (tensor<1x3x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x3x7x7xf32>
  return
}

func.func @pad_all_axes_wrong(%x: tensor<1x3x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %p = kiln_graph.Constant {value = dense<[0, 0, 1, 1, 0, 0, 2, 2]> : tensor<8xi64>} : () -> tensor<8xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x7x7xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Pad %x, %p, %none, %none : (tensor<1x3x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @pad_negative(%x: tensor<1x3x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %p = kiln_graph.Constant {value = dense<[0, 0, -1, 0, 0, 0, -1, 0]> : tensor<8xi64>} : () -> tensor<8xi64>
  %r = kiln_graph.Pad %x, %p, %none, %none {mode = "edge"} : (tensor<1x3x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x3x2x4xf32>
  return
}

func.func @pad_negative_wrong(%x: tensor<1x3x4x4xf32>) {
  %none = kiln_graph.NoValue : none
  %p = kiln_graph.Constant {value = dense<[0, 0, -1, 0, 0, 0, -1, 0]> : tensor<8xi64>} : () -> tensor<8xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x2x4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Pad %x, %p, %none, %none {mode = "edge"} : (tensor<1x3x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @pad_axes(%x: tensor<?x3x4x4xf32>, %v: tensor<f32>) {
  %p = kiln_graph.Constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = kiln_graph.Pad %x, %p, %v, %a : (tensor<?x3x4x4xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<?x3x4x7xf32>
  return
}

func.func @pad_axes_wrong(%x: tensor<?x3x4x4xf32>, %v: tensor<f32>) {
  %p = kiln_graph.Constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = kiln_graph.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x4x7xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Pad %x, %p, %v, %a : (tensor<?x3x4x4xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @pad_unknown(%x: tensor<1x3x4x4xf32>, %p: tensor<8xi64>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Pad %x, %p, %none, %none : (tensor<1x3x4x4xf32>, tensor<8xi64>, none, none) -> tensor<?x?x?x?xf32>
  return
}

func.func @pad_unknown_wrong(%x: tensor<1x3x4x4xf32>, %p: tensor<8xi64>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<?x?x?x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Pad %x, %p, %none, %none : (tensor<1x3x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_scales_up(%x: tensor<1x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<1x3x16x16xf32>, none, tensor<4xf32>, none) -> tensor<1x3x32x32xf32>
  return
}

func.func @resize_scales_up_wrong(%x: tensor<1x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x32x32xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<1x3x16x16xf32>, none, tensor<4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_scales_floor(%x: tensor<1x3x15x15xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 0.5, 0.5]> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<1x3x15x15xf32>, none, tensor<4xf32>, none) -> tensor<1x3x7x7xf32>
  return
}

func.func @resize_scales_floor_wrong(%x: tensor<1x3x15x15xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 0.5, 0.5]> : tensor<4xf32>} : () -> tensor<4xf32>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x7x7xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<1x3x15x15xf32>, none, tensor<4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_scales_single_precision(%x: tensor<1x1x10x10xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 0.7, 0.7]> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<1x1x10x10xf32>, none, tensor<4xf32>, none) -> tensor<1x1x7x7xf32>
  return
}

func.func @resize_scales_single_precision_wrong(%x: tensor<1x1x10x10xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 0.7, 0.7]> : tensor<4xf32>} : () -> tensor<4xf32>
  // expected-error @+2 {{inferred type(s) 'tensor<1x1x7x7xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<1x1x10x10xf32>, none, tensor<4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_scales_dynamic(%x: tensor<?x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<?x3x16x16xf32>, none, tensor<4xf32>, none) -> tensor<?x3x32x32xf32>
  return
}

func.func @resize_scales_dynamic_wrong(%x: tensor<?x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x32x32xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %c, %none : (tensor<?x3x16x16xf32>, none, tensor<4xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_scales_axes(%x: tensor<1x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[3.0, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %r = kiln_graph.Resize %x, %none, %c, %none {axes = array<i64: 2, 3>} : (tensor<1x3x16x16xf32>, none, tensor<2xf32>, none) -> tensor<1x3x48x8xf32>
  return
}

func.func @resize_scales_axes_wrong(%x: tensor<1x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[3.0, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x48x8xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %c, %none {axes = array<i64: 2, 3>} : (tensor<1x3x16x16xf32>, none, tensor<2xf32>, none) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_sizes(%x: tensor<?x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1, 3, 20, 30]> : tensor<4xi64>} : () -> tensor<4xi64>
  %r = kiln_graph.Resize %x, %none, %none, %c : (tensor<?x3x16x16xf32>, none, none, tensor<4xi64>) -> tensor<1x3x20x30xf32>
  return
}

func.func @resize_sizes_wrong(%x: tensor<?x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[1, 3, 20, 30]> : tensor<4xi64>} : () -> tensor<4xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x20x30xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %none, %c : (tensor<?x3x16x16xf32>, none, none, tensor<4xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_sizes_axes(%x: tensor<?x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[20, 30]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>} : (tensor<?x3x16x16xf32>, none, none, tensor<2xi64>) -> tensor<?x3x20x30xf32>
  return
}

func.func @resize_sizes_axes_wrong(%x: tensor<?x3x16x16xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[20, 30]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x20x30xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>} : (tensor<?x3x16x16xf32>, none, none, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_not_larger(%x: tensor<1x3x20x40xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[30, 30]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_larger"} : (tensor<1x3x20x40xf32>, none, none, tensor<2xi64>) -> tensor<1x3x15x30xf32>
  return
}

func.func @resize_not_larger_wrong(%x: tensor<1x3x20x40xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[30, 30]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x15x30xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_larger"} : (tensor<1x3x20x40xf32>, none, none, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_not_smaller(%x: tensor<1x3x20x40xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[30, 30]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_smaller"} : (tensor<1x3x20x40xf32>, none, none, tensor<2xi64>) -> tensor<1x3x30x60xf32>
  return
}

func.func @resize_not_smaller_wrong(%x: tensor<1x3x20x40xf32>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<[30, 30]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x30x60xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_smaller"} : (tensor<1x3x20x40xf32>, none, none, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @resize_unknown_sizes(%x: tensor<1x3x16x16xf32>, %c: tensor<2xi64>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>} : (tensor<1x3x16x16xf32>, none, none, tensor<2xi64>) -> tensor<1x3x?x?xf32>
  return
}

func.func @resize_unknown_sizes_wrong(%x: tensor<1x3x16x16xf32>, %c: tensor<2xi64>) {
  %none = kiln_graph.NoValue : none
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x?x?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Resize %x, %none, %none, %c {axes = array<i64: 2, 3>} : (tensor<1x3x16x16xf32>, none, none, tensor<2xi64>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

//===--- Shape and Cast ----------------------------------------------------===//

func.func @shape_full(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Shape %x : (tensor<2x3x4x5xf32>) -> tensor<4xi64>
  return
}

func.func @shape_full_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Shape %x : (tensor<2x3x4x5xf32>) -> tensor<99xi64>
  return
}

// -----

func.func @shape_start(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Shape %x {start = 1 : si64} : (tensor<2x3x4x5xf32>) -> tensor<3xi64>
  return
}

func.func @shape_start_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Shape %x {start = 1 : si64} : (tensor<2x3x4x5xf32>) -> tensor<99xi64>
  return
}

// -----

func.func @shape_end_negative(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Shape %x {end = -1 : si64} : (tensor<2x3x4x5xf32>) -> tensor<3xi64>
  return
}

func.func @shape_end_negative_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Shape %x {end = -1 : si64} : (tensor<2x3x4x5xf32>) -> tensor<99xi64>
  return
}

// -----

func.func @shape_start_negative(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Shape %x {start = -2 : si64} : (tensor<2x3x4x5xf32>) -> tensor<2xi64>
  return
}

func.func @shape_start_negative_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Shape %x {start = -2 : si64} : (tensor<2x3x4x5xf32>) -> tensor<99xi64>
  return
}

// -----

func.func @shape_start_after_end(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Shape %x {end = 1 : si64, start = 3 : si64} : (tensor<2x3x4x5xf32>) -> tensor<0xi64>
  return
}

func.func @shape_start_after_end_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<0xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Shape %x {end = 1 : si64, start = 3 : si64} : (tensor<2x3x4x5xf32>) -> tensor<99xi64>
  return
}

// -----

func.func @shape_clamped(%x: tensor<2x3x4x5xf32>) {
  %r = kiln_graph.Shape %x {end = 10 : si64, start = -10 : si64} : (tensor<2x3x4x5xf32>) -> tensor<4xi64>
  return
}

func.func @shape_clamped_wrong(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Shape %x {end = 10 : si64, start = -10 : si64} : (tensor<2x3x4x5xf32>) -> tensor<99xi64>
  return
}

// -----

func.func @shape_unranked(%x: tensor<*xf32>) {
  %r = kiln_graph.Shape %x : (tensor<*xf32>) -> tensor<?xi64>
  return
}

func.func @shape_unranked_wrong(%x: tensor<*xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Shape %x : (tensor<*xf32>) -> tensor<2x2xi64>
  return
}

// -----

func.func @cast_to_i64(%x: tensor<?x3xf32>) {
  %r = kiln_graph.Cast %x {to = 7 : i64} : (tensor<?x3xf32>) -> tensor<?x3xi64>
  return
}

func.func @cast_to_i64_wrong(%x: tensor<?x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Cast %x {to = 7 : i64} : (tensor<?x3xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @cast_to_bool(%x: tensor<2xf32>) {
  %r = kiln_graph.Cast %x {to = 9 : i64} : (tensor<2xf32>) -> tensor<2xi1>
  return
}

func.func @cast_to_bool_wrong(%x: tensor<2xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2xi1>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Cast %x {to = 9 : i64} : (tensor<2xf32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @cast_to_u8(%x: tensor<2xi32>) {
  %r = kiln_graph.Cast %x {to = 2 : i64} : (tensor<2xi32>) -> tensor<2xui8>
  return
}

func.func @cast_to_u8_wrong(%x: tensor<2xi32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2xui8>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Cast %x {to = 2 : i64} : (tensor<2xi32>) -> tensor<1x2x3x4x5x6xi8>
  return
}

// -----

func.func @cast_to_f16(%x: tensor<*xf32>) {
  %r = kiln_graph.Cast %x {to = 10 : i64} : (tensor<*xf32>) -> tensor<*xf16>
  return
}

func.func @cast_to_f16_wrong(%x: tensor<*xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<*xf16>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Cast %x {to = 10 : i64} : (tensor<*xf32>) -> tensor<*xi8>
  return
}

// -----

//===--- Extents computed from data ----------------------------------------===//

func.func @nonzero(%x: tensor<2x3x4xf32>) {
  %r = kiln_graph.NonZero %x : (tensor<2x3x4xf32>) -> tensor<3x?xi64>
  return
}

func.func @nonzero_wrong(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3x?xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.NonZero %x : (tensor<2x3x4xf32>) -> tensor<2x?xi64>
  return
}

// -----

func.func @compress_axis(%x: tensor<2x5x3xf32>, %c: tensor<4xi1>) {
  %r = kiln_graph.Compress %x, %c {axis = -2 : si64} : (tensor<2x5x3xf32>, tensor<4xi1>) -> tensor<2x?x3xf32>
  return
}

func.func @compress_flat_wrong(%x: tensor<2x5xf32>, %c: tensor<4xi1>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = kiln_graph.Compress %x, %c : (tensor<2x5xf32>, tensor<4xi1>) -> tensor<2x?xf32>
  return
}

// -----

func.func @unique_axis(%x: tensor<6x4xi64>) {
  %y, %i, %v, %n = kiln_graph.Unique %x {axis = 0 : si64} : (tensor<6x4xi64>) -> (tensor<?x4xi64>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return
}

func.func @unique_flat_wrong(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?xf32>', 'tensor<?xi64>', 'tensor<6xi64>', 'tensor<?xi64>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i, %v, %n = kiln_graph.Unique %x : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>)
  return
}

// -----

func.func @nms(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>) {
  %none = kiln_graph.NoValue : none
  %r = kiln_graph.NonMaxSuppression %b, %s, %none, %none, %none : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, none, none, none) -> tensor<?x3xi64>
  return
}
