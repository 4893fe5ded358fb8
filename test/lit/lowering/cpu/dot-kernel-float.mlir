// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{vector-bits=512 bf16=1}),canonicalize,cse)' -split-input-file | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{vector-bits=512}))' -split-input-file | FileCheck %s --check-prefix=NOBF16
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-dot-kernel{vector-bits=256 bf16=1}))' -split-input-file | FileCheck %s --check-prefix=AVX2

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// bf16 pairs: 32-element weight loads, the row's pair broadcast to every
// lane as one i32, vdpbf16ps into f32 accumulators that start from zero
// (the fill goes); the epilogue (bias, Relu) runs on them, masked past the
// 20 real columns.
// CHECK-LABEL: func.func @bf16
//   CHECK-NOT: linalg.fill
//       CHECK: scf.for {{.*}} iter_args
//       CHECK:   vector.load %{{.*}} : memref<3x64xbf16>, vector<32xbf16>
//       CHECK:   vector.load %{{.*}} : memref<5x6xbf16>, vector<2xbf16>
//       CHECK:   vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
//       CHECK:   vector.bitcast {{.*}} : vector<16xi32> to vector<32xbf16>
//       CHECK:   llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"({{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
//       CHECK: vector.constant_mask [4]
//       CHECK: arith.addf {{.*}} : vector<16xf32>
//       CHECK: arith.maximumf {{.*}} : vector<16xf32>
//       CHECK: vector.maskedstore %arg4
//   CHECK-NOT: linalg.generic
// NOBF16-LABEL: func.func @bf16
//       NOBF16: linalg.generic
//   NOBF16-NOT: llvm.call_intrinsic
// AVX2-LABEL: func.func @bf16
//       AVX2: linalg.generic
func.func @bf16(%a: memref<5x3x2xbf16>, %b: memref<3x32x2xbf16>, %bias: memref<20xf32>, %c: memref<5x32xf32>, %y: memref<5x20xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<5x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<5x3x2xbf16>, memref<3x32x2xbf16>) outs(%c : memref<5x32xf32>) {
  ^bb0(%x: bf16, %w: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %wf = arith.extf %w : bf16 to f32
    %p = arith.mulf %xf, %wf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %v = memref.subview %c[0, 0] [5, 20] [1, 1] : memref<5x32xf32> to memref<5x20xf32, strided<[32, 1]>>
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%v, %bias : memref<5x20xf32, strided<[32, 1]>>, memref<20xf32>) outs(%y : memref<5x20xf32>) {
  ^bb0(%acc: f32, %bv: f32, %out: f32):
    %s = arith.addf %acc, %bv : f32
    %zero2 = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero2 : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k, j) -> (m, k, j)>
#b = affine_map<(m, n, k, j) -> (k, n, j)>
#c = affine_map<(m, n, k, j) -> (m, n)>

// f16 weights: 16 of them loaded and widened to f32, the f32 row element
// broadcast, vector.fma. Needs no instruction option.
// CHECK-LABEL: func.func @f16
//       CHECK: scf.for {{.*}} iter_args
//       CHECK:   vector.load %{{.*}} : memref<4x16xf16>, vector<16xf16>
//       CHECK:   arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
//       CHECK:   memref.load %{{.*}} : memref<3x4xf32>
//       CHECK:   vector.broadcast {{.*}} : f32 to vector<16xf32>
//       CHECK:   vector.fma
//       CHECK: vector.store {{.*}} : memref<3x16xf32>, vector<16xf32>
// NOBF16-LABEL: func.func @f16
//       NOBF16: vector.fma
func.func @f16(%a: memref<3x4x1xf32>, %b: memref<4x16x1xf16>, %c: memref<3x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x16xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<3x4x1xf32>, memref<4x16x1xf16>) outs(%c : memref<3x16xf32>) {
  ^bb0(%x: f32, %w: f16, %acc: f32):
    %wf = arith.extf %w : f16 to f32
    %p = arith.mulf %x, %wf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
