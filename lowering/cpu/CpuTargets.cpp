//===- CpuTargets.cpp - x86-64 and AArch64 target backends ----------------===//
//
// Both CPU targets share the lowering pipeline and differ in triple, default
// CPU, vector width and where the C library lives for linking.
//
//===----------------------------------------------------------------------===//

#include "compiler/pipeline/TargetBackend.h"
#include "lowering/cpu/CpuTargets.h"
#include "lowering/cpu/CpuPipeline.h"
#include "lowering/emit/Linker.h"

#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln {
namespace {

class CpuTarget : public TargetBackend {
public:
  CpuTarget(llvm::StringRef name, llvm::StringRef description,
            llvm::StringRef triple, llvm::StringRef defaultCpu,
            llvm::StringRef libDir, unsigned vectorBits)
      : name(name), description(description), triple(triple),
        defaultCpu(defaultCpu), libDir(libDir), vectorBits(vectorBits) {}

  llvm::StringRef getName() const override { return name; }
  llvm::StringRef getDescription() const override { return description; }
  std::string getTriple() const override { return triple; }
  std::string getDefaultCpu() const override {
    // Compiling for the machine we run on is the common case; cross targets
    // get a generic baseline.
    llvm::Triple host(llvm::sys::getProcessTriple());
    if (host.getArch() == llvm::Triple(triple).getArch())
      return llvm::sys::getHostCPUName().str();
    return defaultCpu;
  }
  void buildLoweringPipeline(mlir::OpPassManager &pm,
                             const TargetOptions &options) const override {
    CpuScheduleOptions schedule;
    schedule.vectorBits = vectorBits;
    buildCpuLoweringPipeline(pm, schedule);
  }
  llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objects,
                                llvm::StringRef output) const override {
    std::vector<std::string> args{"-L" + libDir, "-L/lib/" + triple,
                                  "-lm", "-lc"};
    return linkSharedLibraryWithLld(objects, output, args);
  }

private:
  std::string name, description, triple, defaultCpu, libDir;
  unsigned vectorBits;
};

} // namespace

void registerCpuTargets() {
  registerTarget("x86_64", [] {
    return std::make_unique<CpuTarget>(
        "x86_64", "x86-64 Linux (AVX2/AVX-512 as the CPU allows)",
        "x86_64-linux-gnu", "x86-64-v3", "/usr/lib/x86_64-linux-gnu", 256);
  });
  registerTarget("aarch64", [] {
    return std::make_unique<CpuTarget>(
        "aarch64", "AArch64 Linux with NEON", "aarch64-linux-gnu",
        "neoverse-n1", "/usr/aarch64-linux-gnu/lib", 128);
  });
}

} // namespace kiln
