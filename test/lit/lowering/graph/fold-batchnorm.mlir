// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-fold-batchnorm))' | FileCheck %s

// Parameters give s = scale / sqrt(var + eps) = [0.5, 2] and
// t = B - mean * s = [0, -5] (eps = 1 keeps the numbers exact).
// W' = W * s per output channel; b' = t without a bias.

// CHECK-LABEL: func.func @conv_no_bias
// CHECK-DAG:     %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[}}{{\[}}{{\[}}[5.000000e-01, 1.000000e+00]]], {{\[}}{{\[}}[6.000000e+00, 8.000000e+00]]]]> : tensor<2x1x1x2xf32>}
// CHECK-DAG:     %[[B:.*]] = kiln_graph.Constant {value = dense<[0.000000e+00, -5.000000e+00]> : tensor<2xf32>}
// CHECK:         %[[Y:.*]] = kiln_graph.Conv %arg0, %[[W]], %[[B]] {group = 2 : i64} : (tensor<1x2x4x3xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x4x2xf32>
// CHECK-NOT:     BatchNormalization
// CHECK:         return %[[Y]]
func.func @conv_no_bias(%x: tensor<1x2x4x3xf32>) -> tensor<1x2x4x2xf32> {
  %w = kiln_graph.Constant {value = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>} : () -> tensor<2x1x1x2xf32>
  %n = kiln_graph.NoValue : none
  %scale = kiln_graph.Constant {value = dense<[1.0, 6.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = kiln_graph.Constant {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = kiln_graph.Constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = kiln_graph.Conv %x, %w, %n {group = 2 : i64} : (tensor<1x2x4x3xf32>, tensor<2x1x1x2xf32>, none) -> tensor<1x2x4x2xf32>
  %y = kiln_graph.BatchNormalization %c, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x2xf32>
  return %y : tensor<1x2x4x2xf32>
}

// A bias folds to b * s + t = [1, 2] * [0.5, 2] + [0, -5] = [0.5, -1]; the
// weight is read from a resource blob ([1, 2, 3, 4]).

// CHECK-LABEL: func.func @conv_bias_resource
// CHECK-DAG:     %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[}}{{\[}}{{\[}}[5.000000e-01]], {{\[}}[1.000000e+00]]], {{\[}}{{\[}}[6.000000e+00]], {{\[}}[8.000000e+00]]]]> : tensor<2x2x1x1xf32>}
// CHECK-DAG:     %[[B:.*]] = kiln_graph.Constant {value = dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>}
// CHECK:         kiln_graph.Conv %arg0, %[[W]], %[[B]]
// CHECK-NOT:     BatchNormalization
func.func @conv_bias_resource(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = kiln_graph.Constant {value = dense_resource<conv_w> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %cb = kiln_graph.Constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %scale = kiln_graph.Constant {value = dense<[1.0, 6.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = kiln_graph.Constant {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = kiln_graph.Constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = kiln_graph.Conv %x, %w, %cb : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = kiln_graph.BatchNormalization %c, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// Large folded weights become resource blobs: 80 elements 0..79 scaled by
// s = [0.5, 2], so the blob starts 0.0, 0.5, 1.0, 1.5 (channel 0).

// CHECK-LABEL: func.func @conv_blob
// CHECK:         kiln_graph.Constant {value = dense_resource<[[BLOB:.*]]> : tensor<2x40x1x1xf32>}
// CHECK-NOT:     BatchNormalization
func.func @conv_blob(%x: tensor<1x40x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = kiln_graph.Constant {value = dense_resource<big_w> : tensor<2x40x1x1xf32>} : () -> tensor<2x40x1x1xf32>
  %n = kiln_graph.NoValue : none
  %scale = kiln_graph.Constant {value = dense<[1.0, 6.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = kiln_graph.Constant {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = kiln_graph.Constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = kiln_graph.Conv %x, %w, %n : (tensor<1x40x2x2xf32>, tensor<2x40x1x1xf32>, none) -> tensor<1x2x2x2xf32>
  %y = kiln_graph.BatchNormalization %c, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// ConvTranspose W is [Cin, Cout/group, k...]: output channel j of W[ci, j]
// is scaled by s[j].

// CHECK-LABEL: func.func @conv_transpose
// CHECK-DAG:     %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[}}{{\[}}{{\[}}[5.000000e-01]], {{\[}}[4.000000e+00]]], {{\[}}{{\[}}[1.500000e+00]], {{\[}}[8.000000e+00]]]]> : tensor<2x2x1x1xf32>}
// CHECK-DAG:     %[[B:.*]] = kiln_graph.Constant {value = dense<[0.000000e+00, -5.000000e+00]> : tensor<2xf32>}
// CHECK:         kiln_graph.ConvTranspose %arg0, %[[W]], %[[B]]
// CHECK-NOT:     BatchNormalization
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = kiln_graph.Constant {value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = kiln_graph.NoValue : none
  %scale = kiln_graph.Constant {value = dense<[1.0, 6.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = kiln_graph.Constant {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = kiln_graph.Constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = kiln_graph.ConvTranspose %x, %w, %n : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  %y = kiln_graph.BatchNormalization %c, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// Gemm with transB: B is [N, K], row n scaled by s[n]; C' = beta * C * s + t
// = 2 * [1, 1] * [0.5, 2] + [0, -5] = [1, -1] and beta becomes 1.

// CHECK-LABEL: func.func @gemm
// CHECK-DAG:     %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[}}[5.000000e-01, 1.000000e+00, 1.500000e+00], [8.000000e+00, 1.000000e+01, 1.200000e+01]]> : tensor<2x3xf32>}
// CHECK-DAG:     %[[C:.*]] = kiln_graph.Constant {value = dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>}
// CHECK:         kiln_graph.Gemm %arg0, %[[W]], %[[C]] {transB = 1 : i64}
// CHECK-NOT:     BatchNormalization
func.func @gemm(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = kiln_graph.Constant {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %gc = kiln_graph.Constant {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %scale = kiln_graph.Constant {value = dense<[1.0, 6.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = kiln_graph.Constant {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = kiln_graph.Constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = kiln_graph.Gemm %x, %w, %gc {alpha = 1.0 : f32, beta = 2.0 : f32, transB = 1 : i64} : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y = kiln_graph.BatchNormalization %g, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// The conv result has another user, so the conv stays and BN becomes
// x * s + t with [C, 1, 1] constants; sqrt(0.25 + 1e-5) is not exact:
// s = 1 / sqrt(0.25001) = 1.99996 and t = -0.5 * s = -0.99997997 in f32.

// CHECK-LABEL: func.func @conv_two_uses
// CHECK-DAG:     %[[S:.*]] = kiln_graph.Constant {value = dense<1.999960e+00> : tensor<1x1x1xf32>}
// CHECK-DAG:     %[[T:.*]] = kiln_graph.Constant {value = dense<-0.999979972> : tensor<1x1x1xf32>}
// CHECK:         %[[C:.*]] = kiln_graph.Conv
// CHECK:         %[[M:.*]] = kiln_graph.Mul %[[C]], %[[S]] : (tensor<1x1x2x2xf32>, tensor<1x1x1xf32>) -> tensor<1x1x2x2xf32>
// CHECK:         %[[A:.*]] = kiln_graph.Add %[[M]], %[[T]] : (tensor<1x1x2x2xf32>, tensor<1x1x1xf32>) -> tensor<1x1x2x2xf32>
// CHECK:         return %[[A]], %[[C]]
func.func @conv_two_uses(%x: tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %n = kiln_graph.NoValue : none
  %one = kiln_graph.Constant {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %zero = kiln_graph.Constant {value = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %mean = kiln_graph.Constant {value = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %var = kiln_graph.Constant {value = dense<0.25> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = kiln_graph.Conv %x, %w, %n : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, none) -> tensor<1x1x2x2xf32>
  %y = kiln_graph.BatchNormalization %c, %one, %zero, %mean, %var : (tensor<1x1x2x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  return %y, %c : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// Rank 2 input, no producer to fold into: the constants are [C].

// CHECK-LABEL: func.func @rank2
// CHECK-DAG:     %[[S:.*]] = kiln_graph.Constant {value = dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>}
// CHECK-DAG:     %[[T:.*]] = kiln_graph.Constant {value = dense<[0.000000e+00, -5.000000e+00]> : tensor<2xf32>}
// CHECK:         %[[M:.*]] = kiln_graph.Mul %arg0, %[[S]]
// CHECK:         kiln_graph.Add %[[M]], %[[T]]
func.func @rank2(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %scale = kiln_graph.Constant {value = dense<[1.0, 6.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = kiln_graph.Constant {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = kiln_graph.Constant {value = dense<[3.0, 8.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = kiln_graph.BatchNormalization %x, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// Statistics that are not constants stay a BatchNormalization.

// CHECK-LABEL: func.func @dynamic_stats
// CHECK:         kiln_graph.BatchNormalization
// CHECK-NOT:     kiln_graph.Mul
func.func @dynamic_stats(%x: tensor<1x2x2x2xf32>, %var: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %p = kiln_graph.Constant {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = kiln_graph.BatchNormalization %x, %p, %p, %p, %var : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// A Conv's per-channel Mul and a scalar Add (PaddleOCR's learnable affine
// after a Conv) fold into its weight and bias like a BatchNormalization:
// w' = w * s per output channel, b' = b * s + t.

// CHECK-LABEL: func.func @conv_mul_add
// CHECK-DAG:     %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}-3.000000e+00]]]]> : tensor<2x1x1x1xf32>}
// CHECK-DAG:     %[[B:.*]] = kiln_graph.Constant {value = dense<[2.500000e+00, -5.500000e+00]> : tensor<2xf32>}
// CHECK:         %[[C:.*]] = kiln_graph.Conv %arg0, %[[W]], %[[B]]
// CHECK-NOT:     kiln_graph.Mul
// CHECK-NOT:     kiln_graph.Add
// CHECK:         return %[[C]]
func.func @conv_mul_add(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = kiln_graph.Constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s = kiln_graph.Constant {value = dense<[[[2.0]], [[-3.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %t = kiln_graph.Constant {value = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = kiln_graph.Conv %x, %w, %b : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %m = kiln_graph.Mul %s, %c : (tensor<2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %a = kiln_graph.Add %m, %t : (tensor<1x2x2x2xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  return %a : tensor<1x2x2x2xf32>
}

// A constant that varies along a spatial dim is not per-channel: it stays.

// CHECK-LABEL: func.func @conv_mul_spatial
// CHECK:         kiln_graph.Conv
// CHECK:         kiln_graph.Mul
func.func @conv_mul_spatial(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %n = kiln_graph.NoValue : none
  %s = kiln_graph.Constant {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %c = kiln_graph.Conv %x, %w, %n : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x2x2xf32>
  %m = kiln_graph.Mul %c, %s : (tensor<1x2x2x2xf32>, tensor<2x1xf32>) -> tensor<1x2x2x2xf32>
  return %m : tensor<1x2x2x2xf32>
}

// The folded blob, checked after the functions: 0.0, 0.5, 1.0, 1.5 ...
// CHECK:       dialect_resources
// CHECK:         [[BLOB]]: "0x10000000000000000000003F0000803F0000C03F

{-#
  dialect_resources: {
    builtin: {
      conv_w: "0x040000000000803F000000400000404000008040",
      big_w: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E42"
    }
  }
#-}
