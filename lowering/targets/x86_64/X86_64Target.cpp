//===- X86_64Target.cpp - x86-64 Linux target backend ---------------------===//
//
// The host target in most deployments: compiles for the CPU kiln runs on
// unless `--cpu` says otherwise, and links against the system C library.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/CpuTargetBackend.h"

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
};

} // namespace

void registerX86_64Target() {
  registerTarget("x86_64", [] { return std::make_unique<X86_64Target>(); });
}

} // namespace kiln
