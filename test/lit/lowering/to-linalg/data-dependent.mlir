// RUN: kiln-opt %s --convert-graph-to-linalg -split-input-file | FileCheck %s

// NonZero counts the non-zero elements first, allocates [rank, count] and
// writes each one's row-major coordinates (guarded by the count) in a
// second pass.
// CHECK-LABEL: func.func @nonzero
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[COUNT:.*]] = scf.for {{.*}} -> (index)
// CHECK: arith.cmpf une
// CHECK: %[[OUT:.*]] = tensor.empty(%[[COUNT]]) : tensor<2x?xi64>
// CHECK: scf.for {{.*}} -> (tensor<2x?xi64>, index)
// CHECK: %[[ROOM:.*]] = arith.cmpi slt, %{{.*}}, %[[COUNT]] : index
// CHECK: scf.if
// CHECK: arith.remui
// CHECK: tensor.insert
// CHECK: tensor.insert
func.func @nonzero(%x: tensor<2x3xf32>) -> tensor<2x?xi64> {
  %0 = kiln_graph.NonZero %x : (tensor<2x3xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// Compress along an axis: selected slices, counted over the first
// min(len(condition), extent) entries, copied into a flat result that is
// expanded to [outer, count, inner].
// CHECK-LABEL: func.func @compress
// CHECK: %[[LEN:.*]] = arith.minsi %c4, %c5 : index
// CHECK: %[[COUNT:.*]] = scf.for %{{.*}} = %{{.*}} to %[[LEN]]
// CHECK: tensor.extract %arg1[%{{.*}}] : tensor<4xi1>
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: scf.for
// CHECK: scf.if
// CHECK: tensor.insert %{{.*}} : tensor<?xf32>
// CHECK: tensor.expand_shape %{{.*}} output_shape [3, %[[COUNT]]] : tensor<?xf32> into tensor<3x?xf32>
func.func @compress(%x: tensor<3x5xf32>, %c: tensor<4xi1>) -> tensor<3x?xf32> {
  %0 = kiln_graph.Compress %x, %c {axis = 1 : si64} : (tensor<3x5xf32>, tensor<4xi1>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// Unique: each item's first occurrence (a lexicographic comparison over the
// item's elements), the distinct count, each distinct item's rank, then one
// pass writing Y, indices, inverse_indices and counts. inverse_indices keeps
// its static extent (one per input element).
// CHECK-LABEL: func.func @unique
// CHECK: %[[FIRSTS:.*]] = scf.for {{.*}} -> (tensor<?xindex>)
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK: %[[U:.*]] = scf.for {{.*}} -> (index)
// CHECK: %[[RANKS:.*]] = scf.for {{.*}} -> (tensor<?xindex>)
// CHECK: tensor.empty(%{{.*}}) : tensor<?xi64>
// CHECK: tensor.empty() : tensor<6xi64>
// CHECK: %[[R:.*]]:4 = scf.for {{.*}} -> (tensor<?xi64>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3
func.func @unique(%x: tensor<6xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>) {
  %y, %i, %v, %n = kiln_graph.Unique %x : (tensor<6xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return %y, %i, %v, %n : tensor<?xi64>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>
}

// -----

// NonMaxSuppression: a scratch of batch * classes * boxes rows; per class
// the boxes in descending score order, kept unless a kept one overlaps by
// more than the threshold (IoU from clamped intersections); the result
// holds the rows written. No score threshold was given: no score test.
// CHECK-LABEL: func.func @nms
// CHECK: %[[MAX:.*]] = tensor.extract %arg2[%{{.*}}] : tensor<1xi64>
// CHECK: %[[SCRATCH:.*]] = linalg.fill {{.*}} -> tensor<?x3xi64>
// CHECK: %[[KEPT:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[SCRATCH]]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.divf
// CHECK-NOT: arith.cmpf ogt, %extracted{{.*}}, %cst
// CHECK: %[[OUT:.*]] = tensor.empty(%[[KEPT]]#1) : tensor<?x3xi64>
// CHECK: scf.for
// CHECK: tensor.insert %{{.*}} : tensor<?x3xi64>
func.func @nms(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>, %m: tensor<1xi64>) -> tensor<?x3xi64> {
  %none = kiln_graph.NoValue : none
  %0 = kiln_graph.NonMaxSuppression %b, %s, %m, %none, %none : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

// TopK with K an input: K is read at run time and clamped to [0, axis
// extent]; it sizes both results and bounds the ranks written.
// CHECK-LABEL: func.func @topk_runtime_k
// CHECK: %[[KV:.*]] = tensor.extract %arg1[%{{.*}}] : tensor<1xi64>
// CHECK: %[[LO:.*]] = arith.maxsi %[[KV]], %{{.*}} : i64
// CHECK: %[[K:.*]] = arith.minsi %[[LO]], %{{.*}} : i64
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: tensor.empty(%[[KI]]) : tensor<3x?xf32>
// CHECK: tensor.empty(%[[KI]]) : tensor<3x?xi64>
// CHECK: arith.cmpi slt, %{{.*}}, %[[K]] : i64
func.func @topk_runtime_k(%x: tensor<3x6xf32>, %k: tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>) {
  %v, %i = kiln_graph.TopK %x, %k : (tensor<3x6xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return %v, %i : tensor<3x?xf32>, tensor<3x?xi64>
}
