//===- CpuTargetBackend.cpp - CPU targets described by data ---------------===//

#include "lowering/targets/cpu/CpuTargetBackend.h"
#include "lowering/emit/Linker.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace kiln {

/// The knobs of CpuScheduleOptions that `--schedule` may set, by the names
/// a per-op `kiln.schedule` attribute uses.
static std::vector<std::pair<std::string, int64_t CpuScheduleOptions::*>>
scheduleFields() {
  return {{"vector_bits", &CpuScheduleOptions::vectorBits},
          {"tile_m", &CpuScheduleOptions::tileM},
          {"tile_n", &CpuScheduleOptions::tileN},
          {"tile_k", &CpuScheduleOptions::tileK},
          {"reg_m", &CpuScheduleOptions::regM},
          {"reg_n", &CpuScheduleOptions::regN},
          {"reg_k", &CpuScheduleOptions::regK},
          {"pack_row_bytes", &CpuScheduleOptions::packRowBytes},
          {"pack_a_row_bytes", &CpuScheduleOptions::packARowBytes},
          {"parallel", &CpuScheduleOptions::parallel},
          {"min_parallel_work", &CpuScheduleOptions::minParallelWork},
          {"conv_to_im2col", &CpuScheduleOptions::convToIm2Col},
          {"winograd", &CpuScheduleOptions::winograd},
          {"packed_weights", &CpuScheduleOptions::packedWeights},
          {"block_bytes", &CpuScheduleOptions::blockBytes},
          {"loop_order", &CpuScheduleOptions::loopOrder},
          {"max_chunks", &CpuScheduleOptions::maxChunks},
          {"cache_bytes", &CpuScheduleOptions::cacheBytes},
          {"shared_cache_bytes", &CpuScheduleOptions::sharedCacheBytes},
          {"sparse_weights", &CpuScheduleOptions::sparseWeights}};
}

/// Which of `features` the machine `options` describe enables.
static std::vector<bool> enabledFeatures(const CpuTargetBackend &target,
                                         llvm::ArrayRef<std::string> features,
                                         const TargetOptions &options) {
  std::vector<bool> on(features.size(), false);
  if (features.empty())
    return on;
  auto tm = target.createTargetMachine(options);
  if (!tm) {
    // The compile reports the same error when it creates its machine.
    llvm::consumeError(tm.takeError());
    return on;
  }
  const llvm::MCSubtargetInfo *sti = (*tm)->getMCSubtargetInfo();
  for (auto [i, feature] : llvm::enumerate(features))
    on[i] = sti->checkFeatures("+" + feature);
  return on;
}

unsigned CpuTargetBackend::bitsByFeature(
    const std::vector<std::pair<std::string, unsigned>> &byFeature,
    unsigned otherwise, const TargetOptions &options) const {
  std::vector<std::string> features;
  for (const auto &entry : byFeature)
    features.push_back(entry.first);
  std::vector<bool> on = enabledFeatures(*this, features, options);
  for (auto [i, entry] : llvm::enumerate(byFeature))
    if (on[i])
      return entry.second;
  return otherwise;
}

std::vector<std::string>
CpuTargetBackend::getPrecisions(const TargetOptions &options) const {
  std::vector<std::string> precisions = {"fp32"}, features;
  for (const auto &entry : desc.precisionsByFeature)
    features.push_back(entry.second);
  std::vector<bool> on = enabledFeatures(*this, features, options);
  for (auto [i, entry] : llvm::enumerate(desc.precisionsByFeature))
    if (on[i])
      precisions.push_back(entry.first);
  return precisions;
}

std::string
CpuTargetBackend::getPrecisionNeeds(llvm::StringRef precision) const {
  for (const auto &[name, feature] : desc.precisionsByFeature)
    if (name == precision)
      return feature;
  return "";
}

unsigned CpuTargetBackend::getVectorBits(const TargetOptions &options) const {
  return bitsByFeature(desc.vectorBitsByFeature, desc.baseVectorBits, options);
}

unsigned CpuTargetBackend::getInt8DotBits(const TargetOptions &options) const {
  return bitsByFeature(desc.int8DotBitsByFeature, 0, options);
}

CpuScheduleOptions
CpuTargetBackend::getSchedule(const TargetOptions &options) const {
  CpuScheduleOptions schedule = desc.schedule;
  schedule.vectorBits = getVectorBits(options);
  for (const auto &[key, value] : options.schedule)
    for (const auto &field : scheduleFields())
      if (field.first == key)
        schedule.*field.second = value;
  schedule.scheduleFile = options.scheduleFile;
  schedule.schedules = options.schedules;
  return schedule;
}

TargetBackend::ScheduleValues
CpuTargetBackend::getScheduleDefaults(const TargetOptions &options) const {
  TargetOptions noOverrides = options;
  noOverrides.schedule.clear();
  CpuScheduleOptions schedule = getSchedule(noOverrides);
  ScheduleValues values;
  for (const auto &field : scheduleFields())
    values.emplace_back(field.first, schedule.*field.second);
  return values;
}

void CpuTargetBackend::buildLoweringPipeline(
    mlir::OpPassManager &pm, const TargetOptions &options) const {
  CpuScheduleOptions schedule = getSchedule(options);
  CpuDotKernels dot;
  dot.arch = llvm::StringRef(desc.triple).split('-').first.str();
  unsigned int8Bits = getInt8DotBits(options);
  dot.int8 = int8Bits && int8Bits == schedule.vectorBits;
  if (!desc.int8MixedSignFeature.empty())
    dot.int8Signed =
        !enabledFeatures(*this, {desc.int8MixedSignFeature}, options)[0];
  dot.bf16 = options.precision == "bf16";
  std::vector<bool> tiles = enabledFeatures(*this, desc.tileFeatures, options);
  dot.amx = !tiles.empty() && llvm::all_of(tiles, [](bool on) { return on; });
  buildCpuLoweringPipeline(pm, schedule, options.profile, dot);
}

void CpuTargetBackend::configureLlvmOptions(
    llvm::TargetOptions &options) const {
  if (!desc.abiName.empty())
    options.MCOptions.ABIName = desc.abiName;
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
