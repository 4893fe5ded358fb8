// RUN: kiln-opt %s --kiln-plan-memory=symbolic-sizes=1 --canonicalize --cse | FileCheck %s

// Buffers sized by the input's dim live in the arena above the static one
// (64 bytes): %b (n*n rows, the largest at any representative size) first,
// then %a above it; %c is born after %a's last read and takes %a's place.
// The extent read from data (%d) stays with the allocator. The arena's size
// is a function of the entry's arguments.

// CHECK: module attributes {kiln.arena_bytes = 64 : i64
// CHECK-LABEL: func.func @kiln_entry(
// CHECK-SAME:    %[[X:[^:]*]]: memref<?x16xf32>, {{.*}}, %[[ARENA:[^:]*]]: memref<?xi8> {kiln.arena
// CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
// CHECK:       %[[N:.*]] = memref.dim %[[X]], %[[C0]]
// CHECK:       %[[NN:.*]] = arith.muli %[[N]], %[[N]]
// CHECK:       %[[BBYTES:.*]] = arith.muli %[[NN]], %[[C64]]
// CHECK:       %[[BALIGNED:.*]] = arith.andi
// CHECK:       %[[BEND:.*]] = arith.addi %[[BALIGNED]], %[[C64]]
// CHECK:       %[[AOFF:.*]] = arith.maxui %[[BEND]], %[[C64]]
// CHECK:       %[[A:.*]] = memref.view %[[ARENA]][%[[AOFF]]][%[[N]]] : memref<?xi8> to memref<?x16xf32>
// CHECK:       linalg.copy ins(%[[X]] {{.*}} outs(%[[A]]
// CHECK:       memref.view %[[ARENA]][%[[C0]]][] : memref<?xi8> to memref<8xf32>
// CHECK:       %[[B:.*]] = memref.view %[[ARENA]][%[[C64]]][%[[NN]]] : memref<?xi8> to memref<?x16xf32>
// CHECK:       %[[BV:.*]] = memref.subview %[[B]]
// CHECK:       linalg.copy ins(%[[BV]] {{.*}} outs(%[[A]]
// CHECK:       memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-LABEL: func.func @kiln_entry_arena_bytes(
// CHECK-SAME:    %[[X2:[^:]*]]: memref<?x16xf32>, %{{[^:]*}}: memref<?x16xf32>, %{{[^:]*}}: memref<4xi32>) -> index
// CHECK:       %[[N2:.*]] = memref.dim %[[X2]]
// CHECK:       arith.maxui
// CHECK-NOT:   memref.view
// CHECK:       return %{{.*}} : index
func.func @kiln_entry(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %counts: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  linalg.copy ins(%x : memref<?x16xf32>) outs(%a : memref<?x16xf32>)
  %s = memref.alloc() : memref<8xf32>
  linalg.fill ins(%cst : f32) outs(%s : memref<8xf32>)
  %nn = arith.muli %n, %n : index
  %b = memref.alloc(%nn) : memref<?x16xf32>
  %bv = memref.subview %b[0, 0] [%n, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1]>>
  linalg.copy ins(%a : memref<?x16xf32>) outs(%bv : memref<?x16xf32, strided<[16, 1]>>)
  %c = memref.alloc(%n) : memref<?x16xf32>
  linalg.copy ins(%bv : memref<?x16xf32, strided<[16, 1]>>) outs(%c : memref<?x16xf32>)
  linalg.copy ins(%c : memref<?x16xf32>) outs(%y : memref<?x16xf32>)
  %v = memref.load %counts[%c0] : memref<4xi32>
  %k = arith.index_cast %v : i32 to index
  %d = memref.alloc(%k) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%d : memref<?xf32>)
  memref.dealloc %d : memref<?xf32>
  return
}
