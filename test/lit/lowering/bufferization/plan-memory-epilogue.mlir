// RUN: kiln-opt %s --kiln-plan-memory | FileCheck %s

// D, written first by the ReLU that reads the product's result C, begins
// its life at the product's initializer: the product's register tiles may
// compute the ReLU and write D while the product still reads X. So D does
// not get X's bytes (offset 0), though X is dead once the ReLU runs.

// CHECK: module attributes {kiln.arena_bytes = 20480 : i64
// CHECK-LABEL: func.func @kiln_entry(
// CHECK:       %[[X_OFF:.*]] = arith.constant 0 : index
// CHECK:       memref.view %{{.*}}[%[[X_OFF]]][] : memref<?xi8> to memref<48x64xf32>
// CHECK:       %[[C_OFF:.*]] = arith.constant 12288 : index
// CHECK:       memref.view %{{.*}}[%[[C_OFF]]][] : memref<?xi8> to memref<16x64xf32>
// CHECK:       linalg.matmul
// CHECK:       %[[D_OFF:.*]] = arith.constant 16384 : index
// CHECK:       memref.view %{{.*}}[%[[D_OFF]]][] : memref<?xi8> to memref<16x64xf32>
// CHECK:       linalg.generic
func.func @kiln_entry(%in: memref<48x64xf32>, %w: memref<16x48xf32>, %y: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<48x64xf32>
  linalg.copy ins(%in : memref<48x64xf32>) outs(%x : memref<48x64xf32>)
  %c = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul ins(%w, %x : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  memref.dealloc %x : memref<48x64xf32>
  %d = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<16x64xf32>) outs(%d : memref<16x64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<16x64xf32>
  linalg.copy ins(%d : memref<16x64xf32>) outs(%y : memref<16x64xf32>)
  memref.dealloc %d : memref<16x64xf32>
  return
}
