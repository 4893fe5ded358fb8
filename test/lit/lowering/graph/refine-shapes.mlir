// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-refine-shapes))' | FileCheck %s

// The exporter's flatten idiom: the target shape is computed from Shape of a
// static tensor. Folding makes it constant and the result types static,
// including the function's.

// CHECK-LABEL: func.func @flatten_idiom
// CHECK-SAME:    -> tensor<1x2xf32>
// CHECK-NOT:     kiln_graph.Shape
// CHECK-NOT:     kiln_graph.Concat
// CHECK:         %[[SHAPE:.*]] = kiln_graph.Constant {{.*}}dense<[1, -1]> : tensor<2xi64>
// CHECK:         kiln_graph.Reshape %{{.*}}, %[[SHAPE]] : (tensor<1x8x1x1xf32>, tensor<2xi64>) -> tensor<1x8xf32>
// CHECK:         kiln_graph.MatMul {{.*}} -> tensor<1x2xf32>
func.func @flatten_idiom(%x: tensor<1x8x1x1xf32>, %w: tensor<8x2xf32>) -> tensor<?x2xf32> {
  %shape = kiln_graph.Shape %x : (tensor<1x8x1x1xf32>) -> tensor<4xi64>
  %s32 = kiln_graph.Cast %shape {to = 6 : i64} : (tensor<4xi64>) -> tensor<4xi32>
  %starts = kiln_graph.Constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = kiln_graph.Constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = kiln_graph.NoValue : none
  %batch = kiln_graph.Slice %s32, %starts, %ends, %n, %n : (tensor<4xi32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<1xi32>
  %b64 = kiln_graph.Cast %batch {to = 7 : i64} : (tensor<1xi32>) -> tensor<1xi64>
  %rest = kiln_graph.Constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %target = kiln_graph.Concat %b64, %rest {axis = 0 : si64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %flat = kiln_graph.Reshape %x, %target : (tensor<1x8x1x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %y = kiln_graph.MatMul %flat, %w : (tensor<?x?xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// Integer arithmetic and Gather/Unsqueeze on shape vectors fold too.
// CHECK-LABEL: func.func @shape_arith
// CHECK:         %[[C:.*]] = kiln_graph.Constant {{.*}}dense<[3, 20]> : tensor<2xi64>
// CHECK:         kiln_graph.Reshape %{{.*}}, %[[C]] {{.*}} -> tensor<3x20xf32>
func.func @shape_arith(%x: tensor<3x4x5xf32>) -> tensor<?x?xf32> {
  %shape = kiln_graph.Shape %x : (tensor<3x4x5xf32>) -> tensor<3xi64>
  %i0 = kiln_graph.Constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = kiln_graph.Constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %i2 = kiln_graph.Constant {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %d0 = kiln_graph.Gather %shape, %i0 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %d1 = kiln_graph.Gather %shape, %i1 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %d2 = kiln_graph.Gather %shape, %i2 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %prod = kiln_graph.Mul %d1, %d2 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %axes = kiln_graph.Constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %u0 = kiln_graph.Unsqueeze %d0, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %u1 = kiln_graph.Unsqueeze %prod, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %target = kiln_graph.Concat %u0, %u1 {axis = 0 : si64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = kiln_graph.Reshape %x, %target : (tensor<3x4x5xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Each block reshapes to a shape read off the block before it (Swin's window
// partitions): one round of folding per block, more than a fixed number of
// rounds would reach.
// CHECK-LABEL: func.func @long_shape_chain
// CHECK-SAME:    -> tensor<2x3x4xf32>
// CHECK-NOT:     kiln_graph.Shape
// CHECK-NOT:     tensor<?
func.func @long_shape_chain(%x0: tensor<2x3x4xf32>) -> tensor<?x?x?xf32> {
  %s1 = kiln_graph.Shape %x0 : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %x1 = kiln_graph.Reshape %x0, %s1 : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s2 = kiln_graph.Shape %x1 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x2 = kiln_graph.Reshape %x1, %s2 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s3 = kiln_graph.Shape %x2 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x3 = kiln_graph.Reshape %x2, %s3 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s4 = kiln_graph.Shape %x3 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x4 = kiln_graph.Reshape %x3, %s4 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s5 = kiln_graph.Shape %x4 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x5 = kiln_graph.Reshape %x4, %s5 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s6 = kiln_graph.Shape %x5 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x6 = kiln_graph.Reshape %x5, %s6 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s7 = kiln_graph.Shape %x6 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x7 = kiln_graph.Reshape %x6, %s7 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s8 = kiln_graph.Shape %x7 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x8 = kiln_graph.Reshape %x7, %s8 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s9 = kiln_graph.Shape %x8 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x9 = kiln_graph.Reshape %x8, %s9 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s10 = kiln_graph.Shape %x9 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x10 = kiln_graph.Reshape %x9, %s10 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s11 = kiln_graph.Shape %x10 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x11 = kiln_graph.Reshape %x10, %s11 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %s12 = kiln_graph.Shape %x11 : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %x12 = kiln_graph.Reshape %x11, %s12 : (tensor<?x?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %x12 : tensor<?x?x?xf32>
}
