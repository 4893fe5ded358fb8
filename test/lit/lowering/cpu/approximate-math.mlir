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
