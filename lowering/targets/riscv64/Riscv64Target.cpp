//===- Riscv64Target.cpp - RISC-V 64 Linux target backend -----------------===//
//
// The smallest complete target, and the example docs/adding-a-target.md
// walks through: generic rv64gc with the lp64d (hard double) ABI that Debian's
// riscv64 userland uses. Scalar by default; `--features +v` enables the
// vector extension and a 128-bit (VLEN minimum) schedule.
//
//===----------------------------------------------------------------------===//

#include "lowering/targets/cpu/CpuTargetBackend.h"

namespace kiln {

static CpuTargetDescription describeRiscv64() {
  CpuTargetDescription d;
  d.name = "riscv64";
  d.description = "RISC-V 64 Linux, rv64gc (RVV with +v)";
  d.triple = "riscv64-linux-gnu";
  d.defaultCpu = "generic-rv64";
  d.defaultFeatures = "+m,+a,+f,+d,+c";
  // The triple alone implies the soft-float lp64 ABI, which cannot link
  // against the distribution's libc.
  d.abiName = "lp64d";
  d.vectorBitsByFeature = {{"v", 128}};
  d.vectorRegisters = 32;
  d.libDirs = {"/usr/riscv64-linux-gnu/lib"};
  return d;
}

void registerRiscv64Target() {
  registerTarget("riscv64", [] {
    return std::make_unique<CpuTargetBackend>(describeRiscv64());
  });
}

} // namespace kiln
