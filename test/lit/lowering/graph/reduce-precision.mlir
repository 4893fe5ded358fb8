// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-reduce-precision{precision=bf16}))' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-reduce-precision{precision=fp16}))' -split-input-file | FileCheck %s --check-prefix=F16
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-reduce-precision{precision=bf16}))' -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-reduce-precision{precision=int4}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// An ungrouped channels-last conv and a matmul with a constant weight are
// marked; the depthwise conv, the product of two computed tensors and the
// dynamic matmul are not.
// CHECK-LABEL: func.func @marks
//       CHECK: kiln_kernel.conv_2d_nhwc {{.*}}kiln.compute_type = bf16
//       CHECK: kiln_kernel.conv_2d_nhwc
//   CHECK-NOT: kiln.compute_type
//  CHECK-SAME: -> tensor<1x4x4x8xf32>
//       CHECK: kiln_graph.MatMul {{.*}}kiln.compute_type = bf16
//       CHECK: kiln_graph.MatMul
//   CHECK-NOT: kiln.compute_type
//  CHECK-SAME: tensor<16x16xf32>
//       CHECK: kiln_graph.MatMul
//   CHECK-NOT: kiln.compute_type
//  CHECK-SAME: tensor<?x8xf32>
// F16-LABEL: func.func @marks
//       F16: kiln_kernel.conv_2d_nhwc {{.*}}kiln.compute_type = f16
// BAD: unknown precision 'int4' (bf16 or fp16)
// Remarks name the contractions that stay f32, and why.
// REMARK-DAG: remark: stays f32 under --precision bf16: depthwise convolutions are memory-bound
// REMARK-DAG: remark: stays f32 under --precision bf16: its weight is not a constant f32 matrix
// REMARK-DAG: remark: stays f32 under --precision bf16: it has dynamic dims
// REMARK-DAG: remark: stays f32 under --precision bf16: a Gemm with transA, or a C that is not one value per column
func.func @marks(%x: tensor<1x4x4x3xf32>, %a: tensor<16x8xf32>, %d: tensor<?x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<?x8xf32>) {
  %w = kiln_graph.Constant {value = dense<0.5> : tensor<1x1x3x8xf32>} : () -> tensor<1x1x3x8xf32>
  %c = kiln_kernel.conv_2d_nhwc %x, %w : (tensor<1x4x4x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x4x8xf32>
  %dw = kiln_graph.Constant {value = dense<0.5> : tensor<3x3x8xf32>} : () -> tensor<3x3x8xf32>
  %e = kiln_kernel.conv_2d_nhwc %c, %dw {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x8xf32>, tensor<3x3x8xf32>) -> tensor<1x4x4x8xf32>
  %m = kiln_graph.Constant {value = dense<0.25> : tensor<8x16xf32>} : () -> tensor<8x16xf32>
  %p = kiln_graph.MatMul %a, %m : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %t = kiln_graph.Transpose %p {perm = array<i64: 1, 0>} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = kiln_graph.MatMul %p, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %k = kiln_graph.Constant {value = dense<0.25> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
  %q = kiln_graph.MatMul %d, %k : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  return %e, %p, %s, %q : tensor<1x4x4x8xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<?x8xf32>
}

// -----

// Gemm: marked with transA = 0 and a per-column C; not with a matrix C.
// CHECK-LABEL: func.func @gemm
//       CHECK: kiln_graph.Gemm {{.*}}kiln.compute_type = bf16
//       CHECK: kiln_graph.Gemm
//   CHECK-NOT: kiln.compute_type
//  CHECK-SAME: tensor<4x6xf32>) -> tensor<4x6xf32>
func.func @gemm(%a: tensor<4x5xf32>, %cm: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %b = kiln_graph.Constant {value = dense<0.5> : tensor<6x5xf32>} : () -> tensor<6x5xf32>
  %c = kiln_graph.Constant {value = dense<0.1> : tensor<6xf32>} : () -> tensor<6xf32>
  %y = kiln_graph.Gemm %a, %b, %c {transB = 1 : i64} : (tensor<4x5xf32>, tensor<6x5xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %z = kiln_graph.Gemm %a, %b, %cm {transB = 1 : i64} : (tensor<4x5xf32>, tensor<6x5xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %y, %z : tensor<4x6xf32>, tensor<4x6xf32>
}
