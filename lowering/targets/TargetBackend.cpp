//===- TargetBackend.cpp - Target registry and shared defaults ------------===//

#include "lowering/targets/TargetBackend.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln {

static llvm::StringMap<TargetFactory> &registry() {
  static llvm::StringMap<TargetFactory> targets;
  return targets;
}

void registerTarget(llvm::StringRef name, TargetFactory factory) {
  registry()[name] = std::move(factory);
}

std::unique_ptr<TargetBackend> createTarget(llvm::StringRef name) {
  auto it = registry().find(name);
  if (it == registry().end())
    return nullptr;
  return it->second();
}

std::vector<std::string> getRegisteredTargetNames() {
  std::vector<std::string> names;
  for (auto &entry : registry())
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

std::string TargetBackend::getTuningTarget(const TargetOptions &options) const {
  std::string cpu = options.cpu.empty() ? getDefaultCpu() : options.cpu;
  if (cpu == "native")
    cpu = llvm::sys::getHostCPUName().str();
  std::string key = getName().str() + ":" + cpu;
  if (!options.features.empty())
    key += "+" + options.features;
  return key;
}

std::vector<std::vector<int64_t>> SearchSpace::enumerate() const {
  std::vector<std::vector<int64_t>> out;
  if (knobs.empty())
    return out;
  for (const Knob &knob : knobs)
    if (knob.values.empty())
      return out;
  std::vector<size_t> index(knobs.size(), 0);
  std::vector<int64_t> candidate(knobs.size());
  while (true) {
    for (size_t k = 0; k < knobs.size(); ++k)
      candidate[k] = knobs[k].values[index[k]];
    if (!isValid || isValid(candidate))
      out.push_back(candidate);
    // Mixed-radix increment, last knob fastest.
    size_t k = knobs.size();
    while (k > 0 && ++index[k - 1] == knobs[k - 1].values.size())
      index[--k] = 0;
    if (k == 0)
      return out;
  }
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
TargetBackend::createTargetMachine(const TargetOptions &options) const {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  llvm::Triple triple(getTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("target '" + getTriple() +
                                   "' is not available: " + error);
  std::string cpu = options.cpu.empty() ? getDefaultCpu() : options.cpu;
  std::string features = getDefaultFeatures();
  if (cpu == "native") {
    llvm::Triple host(llvm::sys::getProcessTriple());
    if (host.getArch() != triple.getArch())
      return llvm::createStringError(
          "--cpu native needs a target of this machine's architecture (" +
          host.getArchName().str() + "), not " + getTriple());
    cpu = llvm::sys::getHostCPUName().str();
    // The host's own feature list: a virtual machine may hide some of what
    // the CPU's name implies.
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (features.empty() ? "" : ",") +
                  std::string(feature.second ? "+" : "-") +
                  feature.first().str();
  }
  if (!options.features.empty())
    features += (features.empty() ? "" : ",") + options.features;
  llvm::TargetOptions targetOptions;
  configureLlvmOptions(targetOptions);
  auto level = options.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
               : options.optLevel == 0 ? llvm::CodeGenOptLevel::None
                                       : llvm::CodeGenOptLevel::Default;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, cpu, features, targetOptions,
                                  llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    return llvm::createStringError("cannot create a target machine for " +
                                   getTriple() + " cpu " + cpu);
  return tm;
}

std::string
TargetBackend::getRequiredCpuFeatures(const llvm::TargetMachine &tm) const {
  std::string required;
  for (const std::string &feature : getCheckedCpuFeatures())
    if (tm.getMCSubtargetInfo()->checkFeatures("+" + feature))
      required += (required.empty() ? "" : ",") + feature;
  return required;
}

} // namespace kiln
