// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @constant_identity
// CHECK: %[[C:.*]] = arith.constant dense<[1, 2]> : tensor<2xi8>
// CHECK: return %[[C]]
func.func @constant_identity() -> tensor<2xui8> {
  %c = kiln_graph.Constant {value = dense<[1, 2]> : tensor<2xui8>} : () -> tensor<2xui8>
  %i = kiln_graph.Identity %c : (tensor<2xui8>) -> tensor<2xui8>
  return %i : tensor<2xui8>
}

// -----

// Broadcasting with a dynamic batch dim: the size comes from the full input.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @add_bcast
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0
// CHECK: tensor.empty(%[[D]]) : tensor<?x3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: arith.addf
func.func @add_bcast(%a: tensor<?x3x4xf32>, %b: tensor<4xf32>) -> tensor<?x3x4xf32> {
  %0 = kiln_graph.Add %a, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @int_arith
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.divsi
// CHECK: arith.divui
func.func @int_arith(%a: tensor<4xi32>, %b: tensor<4xi32>, %u: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xui8>) {
  %0 = kiln_graph.Sub %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = kiln_graph.Mul %0, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = kiln_graph.Div %1, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = kiln_graph.Div %u, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %2, %3 : tensor<4xi32>, tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @pow
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: math.powf
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: math.powf %{{.*}}, %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i32
// CHECK: scf.while
// CHECK: arith.shrui
func.func @pow(%f: tensor<3xf32>, %i: tensor<3xi64>, %j: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>) {
  %0 = kiln_graph.Pow %f, %f : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln_graph.Pow %f, %i : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  %2 = kiln_graph.Pow %j, %f : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xi32>
  %3 = kiln_graph.Pow %j, %j : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @compare_where
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi ugt
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i1
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @compare_where(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<3xi16>, %u: tensor<3xui32>) -> (tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xf32>) {
  %0 = kiln_graph.Equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = kiln_graph.Less %i, %i : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi1>
  %2 = kiln_graph.Greater %u, %u : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>
  %3 = kiln_graph.Equal %1, %2 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %4 = kiln_graph.Where %0, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %3, %4 : tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK: arith.maximumf
// CHECK: arith.maxsi
// CHECK: arith.negf
// CHECK: arith.subi
// CHECK: math.absf
// CHECK: math.absi
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.erf
func.func @unary(%x: tensor<?x8xf32>, %i: tensor<?x8xi32>) -> (tensor<?x8xf32>, tensor<?x8xi32>) {
  %0 = kiln_graph.Relu %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = kiln_graph.Relu %i : (tensor<?x8xi32>) -> tensor<?x8xi32>
  %2 = kiln_graph.Neg %0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = kiln_graph.Neg %1 : (tensor<?x8xi32>) -> tensor<?x8xi32>
  %4 = kiln_graph.Abs %2 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %5 = kiln_graph.Abs %3 : (tensor<?x8xi32>) -> tensor<?x8xi32>
  %6 = kiln_graph.Sigmoid %4 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %7 = kiln_graph.Tanh %6 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %8 = kiln_graph.Exp %7 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %9 = kiln_graph.Log %8 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %10 = kiln_graph.Sqrt %9 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %11 = kiln_graph.Erf %10 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %11, %5 : tensor<?x8xf32>, tensor<?x8xi32>
}

// -----

// Unsigned Relu and Abs are the identity.
// CHECK-LABEL: func.func @unsigned_unary
// CHECK-NOT: arith.max
// CHECK-NOT: math.absi
// CHECK: return
func.func @unsigned_unary(%u: tensor<4xui8>) -> tensor<4xui8> {
  %0 = kiln_graph.Relu %u : (tensor<4xui8>) -> tensor<4xui8>
  %1 = kiln_graph.Abs %0 : (tensor<4xui8>) -> tensor<4xui8>
  return %1 : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK: arith.cmpf olt
// CHECK: arith.mulf
// CHECK: arith.select
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.erf
// CHECK: math.tanh
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: math.erf %[[W]] : f32
func.func @activations(%x: tensor<5xf32>, %h: tensor<5xf16>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf16>) {
  %0 = kiln_graph.LeakyRelu %x {alpha = 0.1 : f32} : (tensor<5xf32>) -> tensor<5xf32>
  %1 = kiln_graph.HardSigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : (tensor<5xf32>) -> tensor<5xf32>
  %2 = kiln_graph.Gelu %x : (tensor<5xf32>) -> tensor<5xf32>
  %3 = kiln_graph.Gelu %x {approximate = "tanh"} : (tensor<5xf32>) -> tensor<5xf32>
  %4 = kiln_graph.Erf %h : (tensor<5xf16>) -> tensor<5xf16>
  return %0, %1, %2, %3, %4 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf16>
}

// -----

// Absent bounds are dropped from the generic's inputs.
// CHECK-LABEL: func.func @clip
// CHECK: linalg.generic {{.*}} ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} : tensor<3x4xf32>, tensor<f32>, tensor<f32>)
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: linalg.generic {{.*}} ins(%{{[^,]*}}, %{{[^,]*}} : tensor<3xi8>, tensor<i8>)
// CHECK: arith.minsi
// CHECK: arith.maxui
func.func @clip(%x: tensor<3x4xf32>, %lo: tensor<f32>, %hi: tensor<f32>, %i: tensor<3xi8>, %ihi: tensor<i8>, %u: tensor<3xui8>, %ulo: tensor<ui8>) -> (tensor<3x4xf32>, tensor<3xi8>, tensor<3xui8>) {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.Clip %x, %lo, %hi : (tensor<3x4xf32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
  %1 = kiln_graph.Clip %i, %none, %ihi : (tensor<3xi8>, none, tensor<i8>) -> tensor<3xi8>
  %2 = kiln_graph.Clip %u, %ulo, %none : (tensor<3xui8>, tensor<ui8>, none) -> tensor<3xui8>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<3xi8>, tensor<3xui8>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.cmpf une
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.extui %{{.*}} : i16 to i64
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: arith.cmpi ne
// CHECK: arith.uitofp %{{.*}} : i16 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @cast(%f: tensor<2xf32>, %u: tensor<2xui16>, %i: tensor<2xi32>, %d: tensor<2xf64>, %h: tensor<2xf16>) -> (tensor<2xi32>, tensor<2xui8>, tensor<2xi1>, tensor<2xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi8>, tensor<2xi1>, tensor<2xf64>, tensor<2xf16>, tensor<2xbf16>) {
  %0 = kiln_graph.Cast %f {to = 6 : i64} : (tensor<2xf32>) -> tensor<2xi32>
  %1 = kiln_graph.Cast %f {to = 2 : i64} : (tensor<2xf32>) -> tensor<2xui8>
  %2 = kiln_graph.Cast %f {to = 9 : i64} : (tensor<2xf32>) -> tensor<2xi1>
  %3 = kiln_graph.Cast %2 {to = 1 : i64} : (tensor<2xi1>) -> tensor<2xf32>
  %4 = kiln_graph.Cast %u {to = 7 : i64} : (tensor<2xui16>) -> tensor<2xi64>
  %5 = kiln_graph.Cast %i {to = 7 : i64} : (tensor<2xi32>) -> tensor<2xi64>
  %6 = kiln_graph.Cast %5 {to = 3 : i64} : (tensor<2xi64>) -> tensor<2xi8>
  %7 = kiln_graph.Cast %i {to = 9 : i64} : (tensor<2xi32>) -> tensor<2xi1>
  %8 = kiln_graph.Cast %u {to = 11 : i64} : (tensor<2xui16>) -> tensor<2xf64>
  %9 = kiln_graph.Cast %d {to = 10 : i64} : (tensor<2xf64>) -> tensor<2xf16>
  %10 = kiln_graph.Cast %h {to = 16 : i64} : (tensor<2xf16>) -> tensor<2xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<2xi32>, tensor<2xui8>, tensor<2xi1>, tensor<2xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi8>, tensor<2xi1>, tensor<2xf64>, tensor<2xf16>, tensor<2xbf16>
}

// -----

// Unknown Gelu approximations are left for the driver to report.
func.func @gelu_unknown(%x: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{failed to legalize operation 'kiln_graph.Gelu'}}
  %0 = kiln_graph.Gelu %x {approximate = "fast"} : (tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
