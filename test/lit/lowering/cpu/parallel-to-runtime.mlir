// RUN: kiln-opt %s --kiln-cpu-parallel-to-runtime -split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-cpu-parallel-to-runtime="mark-kernels=1" -split-input-file | FileCheck %s --check-prefix=MARK

// The forall body is outlined into @f_par0(begin, end, data); the captured
// memref and scalar travel through a stack struct. One call per loop to the
// dispatch function, which runs the body on kiln_rt's threads when kiln_rt
// is loaded and directly otherwise.
// CHECK-LABEL: func.func @f(
//  CHECK-SAME:   %[[M:.*]]: memref<?xf32>, %[[X:.*]]: f32, %[[N:.*]]: index)
//       CHECK:   %[[DATA:.*]] = llvm.alloca {{.*}} x !llvm.struct<({{.*}}struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>{{.*}})>
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   %[[FN:.*]] = constant @f_par0
//       CHECK:   %[[P:.*]] = builtin.unrealized_conversion_cast %[[FN]]
//       CHECK:   llvm.call @kiln_parallel_dispatch(%{{.*}}, %[[P]], %[[DATA]])
//   CHECK-NOT:   scf.if
//       CHECK:   return
// CHECK-LABEL: func.func private @f_par0(
//  CHECK-SAME:   %[[B:.*]]: i64, %[[E:.*]]: i64, %{{.*}}: !llvm.ptr)
//       CHECK:   llvm.load
//       CHECK:   scf.for
//       CHECK:     memref.store
//       CHECK: llvm.func extern_weak @kiln_rt_parallel_for(i64, !llvm.ptr, !llvm.ptr)
//       CHECK: llvm.func internal @kiln_parallel_dispatch(%[[DN:.*]]: i64, %[[DF:.*]]: !llvm.ptr, %[[DD:.*]]: !llvm.ptr) attributes {no_inline}
//       CHECK:   %[[RT:.*]] = llvm.mlir.addressof @kiln_rt_parallel_for
//       CHECK:   %[[LOADED:.*]] = llvm.icmp "ne" %[[RT]]
//       CHECK:   llvm.cond_br %[[LOADED]], ^[[PAR:.*]], ^[[SER:.*]]
//       CHECK: ^[[PAR]]:
//       CHECK:   llvm.call @kiln_rt_parallel_for(%[[DN]], %[[DF]], %[[DD]])
//       CHECK: ^[[SER]]:
//       CHECK:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i64)
//       CHECK:   llvm.call %[[DF]](%[[ZERO]], %[[DN]], %[[DD]])
func.func @f(%m: memref<?xf32>, %x: f32, %n: index) {
  scf.forall (%i) in (%n) {
    memref.store %x, %m[%i] : memref<?xf32>
  }
  return
}

// -----

// A serial loop nest of the model function becomes a function of its own,
// called directly and marked no_inline, so that code generation can spread
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
//       CHECK:   constant @named_conv_1_3_par0
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
//       CHECK:     llvm.call @kiln_parallel_dispatch
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

// -----

// A memref whose shape, strides and offset are all static crosses as its
// two pointers (allocated, aligned); the body rebuilds the descriptor from
// constants.
// CHECK-LABEL: func.func @static_capture(
//  CHECK-SAME:   %[[M:.*]]: memref<8x16xf32, strided<[32, 1], offset: 4>>
//       CHECK:   %[[DATA:.*]] = llvm.alloca {{.*}} x !llvm.struct<(f32, struct<(ptr, ptr)>)>
//       CHECK:   %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[M]]
//       CHECK:   %[[ALLOCATED:.*]] = llvm.extractvalue %[[DESC]][0]
//       CHECK:   %[[P0:.*]] = llvm.insertvalue %[[ALLOCATED]], %{{.*}}[0]
//       CHECK:   %[[ALIGNED:.*]] = llvm.extractvalue %[[DESC]][1]
//       CHECK:   %[[P1:.*]] = llvm.insertvalue %[[ALIGNED]], %[[P0]][1]
//       CHECK:   llvm.store %[[P1]], %{{.*}} : !llvm.struct<(ptr, ptr)>, !llvm.ptr
// CHECK-LABEL: func.func private @static_capture_par0(
//       CHECK:   %[[PAIR:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(ptr, ptr)>
//       CHECK:   llvm.extractvalue %[[PAIR]][0]
//       CHECK:   llvm.extractvalue %[[PAIR]][1]
//       CHECK:   %[[OFF:.*]] = llvm.mlir.constant(4 : i64)
//       CHECK:   llvm.insertvalue %[[OFF]], %{{.*}}[2]
//       CHECK:   llvm.mlir.constant(8 : i64)
//       CHECK:   llvm.mlir.constant(32 : i64)
//       CHECK:   llvm.mlir.constant(16 : i64)
//       CHECK:   %[[REBUILT:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x16xf32, strided<[32, 1], offset: 4>>
//       CHECK:   scf.for
//       CHECK:     memref.store %{{.*}}, %[[REBUILT]]
func.func @static_capture(%m: memref<8x16xf32, strided<[32, 1], offset: 4>>, %x: f32) {
  scf.forall (%i) in (8) {
    %c0 = arith.constant 0 : index
    memref.store %x, %m[%i, %c0] : memref<8x16xf32, strided<[32, 1], offset: 4>>
  }
  return
}

// -----

// Loops with the same body (two layers of the same shape, their buffers
// captured) call one outlined function; a loop with another body gets its
// own. Profiled libraries (mark-kernels) keep one function per loop.
// CHECK-LABEL: func.func @repeated(
//       CHECK:   constant @repeated_par0
//       CHECK:   constant @repeated_par0
//       CHECK:   constant @repeated_par2
//   CHECK-NOT: func.func private @repeated_par1(
//   CHECK-DAG: func.func private @repeated_par0(
//   CHECK-DAG: func.func private @repeated_par2(
// MARK-LABEL: func.func @repeated(
//       MARK:   constant @repeated_par0
//       MARK:   constant @repeated_par1
//       MARK:   constant @repeated_par2
//       MARK: func.func private @repeated_par1(
func.func @repeated(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  scf.forall (%i) in (64) {
    %v = memref.load %a[%i] : memref<64xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %a[%i] : memref<64xf32>
  }
  scf.forall (%i) in (64) {
    %v = memref.load %b[%i] : memref<64xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %b[%i] : memref<64xf32>
  }
  scf.forall (%i) in (64) {
    %v = memref.load %c[%i] : memref<64xf32>
    %w = arith.mulf %v, %one : f32
    memref.store %w, %c[%i] : memref<64xf32>
  }
  return
}
