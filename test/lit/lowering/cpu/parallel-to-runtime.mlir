// RUN: kiln-opt %s --kiln-cpu-parallel-to-runtime | FileCheck %s

// The forall body is outlined into @f_par0(begin, end, data); the captured
// memref and scalar travel through a stack struct.
// CHECK-LABEL: func.func @f(
//  CHECK-SAME:   %[[M:.*]]: memref<?xf32>, %[[X:.*]]: f32, %[[N:.*]]: index)
//       CHECK:   %[[DATA:.*]] = llvm.alloca {{.*}} x !llvm.struct<({{.*}}struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>{{.*}})>
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   %[[RT:.*]] = llvm.mlir.addressof @kiln_rt_parallel_for
//       CHECK:   scf.if
//       CHECK:     %[[FN:.*]] = func.constant @f_par0
//       CHECK:     %[[P:.*]] = builtin.unrealized_conversion_cast %[[FN]]
//       CHECK:     llvm.call @kiln_rt_parallel_for(%{{.*}}, %[[P]], %[[DATA]])
//       CHECK:   } else {
//       CHECK:     func.call @f_par0(%{{.*}}, %{{.*}}, %[[DATA]])
// CHECK-LABEL: func.func private @f_par0(
//  CHECK-SAME:   %[[B:.*]]: i64, %[[E:.*]]: i64, %{{.*}}: !llvm.ptr)
//       CHECK:   llvm.load
//       CHECK:   scf.for
//       CHECK:     memref.store
//       CHECK: llvm.func extern_weak @kiln_rt_parallel_for(i64, !llvm.ptr, !llvm.ptr)
func.func @f(%m: memref<?xf32>, %x: f32, %n: index) {
  scf.forall (%i) in (%n) {
    memref.store %x, %m[%i] : memref<?xf32>
  }
  return
}
