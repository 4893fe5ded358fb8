// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// Variadic Max broadcasts every input into one generic.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @max3
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]], #[[ID]]]
// CHECK: arith.maximumf
// CHECK: arith.maximumf
func.func @max3(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln_graph.Max %a, %b, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Integer Mod with fmod = 0 takes the divisor's sign: the remainder is
// moved by the divisor where the two signs differ.
// CHECK-LABEL: func.func @mod_int
// CHECK: %[[R:.*]] = arith.remsi %[[X:.*]], %[[Y:.*]] : i32
// CHECK: %[[FIX:.*]] = arith.andi
// CHECK: %[[ADJ:.*]] = arith.addi %[[R]], %[[Y]]
// CHECK: arith.select %[[FIX]], %[[ADJ]], %[[R]]
func.func @mod_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = kiln_graph.Mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// fmod = 1 on floats is the C remainder.
// CHECK-LABEL: func.func @fmod
// CHECK: arith.remf
// CHECK-NOT: arith.select
func.func @fmod(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln_graph.Mod %a, %b {fmod = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Shifts of the bit width or more give 0.
// CHECK-LABEL: func.func @shift
// CHECK: %[[S:.*]] = arith.shrui %[[X:.*]], %[[N:.*]] : i8
// CHECK: %[[W:.*]] = arith.constant 8 : i8
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[N]], %[[W]]
// CHECK: arith.select %[[OK]], %[[S]]
func.func @shift(%a: tensor<3xui8>, %b: tensor<3xui8>) -> tensor<3xui8> {
  %0 = kiln_graph.BitShift %a, %b {direction = "RIGHT"} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

// Round halves to even; libm functions run in f32 for f16 inputs.
// CHECK-LABEL: func.func @round_sin
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[S:.*]] = math.sin %[[W]] : f32
// CHECK: arith.truncf %[[S]] : f32 to f16
func.func @round_sin(%a: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = kiln_graph.Round %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = kiln_graph.Sin %h : (tensor<4xf16>) -> tensor<4xf16>
  return %0, %1 : tensor<4xf32>, tensor<4xf16>
}

// -----

// IsInf with only positive detection compares with +inf alone.
// CHECK-LABEL: func.func @isinf_pos
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.ori
// CHECK: linalg.yield %{{.*}} : i1
func.func @isinf_pos(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = kiln_graph.IsInf %a {detect_negative = 0 : i64} : (tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
