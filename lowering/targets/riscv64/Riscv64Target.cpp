//===- Riscv64Target.cpp - RISC-V 64 Linux target backend -----------------===//
//
// The smallest complete target, and the example docs/adding-a-target.md
// walks through: generic rv64gc with the lp64d (hard double) ABI that Debian's
// riscv64 userland uses. Scalar by default; `--features +v` enables the
// vector extension and a 128-bit (VLEN minimum) schedule.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/CpuTargetBackend.h"

#include "llvm/Target/TargetOptions.h"

namespace kiln {
namespace {

class Riscv64Target : public CpuTargetBackend {
public:
  Riscv64Target()
      : CpuTargetBackend({
            /*name=*/"riscv64",
            /*description=*/"RISC-V 64 Linux, rv64gc (RVV with +v)",
            /*triple=*/"riscv64-linux-gnu",
            /*defaultCpu=*/"generic-rv64",
            /*defaultFeatures=*/"+m,+a,+f,+d,+c",
            /*vectorBits=*/0,
            /*libDirs=*/{"/usr/riscv64-linux-gnu/lib"},
        }) {}

  unsigned getVectorBits(const TargetOptions &options) const override {
    return llvm::StringRef(options.features).contains("+v") ? 128 : 0;
  }

protected:
  void configureLlvmOptions(llvm::TargetOptions &options) const override {
    // The triple alone implies the soft-float lp64 ABI, which cannot link
    // against the distribution's libc.
    options.MCOptions.ABIName = "lp64d";
  }
};

} // namespace

void registerRiscv64Target() {
  registerTarget("riscv64", [] { return std::make_unique<Riscv64Target>(); });
}

} // namespace kiln
