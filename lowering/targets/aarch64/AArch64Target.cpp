//===- AArch64Target.cpp - AArch64 Linux target backend -------------------===//
//
// 64-bit Arm with NEON (128-bit vectors). Cross-compiles from any host: the
// C library comes from the Debian cross sysroot (libc6-dev-arm64-cross), and
// the result runs natively or under qemu-aarch64 (test/e2e/aarch64/).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/CpuTargetBackend.h"

namespace kiln {
namespace {

class AArch64Target : public CpuTargetBackend {
public:
  AArch64Target()
      : CpuTargetBackend({
            /*name=*/"aarch64",
            /*description=*/"AArch64 Linux with NEON",
            /*triple=*/"aarch64-linux-gnu",
            /*defaultCpu=*/"neoverse-n1",
            /*defaultFeatures=*/"+neon",
            /*vectorBits=*/128,
            /*libDirs=*/{"/usr/aarch64-linux-gnu/lib"},
        }) {}
};

} // namespace

void registerAArch64Target() {
  registerTarget("aarch64", [] { return std::make_unique<AArch64Target>(); });
}

} // namespace kiln
