//===- AArch64Target.cpp - AArch64 Linux target backend -------------------===//
//
// 64-bit Arm with NEON (128-bit vectors). Cross-compiles from any host: the
// C library comes from the Debian cross sysroot (libc6-dev-arm64-cross), and
// the result runs natively or under qemu-aarch64 (test/e2e/emulated/).
//
//===----------------------------------------------------------------------===//

#include "lowering/targets/cpu/CpuTargetBackend.h"

namespace kiln {

static CpuTargetDescription describeAArch64() {
  CpuTargetDescription d;
  d.name = "aarch64";
  d.description = "AArch64 Linux with NEON";
  d.triple = "aarch64-linux-gnu";
  d.defaultCpu = "neoverse-n1";
  d.defaultFeatures = "+neon";
  d.baseVectorBits = 128;
  d.vectorRegisters = 32;
  // usdot (FEAT_I8MM): 16 u8 x s8 products into 4 i32 lanes, the form of
  // the integer products of QDQ models (Neoverse V1/N2, Graviton 3); sdot
  // (FEAT_DotProd, s8 x s8: Neoverse N1, the default) with the rows moved
  // to s8.
  d.int8DotBitsByFeature = {{"i8mm", 128}, {"dotprod", 128}};
  d.int8MixedSignFeature = "i8mm";
  d.libDirs = {"/usr/aarch64-linux-gnu/lib"};
  d.checkedCpuFeatures = {"neon",     "fp-armv8", "crc",     "lse",
                          "fullfp16", "rdm",      "dotprod", "sve",
                          "sve2",     "i8mm",     "bf16"};
  return d;
}

void registerAArch64Target() {
  registerTarget("aarch64", [] {
    return std::make_unique<CpuTargetBackend>(describeAArch64());
  });
}

} // namespace kiln
