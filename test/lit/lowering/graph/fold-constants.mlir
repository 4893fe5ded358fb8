// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-fold-constants))' | FileCheck %s

// Elementwise float arithmetic with broadcasting: [2, 1] op [3].
// CHECK-LABEL: func.func @broadcast_arith
// CHECK-DAG:     kiln_graph.Constant {value = dense<{{\[}}[1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense<{{\[}}[-9.000000e+00, -1.900000e+01, -2.900000e+01], [-8.000000e+00, -1.800000e+01, -2.800000e+01]]> : tensor<2x3xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense<{{\[}}[1.000000e+01, 2.000000e+01, 3.000000e+01], [2.000000e+01, 4.000000e+01, 6.000000e+01]]> : tensor<2x3xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense<{{\[}}[1.000000e-01, 5.000000e-02, 0.0{{.*}}], [2.000000e-01, 1.000000e-01, 0.0{{.*}}]]> : tensor<2x3xf32>}
// CHECK-NOT:     kiln_graph.Add
// CHECK-NOT:     kiln_graph.Sub
// CHECK-NOT:     kiln_graph.Mul
// CHECK-NOT:     kiln_graph.Div
func.func @broadcast_arith() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = kiln_graph.Constant {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %b = kiln_graph.Constant {value = dense<[10.0, 20.0, 30.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = kiln_graph.Add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln_graph.Sub %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = kiln_graph.Mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = kiln_graph.Div %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Unary ops and Pow with an integer exponent; 1/3 rounds to f16 0x3555.
// CHECK-LABEL: func.func @unary
// CHECK-DAG:     kiln_graph.Constant {value = dense<[-4.000000e+00, -9.000000e+00]> : tensor<2xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense<[6.400000e+01, 7.290000e+02]> : tensor<2xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense<3.332520e-01> : tensor<2xf16>}
// CHECK-NOT:     kiln_graph.Neg
// CHECK-NOT:     kiln_graph.Sqrt
// CHECK-NOT:     kiln_graph.Pow
// CHECK-NOT:     kiln_graph.Cast
func.func @unary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>) {
  %a = kiln_graph.Constant {value = dense<[4.0, 9.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %e = kiln_graph.Constant {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %third = kiln_graph.Constant {value = dense<0.333333343> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = kiln_graph.Neg %a : (tensor<2xf32>) -> tensor<2xf32>
  %1 = kiln_graph.Sqrt %a : (tensor<2xf32>) -> tensor<2xf32>
  %2 = kiln_graph.Pow %a, %e : (tensor<2xf32>, tensor<i64>) -> tensor<2xf32>
  %3 = kiln_graph.Cast %third {to = 10 : i64} : (tensor<2xf32>) -> tensor<2xf16>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>
}

// A weight blob scaled and transposed (the [8, 9] weight holds 0..71): one
// new blob whose first row is W[:, 0] * 0.5 = 0, 4.5, 9, 13.5. The MatMul on
// a run-time input stays.
// CHECK-LABEL: func.func @weight_chain
// CHECK:         %[[W:.*]] = kiln_graph.Constant {value = dense_resource<[[BLOB:w8x9_folded[_0-9]*]]> : tensor<9x8xf32>}
// CHECK-NOT:     kiln_graph.Mul
// CHECK-NOT:     kiln_graph.Transpose
// CHECK:         kiln_graph.MatMul %arg0, %[[W]]
func.func @weight_chain(%x: tensor<4x9xf32>) -> tensor<4x8xf32> {
  %w = kiln_graph.Constant {value = dense_resource<w8x9> : tensor<8x9xf32>} : () -> tensor<8x9xf32>
  %half = kiln_graph.Constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %s = kiln_graph.Mul %w, %half : (tensor<8x9xf32>, tensor<f32>) -> tensor<8x9xf32>
  %t = kiln_graph.Transpose %s {perm = array<i64: 1, 0>} : (tensor<8x9xf32>) -> tensor<9x8xf32>
  %y = kiln_graph.MatMul %x, %t : (tensor<4x9xf32>, tensor<9x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// Reshape-like ops of a blob keep the blob and only change the type.
// CHECK-LABEL: func.func @reshape_blob
// CHECK-DAG:     kiln_graph.Constant {value = dense_resource<w8x9> : tensor<72xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense_resource<w8x9> : tensor<1x8x9xf32>}
// CHECK-DAG:     kiln_graph.Constant {value = dense_resource<w8x9> : tensor<8x9xf32>}
// CHECK-NOT:     kiln_graph.Reshape
// CHECK-NOT:     kiln_graph.Unsqueeze
// CHECK-NOT:     kiln_graph.Squeeze
// CHECK-NOT:     kiln_graph.Flatten
func.func @reshape_blob() -> (tensor<72xf32>, tensor<1x8x9xf32>, tensor<8x9xf32>) {
  %w = kiln_graph.Constant {value = dense_resource<w8x9> : tensor<8x9xf32>} : () -> tensor<8x9xf32>
  %shape = kiln_graph.Constant {value = dense<[72]> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = kiln_graph.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = kiln_graph.Reshape %w, %shape : (tensor<8x9xf32>, tensor<1xi64>) -> tensor<72xf32>
  %1 = kiln_graph.Unsqueeze %w, %axes : (tensor<8x9xf32>, tensor<1xi64>) -> tensor<1x8x9xf32>
  %2 = kiln_graph.Squeeze %1, %axes : (tensor<1x8x9xf32>, tensor<1xi64>) -> tensor<8x9xf32>
  %3 = kiln_graph.Flatten %2 {axis = 1 : si64} : (tensor<8x9xf32>) -> tensor<8x9xf32>
  return %0, %1, %3 : tensor<72xf32>, tensor<1x8x9xf32>, tensor<8x9xf32>
}

// Not folded: a run-time operand, and a broadcast far larger than its
// inputs ([512, 1] + [1, 512] would be a 1 MiB constant made of 4 KiB).
// CHECK-LABEL: func.func @not_folded
// CHECK:         kiln_graph.Add %arg0
// CHECK:         kiln_graph.Add %{{.*}}, %{{.*}} : (tensor<512x1xf32>, tensor<1x512xf32>)
func.func @not_folded(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<512x512xf32>) {
  %c = kiln_graph.Constant {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = kiln_graph.Add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %a = kiln_graph.Constant {value = dense<1.0> : tensor<512x1xf32>} : () -> tensor<512x1xf32>
  %b = kiln_graph.Constant {value = dense<2.0> : tensor<1x512xf32>} : () -> tensor<1x512xf32>
  %1 = kiln_graph.Add %a, %b : (tensor<512x1xf32>, tensor<1x512xf32>) -> tensor<512x512xf32>
  return %0, %1 : tensor<2xf32>, tensor<512x512xf32>
}

// Gemm with transB and a constant B: B is transposed once, transB dropped.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK:         %[[B:.*]] = kiln_graph.Constant {{ *}}{value = dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>}
// CHECK-NOT:     kiln_graph.Transpose
// CHECK:         kiln_graph.Gemm %arg0, %[[B]], %{{.*}} :
// CHECK-NOT:     transB
func.func @gemm_trans_b(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = kiln_graph.Constant {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %c = kiln_graph.NoValue : none
  %g = kiln_graph.Gemm %x, %w, %c {transB = 1 : i64} : (tensor<4x3xf32>, tensor<2x3xf32>, none) -> tensor<4x2xf32>
  return %g : tensor<4x2xf32>
}

// A B computed at run time keeps transB.
// CHECK-LABEL: func.func @gemm_trans_b_input
// CHECK:         kiln_graph.Gemm %arg0, %arg1, %{{.*}} {transB = 1 : i64}
func.func @gemm_trans_b_input(%x: tensor<4x3xf32>, %w: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %c = kiln_graph.NoValue : none
  %g = kiln_graph.Gemm %x, %w, %c {transB = 1 : i64} : (tensor<4x3xf32>, tensor<2x3xf32>, none) -> tensor<4x2xf32>
  return %g : tensor<4x2xf32>
}

// CHECK:       dialect_resources
// CHECK:         [[BLOB]]: "0x1000000000000000000090400000104100005841

{-#
  dialect_resources: {
    builtin: {
      w8x9: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42"
    }
  }
#-}
