// RUN: kiln-opt %s --kiln-cpu-store-bools-as-bytes -split-input-file | FileCheck %s

// A vector of i1 goes to memory as one byte per element, with byte alignment
// when the store had none.
// CHECK-LABEL: llvm.func @store
// CHECK-SAME: (%[[V:.*]]: vector<5xi1>, %[[P:.*]]: !llvm.ptr)
// CHECK: %[[B:.*]] = llvm.zext %[[V]] : vector<5xi1> to vector<5xi8>
// CHECK: llvm.store %[[B]], %[[P]] {alignment = 1 : i64} : vector<5xi8>, !llvm.ptr
// CHECK-NOT: xi1>, !llvm.ptr
llvm.func @store(%v: vector<5xi1>, %p: !llvm.ptr) {
  llvm.store %v, %p : vector<5xi1>, !llvm.ptr
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @load
// CHECK-DAG: %[[Z:.*]] = llvm.mlir.zero : vector<8xi8>
// CHECK-DAG: %[[L:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<8xi8>
// CHECK: %[[C:.*]] = llvm.icmp "ne" %[[L]], %[[Z]] : vector<8xi8>
// CHECK: llvm.return %[[C]] : vector<8xi1>
llvm.func @load(%p: !llvm.ptr) -> vector<8xi1> {
  %v = llvm.load %p : !llvm.ptr -> vector<8xi1>
  llvm.return %v : vector<8xi1>
}

// -----

// Masked stores widen the value; the mask stays i1.
// CHECK-LABEL: llvm.func @masked_store
// CHECK-SAME: (%[[V:.*]]: vector<16xi1>, %[[P:.*]]: !llvm.ptr, %[[M:.*]]: vector<16xi1>)
// CHECK: %[[B:.*]] = llvm.zext %[[V]] : vector<16xi1> to vector<16xi8>
// CHECK: llvm.intr.masked.store %[[B]], %[[P]], %[[M]] {alignment = 1 : i32} : vector<16xi8>, vector<16xi1> into !llvm.ptr
llvm.func @masked_store(%v: vector<16xi1>, %p: !llvm.ptr, %m: vector<16xi1>) {
  llvm.intr.masked.store %v, %p, %m {alignment = 1 : i32} : vector<16xi1>, vector<16xi1> into !llvm.ptr
  llvm.return
}

// -----

// Masked loads widen the pass-through and the result.
// CHECK-LABEL: llvm.func @masked_load
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[M:.*]]: vector<4xi1>, %[[T:.*]]: vector<4xi1>)
// CHECK: %[[TB:.*]] = llvm.zext %[[T]] : vector<4xi1> to vector<4xi8>
// CHECK: %[[L:.*]] = llvm.intr.masked.load %[[P]], %[[M]], %[[TB]] {alignment = 1 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xi8>) -> vector<4xi8>
// CHECK: llvm.icmp "ne" %[[L]]
llvm.func @masked_load(%p: !llvm.ptr, %m: vector<4xi1>, %t: vector<4xi1>) -> vector<4xi1> {
  %v = llvm.intr.masked.load %p, %m, %t {alignment = 1 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xi1>) -> vector<4xi1>
  llvm.return %v : vector<4xi1>
}

// -----

// Scalars and other element types are left alone.
// CHECK-LABEL: llvm.func @untouched
// CHECK: llvm.store %{{.*}} : i1, !llvm.ptr
// CHECK: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK-NOT: llvm.zext
llvm.func @untouched(%b: i1, %v: vector<8xf32>, %p: !llvm.ptr) {
  llvm.store %b, %p : i1, !llvm.ptr
  llvm.store %v, %p : vector<8xf32>, !llvm.ptr
  llvm.return
}
