// RUN: kiln-opt %s --kiln-gpu-merge-kernel-modules | FileCheck %s

// Two outlined modules become one; a clashing kernel name is renamed and
// its launch follows it.
// CHECK:     gpu.module @k0 {
// CHECK:       gpu.func @f() kernel
// CHECK:       gpu.func @f_0() kernel
// CHECK-NOT: gpu.module
// CHECK:     gpu.launch_func @k0::@f blocks
// CHECK:     gpu.launch_func @k0::@f_0 blocks
module attributes {gpu.container_module} {
  gpu.module @k0 {
    gpu.func @f() kernel { gpu.return }
  }
  gpu.module @k1 {
    gpu.func @f() kernel { gpu.return }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k0::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @k1::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
