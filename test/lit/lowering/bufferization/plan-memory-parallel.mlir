// RUN: kiln-opt %s --kiln-plan-memory --allow-unregistered-dialect | FileCheck %s

// A scratch buffer allocated in the body of a parallel loop gets one slot
// per iteration (4 x 2 iterations of 1 KiB; placed first, being largest),
// next to the 4 KiB buffer alive at the same time; the slot is picked by
// the linearized
// induction variables, so concurrent iterations never share memory, and
// the view carries the bytes of all its slots (for passes that ask what
// may alias what). An
// alloc inside a sequential loop gets one slot for all iterations (here
// where %a was, dead by then); one that leaves its iteration (yielded) is
// left to the allocator.

// CHECK: module attributes {kiln.arena_bytes = 12288 : i64, kiln.arena_lower_bound = 12288 : i64}
// CHECK-LABEL: func.func @kiln_entry(
// CHECK-SAME:    %[[ARENA:[^ ]*]]: memref<?xi8> {kiln.arena, kiln.name = "arena"})
// CHECK:       %[[C8K:.*]] = arith.constant 8192 : index
// CHECK:       memref.view %[[ARENA]][%[[C8K]]][] : memref<?xi8> to memref<32x32xf32>
// CHECK:       scf.forall (%[[I:.*]], %[[J:.*]]) in (4, 2)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[ROW:.*]] = arith.muli %[[I]], %[[C2]] : index
// CHECK:         %[[LIN:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK:         %[[C1K:.*]] = arith.constant 1024 : index
// CHECK:         %[[SLOT:.*]] = arith.muli %[[LIN]], %[[C1K]] : index
// CHECK:         %[[OFF:.*]] = arith.addi %[[C0]], %[[SLOT]] : index
// CHECK:         memref.view %[[ARENA]][%[[OFF]]][] {kiln.arena_range = array<i64: 0, 8192>} : memref<?xi8> to memref<256xf32>
// CHECK:       scf.for
// CHECK:         %[[C0B:.*]] = arith.constant 0 : index
// CHECK:         memref.view %[[ARENA]][%[[C0B]]][] : memref<?xi8> to memref<16xf32>
// CHECK:       scf.for
// CHECK:         memref.alloc() : memref<8xf32>
func.func @kiln_entry(%x: memref<32x32xf32>, %y: memref<32x32xf32>) {
  %a = memref.alloc() : memref<32x32xf32>
  linalg.copy ins(%x : memref<32x32xf32>) outs(%a : memref<32x32xf32>)
  scf.forall (%i, %j) in (4, 2) {
    %s = memref.alloc() : memref<256xf32>
    %v = memref.subview %a[%i, %j] [1, 1] [1, 1] : memref<32x32xf32> to memref<1x1xf32, strided<[32, 1], offset: ?>>
    "test.use"(%s, %v) : (memref<256xf32>, memref<1x1xf32, strided<[32, 1], offset: ?>>) -> ()
  }
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<16xf32>
    "test.use"(%t) : (memref<16xf32>) -> ()
  }
  %init = memref.alloc() : memref<8xf32>
  %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%prev = %init) -> memref<8xf32> {
    %u = memref.alloc() : memref<8xf32>
    "test.use"(%u, %prev) : (memref<8xf32>, memref<8xf32>) -> ()
    scf.yield %u : memref<8xf32>
  }
  "test.use"(%last) : (memref<8xf32>) -> ()
  linalg.copy ins(%a : memref<32x32xf32>) outs(%y : memref<32x32xf32>)
  return
}
