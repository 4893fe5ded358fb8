//===- CpuTargetBackend.cpp - Shared base of the CPU targets --------------===//

#include "lowering/cpu/CpuTargetBackend.h"
#include "lowering/cpu/CpuPipeline.h"
#include "lowering/emit/Linker.h"

#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln {

std::string CpuTargetBackend::getDefaultCpu() const {
  // Compiling for the machine we run on is the common case; cross targets
  // get a generic baseline.
  llvm::Triple host(llvm::sys::getProcessTriple());
  if (host.getArch() == llvm::Triple(desc.triple).getArch())
    return llvm::sys::getHostCPUName().str();
  return desc.defaultCpu;
}

void CpuTargetBackend::buildLoweringPipeline(
    mlir::OpPassManager &pm, const TargetOptions &options) const {
  CpuScheduleOptions schedule;
  schedule.vectorBits = getVectorBits(options);
  buildCpuLoweringPipeline(pm, schedule);
}

llvm::Error
CpuTargetBackend::linkSharedLibrary(llvm::ArrayRef<std::string> objects,
                                    llvm::StringRef output) const {
  std::vector<std::string> args;
  for (const std::string &dir : desc.libDirs)
    args.push_back("-L" + dir);
  args.push_back("-L/lib/" + desc.triple);
  args.push_back("-lm");
  args.push_back("-lc");
  return linkSharedLibraryWithLld(objects, output, args);
}

} // namespace kiln
