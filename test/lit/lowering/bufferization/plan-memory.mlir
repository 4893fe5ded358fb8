// RUN: kiln-opt %s --kiln-plan-memory | FileCheck %s

// Three 4 KiB buffers: %a dies after %b is computed, so %c reuses %a's
// space; %b overlaps both and gets its own slot. Arena = 2 slots, while the
// dynamic buffer stays with the allocator.

// CHECK: module attributes {kiln.arena_bytes = 8192 : i64, kiln.arena_lower_bound = 8192 : i64}
// CHECK-LABEL: func.func @kiln_entry(
// CHECK-SAME:    %[[X:.*]]: memref<32x32xf32>, %[[Y:.*]]: memref<32x32xf32>, %[[N:.*]]: index,
// CHECK-SAME:    %[[ARENA:.*]]: memref<?xi8> {kiln.arena, kiln.name = "arena"})
// CHECK-NOT:   memref.alloc()
// CHECK:       %[[OFF0:.*]] = arith.constant 0 : index
// CHECK:       memref.view %[[ARENA]][%[[OFF0]]][] : memref<?xi8> to memref<32x32xf32>
// CHECK:       %[[OFF1:.*]] = arith.constant 4096 : index
// CHECK:       memref.view %[[ARENA]][%[[OFF1]]][] : memref<?xi8> to memref<32x32xf32>
// CHECK:       %[[OFF2:.*]] = arith.constant 0 : index
// CHECK:       memref.view %[[ARENA]][%[[OFF2]]][] : memref<?xi8> to memref<32x32xf32>
// CHECK-NOT:   memref.alloc()
// CHECK:       memref.alloc(%[[N]]) : memref<?xf32>
func.func @kiln_entry(%x: memref<32x32xf32>, %y: memref<32x32xf32>, %n: index) {
  %a = memref.alloc() : memref<32x32xf32>
  linalg.copy ins(%x : memref<32x32xf32>) outs(%a : memref<32x32xf32>)
  %b = memref.alloc() : memref<32x32xf32>
  linalg.copy ins(%a : memref<32x32xf32>) outs(%b : memref<32x32xf32>)
  %c = memref.alloc() : memref<32x32xf32>
  linalg.copy ins(%b : memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.copy ins(%c : memref<32x32xf32>) outs(%y : memref<32x32xf32>)
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  return
}
