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

/// The knobs of CpuScheduleOptions that `--schedule` may set, by the names
/// a per-op `kiln.schedule` attribute uses.
static std::vector<std::pair<std::string, int64_t CpuScheduleOptions::*>>
scheduleFields() {
  return {{"tile_m", &CpuScheduleOptions::tileM},
          {"tile_n", &CpuScheduleOptions::tileN},
          {"tile_k", &CpuScheduleOptions::tileK},
          {"reg_m", &CpuScheduleOptions::regM},
          {"reg_n", &CpuScheduleOptions::regN},
          {"reg_k", &CpuScheduleOptions::regK},
          {"pack_row_bytes", &CpuScheduleOptions::packRowBytes},
          {"pack_a_row_bytes", &CpuScheduleOptions::packARowBytes},
          {"min_parallel_work", &CpuScheduleOptions::minParallelWork}};
}

std::vector<std::string> CpuTargetBackend::getScheduleKeys() const {
  std::vector<std::string> keys;
  for (const auto &field : scheduleFields())
    keys.push_back(field.first);
  return keys;
}

void CpuTargetBackend::buildLoweringPipeline(
    mlir::OpPassManager &pm, const TargetOptions &options) const {
  CpuScheduleOptions schedule;
  schedule.vectorBits = getVectorBits(options);
  for (const auto &[key, value] : options.schedule)
    for (const auto &field : scheduleFields())
      if (field.first == key)
        schedule.*field.second = value;
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
