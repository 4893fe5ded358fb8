// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Round trip of every kiln_graph op.

// CHECK-LABEL: func.func @plumbing
func.func @plumbing(%x: tensor<?x4xf32>) -> (none, tensor<2xi64>, tensor<?x4xf32>, tensor<?x4xf16>) {
  // CHECK: kiln_graph.NoValue : none
  %none = kiln_graph.NoValue : none
  // CHECK: kiln_graph.Constant {value = dense<[3, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %c = kiln_graph.Constant {value = dense<[3, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: kiln_graph.Identity %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %i = kiln_graph.Identity %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: kiln_graph.Cast %{{.*}} {saturate = 0 : i64, to = 10 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf16>
  %h = kiln_graph.Cast %i {to = 10 : i64, saturate = 0 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf16>
  return %none, %c, %i, %h : none, tensor<2xi64>, tensor<?x4xf32>, tensor<?x4xf16>
}

// CHECK-LABEL: func.func @resource_constant
func.func @resource_constant() -> tensor<2xf32> {
  // CHECK: kiln_graph.Constant {value = dense_resource<w> : tensor<2xf32>}
  %c = kiln_graph.Constant {value = dense_resource<w> : tensor<2xf32>} : () -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<?x3x4xf32>, %b: tensor<4xf32>, %p: tensor<i32>) {
  // CHECK: kiln_graph.Add %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %0 = kiln_graph.Add %a, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  // CHECK: kiln_graph.Sub
  %1 = kiln_graph.Sub %0, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  // CHECK: kiln_graph.Mul
  %2 = kiln_graph.Mul %1, %a : (tensor<?x3x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  // CHECK: kiln_graph.Div
  %3 = kiln_graph.Div %2, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  // CHECK: kiln_graph.Pow %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<i32>) -> tensor<?x3x4xf32>
  %4 = kiln_graph.Pow %3, %p : (tensor<?x3x4xf32>, tensor<i32>) -> tensor<?x3x4xf32>
  // CHECK: kiln_graph.Equal %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xi1>
  %5 = kiln_graph.Equal %4, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xi1>
  // CHECK: kiln_graph.Less
  %6 = kiln_graph.Less %4, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xi1>
  // CHECK: kiln_graph.Greater
  %7 = kiln_graph.Greater %4, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xi1>
  // CHECK: kiln_graph.Where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x3x4xi1>, tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %8 = kiln_graph.Where %7, %4, %b : (tensor<?x3x4xi1>, tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  return
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<?x8xf32>, %i: tensor<?x8xi32>) {
  // CHECK: kiln_graph.Relu %{{.*}} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %0 = kiln_graph.Relu %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Sigmoid
  %1 = kiln_graph.Sigmoid %0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Tanh
  %2 = kiln_graph.Tanh %1 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Exp
  %3 = kiln_graph.Exp %2 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Log
  %4 = kiln_graph.Log %3 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Sqrt
  %5 = kiln_graph.Sqrt %4 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Erf
  %6 = kiln_graph.Erf %5 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Neg %{{.*}} : (tensor<?x8xi32>) -> tensor<?x8xi32>
  %7 = kiln_graph.Neg %i : (tensor<?x8xi32>) -> tensor<?x8xi32>
  // CHECK: kiln_graph.Abs
  %8 = kiln_graph.Abs %7 : (tensor<?x8xi32>) -> tensor<?x8xi32>
  // CHECK: kiln_graph.LeakyRelu %{{.*}} {alpha = 1.000000e-01 : f32}
  %9 = kiln_graph.LeakyRelu %6 {alpha = 0.1 : f32} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.HardSigmoid %{{.*}} {alpha = 1.250000e-01 : f32, beta = 2.500000e-01 : f32}
  %10 = kiln_graph.HardSigmoid %9 {alpha = 0.125 : f32, beta = 0.25 : f32} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Gelu %{{.*}} {approximate = "tanh"}
  %11 = kiln_graph.Gelu %10 {approximate = "tanh"} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Gelu %{{.*}} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %12 = kiln_graph.Gelu %11 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return
}

// CHECK-LABEL: func.func @clip
func.func @clip(%x: tensor<?x8xf32>, %lo: tensor<f32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %none = kiln_graph.NoValue : none
  // CHECK: kiln_graph.Clip %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<f32>, none) -> tensor<?x8xf32>
  %0 = kiln_graph.Clip %x, %lo, %none : (tensor<?x8xf32>, tensor<f32>, none) -> tensor<?x8xf32>
  // CHECK: kiln_graph.Clip %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<f32>, tensor<f32>) -> tensor<?x8xf32>
  %1 = kiln_graph.Clip %0, %lo, %lo : (tensor<?x8xf32>, tensor<f32>, tensor<f32>) -> tensor<?x8xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// CHECK-LABEL: func.func @linalg
func.func @linalg(%a: tensor<?x16xf32>, %w: tensor<32x16xf32>, %c: tensor<32xf32>,
                  %b3: tensor<?x16x8xf32>) {
  %none = kiln_graph.NoValue : none
  // CHECK: kiln_graph.MatMul %{{.*}}, %{{.*}} : (tensor<?x16x8xf32>, tensor<8x16xf32>) -> tensor<?x16x16xf32>
  %wt = kiln_graph.Transpose %w {perm = array<i64: 1, 0>} : (tensor<32x16xf32>) -> tensor<16x32xf32>
  %s = kiln_graph.Constant {value = dense<1.0> : tensor<8x16xf32>} : () -> tensor<8x16xf32>
  %0 = kiln_graph.MatMul %b3, %s : (tensor<?x16x8xf32>, tensor<8x16xf32>) -> tensor<?x16x16xf32>
  // CHECK: kiln_graph.Gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32, transB = 1 : i64} : (tensor<?x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %1 = kiln_graph.Gemm %a, %w, %c {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<?x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  // CHECK: kiln_graph.Gemm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16xf32>, tensor<16x32xf32>, none) -> tensor<?x32xf32>
  %2 = kiln_graph.Gemm %a, %wt, %none : (tensor<?x16xf32>, tensor<16x32xf32>, none) -> tensor<?x32xf32>
  return
}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<?x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>,
                %dw: tensor<64x1x3x3xf32>) {
  %none = kiln_graph.NoValue : none
  // CHECK: kiln_graph.Conv %{{.*}}, %{{.*}}, %{{.*}} {kernel_shape = array<i64: 7, 7>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<?x64x112x112xf32>
  %0 = kiln_graph.Conv %x, %w, %b {kernel_shape = array<i64: 7, 7>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<?x64x112x112xf32>
  // CHECK: kiln_graph.Conv %{{.*}}, %{{.*}}, %{{.*}} {auto_pad = "SAME_UPPER", dilations = array<i64: 2, 2>, group = 64 : i64} : (tensor<?x64x112x112xf32>, tensor<64x1x3x3xf32>, none) -> tensor<?x64x112x112xf32>
  %1 = kiln_graph.Conv %0, %dw, %none {auto_pad = "SAME_UPPER", dilations = array<i64: 2, 2>, group = 64 : i64} : (tensor<?x64x112x112xf32>, tensor<64x1x3x3xf32>, none) -> tensor<?x64x112x112xf32>
  return
}

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<?x16x14x14xf32>, %w: tensor<16x8x4x4xf32>, %b: tensor<8xf32>) {
  %none = kiln_graph.NoValue : none
  // CHECK: kiln_graph.ConvTranspose %{{.*}}, %{{.*}}, %{{.*}} {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x16x14x14xf32>, tensor<16x8x4x4xf32>, tensor<8xf32>) -> tensor<?x8x29x29xf32>
  %0 = kiln_graph.ConvTranspose %x, %w, %b {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x16x14x14xf32>, tensor<16x8x4x4xf32>, tensor<8xf32>) -> tensor<?x8x29x29xf32>
  // CHECK: kiln_graph.ConvTranspose %{{.*}}, %{{.*}}, %{{.*}} {output_shape = array<i64: 28, 28>, strides = array<i64: 2, 2>} : (tensor<?x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<?x8x28x28xf32>
  %1 = kiln_graph.ConvTranspose %x, %w, %none {output_shape = array<i64: 28, 28>, strides = array<i64: 2, 2>} : (tensor<?x16x14x14xf32>, tensor<16x8x4x4xf32>, none) -> tensor<?x8x28x28xf32>
  return
}

// CHECK-LABEL: func.func @pooling
func.func @pooling(%x: tensor<?x64x112x112xf32>) {
  // CHECK: kiln_graph.MaxPool %{{.*}} {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x64x112x112xf32>) -> tensor<?x64x56x56xf32>
  %0 = kiln_graph.MaxPool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x64x112x112xf32>) -> tensor<?x64x56x56xf32>
  // CHECK: kiln_graph.AveragePool %{{.*}} {ceil_mode = 1 : i64, count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x64x56x56xf32>) -> tensor<?x64x28x28xf32>
  %1 = kiln_graph.AveragePool %0 {ceil_mode = 1 : i64, count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x64x56x56xf32>) -> tensor<?x64x28x28xf32>
  // CHECK: kiln_graph.GlobalAveragePool %{{.*}} : (tensor<?x64x28x28xf32>) -> tensor<?x64x1x1xf32>
  %2 = kiln_graph.GlobalAveragePool %1 : (tensor<?x64x28x28xf32>) -> tensor<?x64x1x1xf32>
  return
}

// CHECK-LABEL: func.func @normalization
func.func @normalization(%x: tensor<?x64x56x56xf32>, %p: tensor<64xf32>,
                         %s: tensor<?x128x768xf32>, %g: tensor<768xf32>) {
  %none = kiln_graph.NoValue : none
  // CHECK: kiln_graph.BatchNormalization %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
  %0 = kiln_graph.BatchNormalization %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
  // CHECK: kiln_graph.LayerNormalization %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 9.99999996E-13 : f32} : (tensor<?x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  %1 = kiln_graph.LayerNormalization %s, %g, %g {epsilon = 1.0e-12 : f32} : (tensor<?x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  // CHECK: kiln_graph.LayerNormalization %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : si64} : (tensor<?x128x768xf32>, tensor<768xf32>, none) -> tensor<?x128x768xf32>
  %2 = kiln_graph.LayerNormalization %1, %g, %none {axis = 2 : si64} : (tensor<?x128x768xf32>, tensor<768xf32>, none) -> tensor<?x128x768xf32>
  // CHECK: kiln_graph.Softmax %{{.*}} {axis = 1 : si64} : (tensor<?x128x768xf32>) -> tensor<?x128x768xf32>
  %3 = kiln_graph.Softmax %2 {axis = 1 : si64} : (tensor<?x128x768xf32>) -> tensor<?x128x768xf32>
  // CHECK: kiln_graph.LogSoftmax %{{.*}} : (tensor<?x128x768xf32>) -> tensor<?x128x768xf32>
  %4 = kiln_graph.LogSoftmax %3 : (tensor<?x128x768xf32>) -> tensor<?x128x768xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<?x128x768xf32>, %axes: tensor<1xi64>) {
  %none = kiln_graph.NoValue : none
  %c = kiln_graph.Constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: kiln_graph.ReduceMean %{{.*}}, %{{.*}} : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  %0 = kiln_graph.ReduceMean %x, %c : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: kiln_graph.ReduceSum %{{.*}}, %{{.*}} {keepdims = 0 : i64} : (tensor<?x128x768xf32>, none) -> tensor<f32>
  %1 = kiln_graph.ReduceSum %x, %none {keepdims = 0 : i64} : (tensor<?x128x768xf32>, none) -> tensor<f32>
  // CHECK: kiln_graph.ReduceMax %{{.*}}, %{{.*}} {noop_with_empty_axes = 1 : i64} : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %2 = kiln_graph.ReduceMax %x, %axes {noop_with_empty_axes = 1 : i64} : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return
}

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%x: tensor<?x3x8x8xf32>, %s: tensor<3xi64>) {
  // CHECK: kiln_graph.Shape %{{.*}} : (tensor<?x3x8x8xf32>) -> tensor<4xi64>
  %0 = kiln_graph.Shape %x : (tensor<?x3x8x8xf32>) -> tensor<4xi64>
  // CHECK: kiln_graph.Shape %{{.*}} {end = -1 : si64, start = 1 : si64} : (tensor<?x3x8x8xf32>) -> tensor<2xi64>
  %1 = kiln_graph.Shape %x {start = 1 : si64, end = -1 : si64} : (tensor<?x3x8x8xf32>) -> tensor<2xi64>
  // CHECK: kiln_graph.Reshape %{{.*}}, %{{.*}} : (tensor<?x3x8x8xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %2 = kiln_graph.Reshape %x, %s : (tensor<?x3x8x8xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %c = kiln_graph.Constant {value = dense<[0, 0, 64]> : tensor<3xi64>} : () -> tensor<3xi64>
  // CHECK: kiln_graph.Reshape %{{.*}}, %{{.*}} : (tensor<?x3x8x8xf32>, tensor<3xi64>) -> tensor<?x3x64xf32>
  // CHECK-NOT: allowzero
  %3 = kiln_graph.Reshape %x, %c {allowzero = 0 : i64} : (tensor<?x3x8x8xf32>, tensor<3xi64>) -> tensor<?x3x64xf32>
  // CHECK: kiln_graph.Flatten %{{.*}} : (tensor<?x3x8x8xf32>) -> tensor<?x192xf32>
  %4 = kiln_graph.Flatten %x : (tensor<?x3x8x8xf32>) -> tensor<?x192xf32>
  // CHECK: kiln_graph.Transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x8x8x3xf32>
  %5 = kiln_graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x8x8x3xf32>
  // CHECK: kiln_graph.Transpose %{{.*}} : (tensor<?x3x8x8xf32>) -> tensor<8x8x3x?xf32>
  %6 = kiln_graph.Transpose %x : (tensor<?x3x8x8xf32>) -> tensor<8x8x3x?xf32>
  return
}

