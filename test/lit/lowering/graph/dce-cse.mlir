// The graph pipeline (canonicalize, kiln-fold-constants, kiln-fold-batchnorm,
// kiln-refine-shapes, cse): kiln_graph ops are Pure, so unused ones are
// erased and identical ones merged.
// RUN: kiln-opt %s --pass-pipeline='builtin.module(canonicalize, func.func(kiln-fold-constants, kiln-fold-batchnorm, kiln-refine-shapes), cse)' | FileCheck %s

// CHECK-LABEL: func.func @dead_ops
// CHECK-NOT:     kiln_graph.Relu
// CHECK-NOT:     kiln_graph.Conv
// CHECK-NOT:     kiln_graph.Constant
// CHECK:         %[[Y:.*]] = kiln_graph.Sigmoid %arg0
// CHECK-NEXT:    return %[[Y]]
func.func @dead_ops(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = kiln_graph.Constant {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = kiln_graph.NoValue : none
  %dead_conv = kiln_graph.Conv %x, %w, %n : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %dead_relu = kiln_graph.Relu %dead_conv : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = kiln_graph.Sigmoid %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// Duplicate constants, convs and activations are merged; a conv with other
// attributes is not.
// CHECK-LABEL: func.func @duplicates
// CHECK-COUNT-1: kiln_graph.Constant
// CHECK-NOT:     kiln_graph.Constant
// CHECK:         %[[C:.*]] = kiln_graph.Conv %arg0, %{{.*}}, %{{.*}} :
// CHECK-NEXT:    %[[S:.*]] = kiln_graph.Conv %arg0, %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>}
// CHECK-NEXT:    %[[R:.*]] = kiln_graph.Relu %[[C]]
// CHECK-NEXT:    %[[A:.*]] = kiln_graph.Add %[[R]], %[[R]]
// CHECK-NEXT:    return %[[A]], %[[S]]
func.func @duplicates(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) {
  %w1 = kiln_graph.Constant {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %w2 = kiln_graph.Constant {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n1 = kiln_graph.NoValue : none
  %n2 = kiln_graph.NoValue : none
  %c1 = kiln_graph.Conv %x, %w1, %n1 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %c2 = kiln_graph.Conv %x, %w2, %n2 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %s = kiln_graph.Conv %x, %w1, %n1 {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x2x2xf32>
  %r1 = kiln_graph.Relu %c1 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r2 = kiln_graph.Relu %c2 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = kiln_graph.Add %r1, %r2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y, %s : tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>
}

// After folding, the original weight blob, the BN parameters and the weight
// preprocessing are dead and erased; only the folded weight and bias remain.
// The weight is Transpose(blob [1, 2, 3, 4] as [1, 1, 2, 2]) = [1, 3, 2, 4]
// scaled by s = 2 / sqrt(3 + 1) = 1, with t = B - mean * s = 1 - 2 = -1.
// CHECK-LABEL: func.func @folded_graph
// CHECK-DAG:     %[[W:.*]] = kiln_graph.Constant {value = dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf32>}
// CHECK-DAG:     %[[B:.*]] = kiln_graph.Constant {value = dense<-1.000000e+00> : tensor<1xf32>}
// CHECK-NEXT:    %[[Y:.*]] = kiln_graph.Conv %arg0, %[[W]], %[[B]]
// CHECK-NEXT:    return %[[Y]]
// CHECK-NOT:     dense_resource
func.func @folded_graph(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %raw = kiln_graph.Constant {value = dense_resource<w4> : tensor<1x1x2x2xf32>} : () -> tensor<1x1x2x2xf32>
  %w = kiln_graph.Transpose %raw {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %n = kiln_graph.NoValue : none
  %scale = kiln_graph.Constant {value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %b = kiln_graph.Constant {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %mean = kiln_graph.Constant {value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %var = kiln_graph.Constant {value = dense<3.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = kiln_graph.Conv %x, %w, %n : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>, none) -> tensor<1x1x3x3xf32>
  %y = kiln_graph.BatchNormalization %c, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x1x3x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w4: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
