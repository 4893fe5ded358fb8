// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @identity_removed
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NOT: kiln_graph.Identity
// CHECK: return %[[X]]
func.func @identity_removed(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = kiln_graph.Identity %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = kiln_graph.Identity %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// An Identity that refines the type stays: folding it would change the type
// its users see.
// CHECK-LABEL: func.func @identity_refining_kept
// CHECK: kiln_graph.Identity %{{.*}} : (tensor<?x4xf32>) -> tensor<2x4xf32>
func.func @identity_refining_kept(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = kiln_graph.Identity %x : (tensor<?x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @shape_of_static
// CHECK-NOT: kiln_graph.Shape
// CHECK-DAG: %[[A:.*]] = kiln_graph.Constant {value = dense<[2, 3, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
// CHECK-DAG: %[[B:.*]] = kiln_graph.Constant {value = dense<[3, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
// CHECK-DAG: %[[C:.*]] = kiln_graph.Constant {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @shape_of_static(%x: tensor<2x3x4xf32>) -> (tensor<3xi64>, tensor<2xi64>, tensor<0xi64>) {
  %0 = kiln_graph.Shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %1 = kiln_graph.Shape %x {start = -2 : si64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  %2 = kiln_graph.Shape %x {start = 2 : si64, end = 1 : si64} : (tensor<2x3x4xf32>) -> tensor<0xi64>
  return %0, %1, %2 : tensor<3xi64>, tensor<2xi64>, tensor<0xi64>
}

// -----

// Only the selected dims need to be static.
// CHECK-LABEL: func.func @shape_of_partly_dynamic
// CHECK: %[[C:.*]] = kiln_graph.Constant {value = dense<[3, 4]> : tensor<2xi64>}
// CHECK: %[[S:.*]] = kiln_graph.Shape %{{.*}} : (tensor<?x3x4xf32>) -> tensor<3xi64>
// CHECK: return %[[C]], %[[S]]
func.func @shape_of_partly_dynamic(%x: tensor<?x3x4xf32>) -> (tensor<2xi64>, tensor<3xi64>) {
  %0 = kiln_graph.Shape %x {start = 1 : si64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %1 = kiln_graph.Shape %x : (tensor<?x3x4xf32>) -> tensor<3xi64>
  return %0, %1 : tensor<2xi64>, tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @reshape_of_constant
// CHECK-NOT: kiln_graph.Reshape
// CHECK: %[[C:.*]] = kiln_graph.Constant {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>}
// CHECK: return %[[C]]
func.func @reshape_of_constant() -> tensor<2x3xf32> {
  %c = kiln_graph.Constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>} : () -> tensor<6xf32>
  %s = kiln_graph.Constant {value = dense<[2, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = kiln_graph.Reshape %c, %s : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_noop
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>
// CHECK-NOT: kiln_graph.Reshape
// CHECK: return %[[X]]
func.func @reshape_noop(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = kiln_graph.Reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_dynamic_kept
// CHECK: kiln_graph.Reshape
func.func @reshape_dynamic_kept(%x: tensor<?x3xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %0 = kiln_graph.Reshape %x, %s : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @cast_noop
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NOT: kiln_graph.Cast %[[X]]
// CHECK: %[[H:.*]] = kiln_graph.Cast %[[X]] {to = 10 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf16>
// CHECK: return %[[X]], %[[H]]
func.func @cast_noop(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf16>) {
  %0 = kiln_graph.Cast %x {to = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = kiln_graph.Cast %0 {to = 10 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf16>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf16>
}

// -----

// CHECK-LABEL: func.func @novalue_and_constant_cse
// CHECK: %[[N:.*]] = kiln_graph.NoValue : none
// CHECK-NOT: kiln_graph.NoValue
// CHECK: %[[C:.*]] = kiln_graph.Constant {value = dense<1.000000e+00> : tensor<4xf32>}
// CHECK-NOT: kiln_graph.Constant
// CHECK: kiln_graph.Gemm %{{.*}}, %{{.*}}, %[[N]]
// CHECK: kiln_graph.Gemm %{{.*}}, %{{.*}}, %[[N]]
// CHECK: kiln_graph.Add %[[C]], %[[C]]
func.func @novalue_and_constant_cse(%a: tensor<2x4xf32>, %b: tensor<4x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>) {
  %n0 = kiln_graph.NoValue : none
  %n1 = kiln_graph.NoValue : none
  %c0 = kiln_graph.Constant {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %c1 = kiln_graph.Constant {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = kiln_graph.Gemm %a, %b, %n0 : (tensor<2x4xf32>, tensor<4x4xf32>, none) -> tensor<2x4xf32>
  %1 = kiln_graph.Gemm %a, %b, %n1 : (tensor<2x4xf32>, tensor<4x4xf32>, none) -> tensor<2x4xf32>
  %2 = kiln_graph.Add %c0, %c1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unused_ops_erased
// CHECK-NEXT: return
func.func @unused_ops_erased(%x: tensor<?x4xf32>) {
  %n = kiln_graph.NoValue : none
  %0 = kiln_graph.Relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

// Shape arithmetic of the LayerNormalization function body: Neg, Size and
// ConstantOfShape of constants fold.
// CHECK-LABEL: func.func @shape_arith_folds
// CHECK-DAG: %[[ONES:.*]] = kiln_graph.Constant {value = dense<1> : tensor<2xi64>}
// CHECK-DAG: %[[SIZE:.*]] = kiln_graph.Constant {value = dense<6> : tensor<i64>}
// CHECK: return %[[ONES]], %[[SIZE]]
func.func @shape_arith_folds(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<i64>) {
  %c = kiln_graph.Constant {value = dense<-2> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = kiln_graph.Neg %c : (tensor<1xi64>) -> tensor<1xi64>
  %o = kiln_graph.ConstantOfShape %n {value = dense<1> : tensor<1xi64>} : (tensor<1xi64>) -> tensor<2xi64>
  %s = kiln_graph.Size %x : (tensor<2x3xf32>) -> tensor<i64>
  return %o, %s : tensor<2xi64>, tensor<i64>
}

// -----

// Swin's window padding: (W - W % w) % w with ONNX Mod (the divisor's sign
// when fmod = 0, the dividend's when fmod = 1), then pads reordered by a
// reversed Slice and a Transpose of the [4, 2] pad matrix.
// CHECK-LABEL: func.func @window_pad_arith
// CHECK-NOT: kiln_graph.Mod
// CHECK-NOT: kiln_graph.Slice
// CHECK-NOT: kiln_graph.Transpose
// CHECK-DAG: kiln_graph.Constant {value = dense<[2, -3, 3, -2]> : tensor<4xi64>}
// CHECK-DAG: kiln_graph.Constant {value = dense<[2, 2, -2, -2]> : tensor<4xi64>}
// CHECK-DAG: kiln_graph.Constant {value = dense<{{\[}}[6, 4, 2, 0], [7, 5, 3, 1]]> : tensor<2x4xi64>}
func.func @window_pad_arith() -> (tensor<4xi64>, tensor<4xi64>, tensor<2x4xi64>) {
  %a = kiln_graph.Constant {value = dense<[7, 7, -7, -7]> : tensor<4xi64>} : () -> tensor<4xi64>
  %b = kiln_graph.Constant {value = dense<[5, -5, 5, -5]> : tensor<4xi64>} : () -> tensor<4xi64>
  %py = kiln_graph.Mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %c = kiln_graph.Mod %a, %b {fmod = 1 : i64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %m = kiln_graph.Constant {value = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>} : () -> tensor<4x2xi64>
  %start = kiln_graph.Constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = kiln_graph.Constant {value = dense<-9223372036854775807> : tensor<1xi64>} : () -> tensor<1xi64>
  %axis = kiln_graph.Constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %rev = kiln_graph.Slice %m, %start, %end, %axis, %start : (tensor<4x2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x2xi64>
  %t = kiln_graph.Transpose %rev {perm = array<i64: 1, 0>} : (tensor<4x2xi64>) -> tensor<2x4xi64>
  return %py, %c, %t : tensor<4xi64>, tensor<4xi64>, tensor<2x4xi64>
}

// -----

// A division by zero is left to run time.
// CHECK-LABEL: func.func @mod_by_zero_kept
// CHECK: kiln_graph.Mod
func.func @mod_by_zero_kept() -> tensor<i64> {
  %a = kiln_graph.Constant {value = dense<7> : tensor<i64>} : () -> tensor<i64>
  %z = kiln_graph.Constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %r = kiln_graph.Mod %a, %z : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}

// -----

// Expand's shape computed as Where(Equal(shape, -1), ones, shape).
// CHECK-LABEL: func.func @where_equal
// CHECK-NOT: kiln_graph.Equal
// CHECK-NOT: kiln_graph.Where
// CHECK: kiln_graph.Constant {value = dense<[1, 49]> : tensor<2xi64>}
func.func @where_equal() -> tensor<2xi64> {
  %s = kiln_graph.Constant {value = dense<[-1, 49]> : tensor<2xi64>} : () -> tensor<2xi64>
  %m1 = kiln_graph.Constant {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %one = kiln_graph.Constant {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  %eq = kiln_graph.Equal %s, %m1 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi1>
  %r = kiln_graph.Where %eq, %one, %s : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