// CHECK-LABEL: func.func @concat_split
func.func @concat_split(%a: tensor<?x3x8xf32>, %b: tensor<?x5x8xf32>, %s: tensor<3xi64>) {
  %none = kiln_graph.NoValue : none
  // CHECK: kiln_graph.Concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : si64} : (tensor<?x3x8xf32>, tensor<?x5x8xf32>, tensor<?x3x8xf32>) -> tensor<?x11x8xf32>
  %0 = kiln_graph.Concat %a, %b, %a {axis = 1 : si64} : (tensor<?x3x8xf32>, tensor<?x5x8xf32>, tensor<?x3x8xf32>) -> tensor<?x11x8xf32>
  // CHECK: kiln_graph.Concat %{{.*}} {axis = -1 : si64} : (tensor<?x3x8xf32>) -> tensor<?x3x8xf32>
  %1 = kiln_graph.Concat %a {axis = -1 : si64} : (tensor<?x3x8xf32>) -> tensor<?x3x8xf32>
  %sizes = kiln_graph.Constant {value = dense<[2, 4, 5]> : tensor<3xi64>} : () -> tensor<3xi64>
  // CHECK: kiln_graph.Split %{{.*}}, %{{.*}} {axis = 1 : si64} : (tensor<?x11x8xf32>, tensor<3xi64>) -> (tensor<?x2x8xf32>, tensor<?x4x8xf32>, tensor<?x5x8xf32>)
  %2:3 = kiln_graph.Split %0, %sizes {axis = 1 : si64} : (tensor<?x11x8xf32>, tensor<3xi64>) -> (tensor<?x2x8xf32>, tensor<?x4x8xf32>, tensor<?x5x8xf32>)
  // CHECK: kiln_graph.Split %{{.*}}, %{{.*}} {axis = 2 : si64, num_outputs = 2 : i64} : (tensor<?x11x8xf32>, none) -> (tensor<?x11x4xf32>, tensor<?x11x4xf32>)
  %3:2 = kiln_graph.Split %0, %none {axis = 2 : si64, num_outputs = 2 : i64} : (tensor<?x11x8xf32>, none) -> (tensor<?x11x4xf32>, tensor<?x11x4xf32>)
  // CHECK: kiln_graph.Split %{{.*}}, %{{.*}} {axis = 1 : si64} : (tensor<?x11x8xf32>, tensor<3xi64>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>)
  %4:3 = kiln_graph.Split %0, %s {axis = 1 : si64} : (tensor<?x11x8xf32>, tensor<3xi64>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>)
  return
}

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<?x16x32xf32>, %idx: tensor<4x2xi64>, %st: tensor<2xi64>) {
  %none = kiln_graph.NoValue : none
  %starts = kiln_graph.Constant {value = dense<[1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %ends = kiln_graph.Constant {value = dense<[-1, 16]> : tensor<2xi64>} : () -> tensor<2xi64>
  %axes = kiln_graph.Constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %steps = kiln_graph.Constant {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: kiln_graph.Slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16x32xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x14x8xf32>
  %0 = kiln_graph.Slice %x, %starts, %ends, %axes, %steps : (tensor<?x16x32xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x14x8xf32>
  // CHECK: kiln_graph.Slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16x32xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<?x?x?xf32>
  %1 = kiln_graph.Slice %x, %st, %st, %none, %none : (tensor<?x16x32xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<?x?x?xf32>
  // CHECK: kiln_graph.Gather %{{.*}}, %{{.*}} {axis = 1 : si64} : (tensor<?x16x32xf32>, tensor<4x2xi64>) -> tensor<?x4x2x32xf32>
  %2 = kiln_graph.Gather %x, %idx {axis = 1 : si64} : (tensor<?x16x32xf32>, tensor<4x2xi64>) -> tensor<?x4x2x32xf32>
  return
}

// CHECK-LABEL: func.func @squeeze_expand
func.func @squeeze_expand(%x: tensor<?x1x32xf32>, %v: tensor<32xf32>) {
  %none = kiln_graph.NoValue : none
  %ax = kiln_graph.Constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  // CHECK: kiln_graph.Squeeze %{{.*}}, %{{.*}} : (tensor<?x1x32xf32>, tensor<1xi64>) -> tensor<?x32xf32>
  %0 = kiln_graph.Squeeze %x, %ax : (tensor<?x1x32xf32>, tensor<1xi64>) -> tensor<?x32xf32>
  // CHECK: kiln_graph.Squeeze %{{.*}}, %{{.*}} : (tensor<?x1x32xf32>, none) -> tensor<*xf32>
  %1 = kiln_graph.Squeeze %x, %none : (tensor<?x1x32xf32>, none) -> tensor<*xf32>
  // CHECK: kiln_graph.Unsqueeze %{{.*}}, %{{.*}} : (tensor<?x32xf32>, tensor<1xi64>) -> tensor<?x1x32xf32>
  %2 = kiln_graph.Unsqueeze %0, %ax : (tensor<?x32xf32>, tensor<1xi64>) -> tensor<?x1x32xf32>
  %shape = kiln_graph.Constant {value = dense<[4, 1, 32]> : tensor<3xi64>} : () -> tensor<3xi64>
  // CHECK: kiln_graph.Expand %{{.*}}, %{{.*}} : (tensor<32xf32>, tensor<3xi64>) -> tensor<4x1x32xf32>
  %3 = kiln_graph.Expand %v, %shape : (tensor<32xf32>, tensor<3xi64>) -> tensor<4x1x32xf32>
  return
}

// CHECK-LABEL: func.func @pad_resize
func.func @pad_resize(%x: tensor<?x3x32x32xf32>, %cv: tensor<f32>) {
  %none = kiln_graph.NoValue : none
  %pads = kiln_graph.Constant {value = dense<[0, 0, 1, 2, 0, 0, 3, 4]> : tensor<8xi64>} : () -> tensor<8xi64>
  // CHECK: kiln_graph.Pad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x3x32x32xf32>, tensor<8xi64>, tensor<f32>, none) -> tensor<?x3x36x38xf32>
  %0 = kiln_graph.Pad %x, %pads, %cv, %none : (tensor<?x3x32x32xf32>, tensor<8xi64>, tensor<f32>, none) -> tensor<?x3x36x38xf32>
  %p2 = kiln_graph.Constant {value = dense<[1, 1, 1, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %ax = kiln_graph.Constant {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: kiln_graph.Pad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {mode = "reflect"} : (tensor<?x3x32x32xf32>, tensor<4xi64>, none, tensor<2xi64>) -> tensor<?x3x34x34xf32>
  %1 = kiln_graph.Pad %x, %p2, %none, %ax {mode = "reflect"} : (tensor<?x3x32x32xf32>, tensor<4xi64>, none, tensor<2xi64>) -> tensor<?x3x34x34xf32>
  %scales = kiln_graph.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  // CHECK: kiln_graph.Resize %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<?x3x32x32xf32>, none, tensor<4xf32>, none) -> tensor<?x3x64x64xf32>
  %2 = kiln_graph.Resize %x, %none, %scales, %none {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"} : (tensor<?x3x32x32xf32>, none, tensor<4xf32>, none) -> tensor<?x3x64x64xf32>
  %sizes = kiln_graph.Constant {value = dense<[48, 40]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: kiln_graph.Resize %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axes = array<i64: 2, 3>, mode = "linear"} : (tensor<?x3x32x32xf32>, none, none, tensor<2xi64>) -> tensor<?x3x48x40xf32>
  %3 = kiln_graph.Resize %x, %none, %none, %sizes {axes = array<i64: 2, 3>, mode = "linear"} : (tensor<?x3x32x32xf32>, none, none, tensor<2xi64>) -> tensor<?x3x48x40xf32>
  return
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040"
    }
  }
#-}
