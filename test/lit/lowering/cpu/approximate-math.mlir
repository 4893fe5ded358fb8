// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-approximate-math))' | FileCheck %s

// f32 transcendentals become inline arithmetic, scalar or vector.
// CHECK-LABEL: func.func @approximated
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.fma
// CHECK: return
func.func @approximated(%x: f32, %v: vector<16xf32>) -> (f32, vector<16xf32>, f32) {
  %0 = math.erf %x : f32
  %1 = math.exp %v : vector<16xf32>
  %2 = math.tanh %x : f32
  return %0, %1, %2 : f32, vector<16xf32>, f32
}

// f64 keeps the library call; sqrt is a single instruction anyway.
// CHECK-LABEL: func.func @kept
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f32
func.func @kept(%x: f64, %y: f32) -> (f64, f32) {
  %0 = math.exp %x : f64
  %1 = math.sqrt %y : f32
  return %0, %1 : f64, f32
}

// erf: x clamped to [-4, 4], x P(x^2) / Q(x^2) (Horner's rule, 6 and 5
// FMAs), one division, the result clamped to [-1, 1]; no interval selects.
// CHECK-LABEL: func.func @erf_rational
//   CHECK-DAG: %[[FOUR:.*]] = arith.constant dense<4.000000e+00> : vector<8xf32>
//   CHECK-DAG: %[[MFOUR:.*]] = arith.constant dense<-4.000000e+00> : vector<8xf32>
//       CHECK: %[[LO:.*]] = arith.minimumf %{{.*}}, %[[FOUR]]
//       CHECK: %[[X:.*]] = arith.maximumf %[[LO]], %[[MFOUR]]
//       CHECK: %[[S:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK-COUNT-6: math.fma %{{.*}}, %[[S]], %{{.*}} : vector<8xf32>
//       CHECK: %[[NUM:.*]] = arith.mulf %[[X]], %{{.*}}
// CHECK-COUNT-5: math.fma %{{.*}}, %[[S]], %{{.*}} : vector<8xf32>
//       CHECK: arith.divf %[[NUM]], %{{.*}}
//       CHECK: arith.minimumf
//       CHECK: arith.maximumf
//   CHECK-NOT: arith.select
//   CHECK-NOT: arith.cmpf
//       CHECK: return
func.func @erf_rational(%v: vector<8xf32>) -> vector<8xf32> {
  %0 = math.erf %v : vector<8xf32>
  return %0 : vector<8xf32>
}
