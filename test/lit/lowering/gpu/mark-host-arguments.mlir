// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-mark-host-arguments))' | FileCheck %s

// Graph inputs (tensors before bufferization) are copied to the device;
// outputs (caller memrefs) are not.
// CHECK-LABEL: func.func @kiln_entry(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {kiln.gpu.copy_in, kiln.name = "x"}
// CHECK-SAME:    %{{.*}}: memref<4xf32> {kiln.name = "y"})
func.func @kiln_entry(%x: tensor<4xf32> {kiln.name = "x"}, %y: memref<4xf32> {kiln.name = "y"}) {
  bufferization.materialize_in_destination %x in restrict writable %y : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}
