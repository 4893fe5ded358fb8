// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// Per-tensor QuantizeLinear to uint8: divide, round half to even, add the
// zero point, saturate to [0, 255], convert unsigned.
// CHECK-LABEL: func.func @quantize
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[S:.*]], #[[S]], #{{.*}}]
// CHECK: %[[Q:.*]] = arith.divf
// CHECK: %[[R:.*]] = math.roundeven %[[Q]]
// CHECK: %[[Z:.*]] = arith.uitofp
// CHECK: %[[A:.*]] = arith.addf %[[R]], %[[Z]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[LO:.*]] = arith.maximumf %[[A]], %[[ZERO]]
// CHECK: %[[MAX:.*]] = arith.constant 2.550000e+02 : f32
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]], %[[MAX]]
// CHECK: arith.fptoui %[[HI]] : f32 to i8
func.func @quantize(%x: tensor<6xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<6xui8> {
  %0 = kiln_graph.QuantizeLinear %x, %s, %z : (tensor<6xf32>, tensor<f32>, tensor<ui8>) -> tensor<6xui8>
  return %0 : tensor<6xui8>
}

// -----

// CHECK: #[[AXISMAP:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// Per-axis DequantizeLinear reads the scale and zero point along axis 1;
// the difference is taken in i64.
// CHECK-LABEL: func.func @dequantize_axis
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[AXISMAP]], #[[AXISMAP]], #{{.*}}]
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.subi
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.mulf
func.func @dequantize_axis(%x: tensor<1x3x2xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<1x3x2xf32> {
  %0 = kiln_graph.DequantizeLinear %x, %s, %z : (tensor<1x3x2xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<1x3x2xf32>
  return %0 : tensor<1x3x2xf32>
}
