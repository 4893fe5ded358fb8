// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-share-concat-prefixes))' | FileCheck %s

// A DenseNet block: each concat takes every earlier feature map again; each
// then takes the previous concat and its own new input.
// CHECK-LABEL: func.func @dense_block
//       CHECK: %[[C1:.*]] = kiln_graph.Concat %arg0, %arg1 {axis = 1 : si64}
//       CHECK: %[[C2:.*]] = kiln_graph.Concat %[[C1]], %arg2 {axis = 1 : si64} : (tensor<1x5x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x7x2x2xf32>
//       CHECK: %[[C3:.*]] = kiln_graph.Concat %[[C2]], %arg3 {axis = 1 : si64} : (tensor<1x7x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x9x2x2xf32>
//       CHECK: return %[[C1]], %[[C2]], %[[C3]]
func.func @dense_block(%a: tensor<1x3x2x2xf32>, %b: tensor<1x2x2x2xf32>, %c: tensor<1x2x2x2xf32>, %d: tensor<1x2x2x2xf32>) -> (tensor<1x5x2x2xf32>, tensor<1x7x2x2xf32>, tensor<1x9x2x2xf32>) {
  %0 = kiln_graph.Concat %a, %b {axis = 1 : si64} : (tensor<1x3x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x5x2x2xf32>
  %1 = kiln_graph.Concat %a, %b, %c {axis = 1 : si64} : (tensor<1x3x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x7x2x2xf32>
  %2 = kiln_graph.Concat %a, %b, %c, %d {axis = 1 : si64} : (tensor<1x3x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x9x2x2xf32>
  return %0, %1, %2 : tensor<1x5x2x2xf32>, tensor<1x7x2x2xf32>, tensor<1x9x2x2xf32>
}

// No prefix for %1 (another axis, then inputs in another order) nor for %2
// (the matching concat comes later); %4 takes %3, not the equal %2, which
// has all of its inputs (nothing would be left to add).
// CHECK-LABEL: func.func @no_prefix
//       CHECK: kiln_graph.Concat %arg0, %arg1 {axis = 0 : si64}
//       CHECK: kiln_graph.Concat %arg1, %arg0, %arg2 {axis = 1 : si64}
//       CHECK: kiln_graph.Concat %arg0, %arg1, %arg2 {axis = 1 : si64}
//       CHECK: %[[P:.*]] = kiln_graph.Concat %arg0, %arg1 {axis = 1 : si64}
//       CHECK: kiln_graph.Concat %[[P]], %arg2 {axis = 1 : si64}
func.func @no_prefix(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x2xf32>) -> (tensor<4x2xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x4xf32>, tensor<2x6xf32>) {
  %0 = kiln_graph.Concat %a, %b {axis = 0 : si64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %1 = kiln_graph.Concat %b, %a, %c {axis = 1 : si64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  %2 = kiln_graph.Concat %a, %b, %c {axis = 1 : si64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  %3 = kiln_graph.Concat %a, %b {axis = 1 : si64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
  %4 = kiln_graph.Concat %a, %b, %c {axis = 1 : si64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0, %1, %2, %3, %4 : tensor<4x2xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x4xf32>, tensor<2x6xf32>
}
