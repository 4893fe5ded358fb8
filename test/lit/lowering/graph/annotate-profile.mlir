// RUN: kiln-opt %s --kiln-annotate-profile | FileCheck %s

// Each ONNX node (the first name of an op's location) gets its op type,
// what was fused into it and its FLOPs: Conv 2 * (1*8*8*8 outputs) *
// (4*3*3 weights each) = 36864; MatMul 2 * (2*5) * 3 = 60; a Gemm with
// transA reads K from A's first dim: 2 * (3*4) * 6 = 144; Relu has no count,
// a dynamic MatMul an unknown one (0).
// CHECK: module attributes {kiln.profile.nodes = {
// CHECK-SAME: conv1 = {flops = 3.686400e+04 : f64, fused = "Relu", op = "Conv"}
// CHECK-SAME: dyn = {flops = 0.000000e+00 : f64, fused = "", op = "MatMul"}
// CHECK-SAME: fc = {flops = 6.000000e+01 : f64, fused = "bias+Tanh", op = "MatMul"}
// CHECK-SAME: gemm = {flops = 1.440000e+02 : f64, fused = "", op = "Gemm"}
// CHECK-SAME: relu2 = {flops = 0.000000e+00 : f64, fused = "", op = "Relu"}
// CHECK-SAME: }}
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>,
                %a: tensor<2x3xf32>, %m: tensor<3x5xf32>, %bias: tensor<5xf32>,
                %ga: tensor<6x3xf32>, %gb: tensor<6x4xf32>, %d: tensor<?x3xf32>) -> (tensor<1x8x8x8xf32>, tensor<2x5xf32>, tensor<3x4xf32>, tensor<?x5xf32>) {
  %c = kiln_graph.FusedConv %x, %w, %b {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("conv1")
  %r = kiln_graph.Relu %c : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("relu2")
  %f = kiln_graph.FusedMatMul %a, %m, %bias {activation = "Tanh"} : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<5xf32>) -> tensor<2x5xf32> loc("fc")
  %n = kiln_graph.NoValue : none
  %g = kiln_graph.Gemm %ga, %gb, %n {transA = 1} : (tensor<6x3xf32>, tensor<6x4xf32>, none) -> tensor<3x4xf32> loc("gemm")
  %y = kiln_graph.MatMul %d, %m : (tensor<?x3xf32>, tensor<3x5xf32>) -> tensor<?x5xf32> loc("dyn")
  return %r, %f, %g, %y : tensor<1x8x8x8xf32>, tensor<2x5xf32>, tensor<3x4xf32>, tensor<?x5xf32>
}
