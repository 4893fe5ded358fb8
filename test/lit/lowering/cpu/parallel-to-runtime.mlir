// RUN: kiln-opt %s --kiln-cpu-parallel-to-runtime -split-input-file | FileCheck %s

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

// -----

// A serial loop nest of the model function becomes a function of its own,
// called directly and kept out of line, so that code generation can spread
// the model over threads. A loop whose results are used stays in place.
// CHECK-LABEL: func.func @serial(
//       CHECK:   %[[R:.*]] = scf.for
//       CHECK:   call @serial_ser0(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, !llvm.ptr) -> ()
//   CHECK-NOT:   kiln_rt_parallel_for
//       CHECK:   return %[[R]]
// CHECK-LABEL: func.func private @serial_ser0(
//  CHECK-SAME:   attributes {no_inline}
//       CHECK:   scf.for
//       CHECK:     memref.store
func.func @serial(%m: memref<8xf32>, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %x) -> f32 {
    %s = arith.addf %a, %x : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %x, %m[%i] : memref<8xf32>
  }
  return %r : f32
}

// -----

// The outlined function carries the ONNX node of its loop, so that a
// profiler's symbols name the layer (characters other than letters, digits
// and '_' become '_').
// CHECK-LABEL: func.func @named(
//       CHECK:   func.constant @named_conv_1_3_par0
// CHECK-LABEL: func.func private @named_conv_1_3_par0(
func.func @named(%m: memref<?xf32>, %x: f32, %n: index) {
  scf.forall (%i) in (%n) {
    memref.store %x, %m[%i] : memref<?xf32>
  } loc("conv/1.3")
  return
}

// -----

// Below a top-level scf.if that yields a buffer (a convolution over run-time
// sizes: tiles, or its dynamic form), each branch's loop nests are outlined
// too; a parallel loop inside a serial nest keeps its threads: it is
// outlined first, and the serial function gets the pointer to its argument
// block, which lives in the caller's frame.
// CHECK-LABEL: func.func @branches(
//       CHECK:   %[[DATA:.*]] = llvm.alloca
//       CHECK:   scf.if %{{.*}} -> (memref<?xf32>) {
//       CHECK:     call @branches_ser{{[0-9]+}}(
//       CHECK:   } else {
//       CHECK:     call @branches_ser{{[0-9]+}}(
//   CHECK-NOT:   scf.for
//       CHECK:   return
//       CHECK: func.func private @branches_ser{{[0-9]+}}(
//       CHECK: func.func private @branches_ser{{[0-9]+}}(
//       CHECK:   scf.for
//       CHECK:     llvm.call @kiln_rt_parallel_for
//       CHECK: func.func private @branches_par0(
func.func @branches(%m: memref<?xf32>, %other: memref<?xf32>, %x: f32, %c: i1, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.if %c -> memref<?xf32> {
    scf.for %i = %c0 to %n step %c1 {
      scf.forall (%j) in (%n) {
        memref.store %x, %m[%j] : memref<?xf32>
      }
    }
    scf.yield %m : memref<?xf32>
  } else {
    scf.for %i = %c0 to %n step %c1 {
      memref.store %x, %other[%i] : memref<?xf32>
    }
    scf.yield %other : memref<?xf32>
  }
  return %r : memref<?xf32>
}
