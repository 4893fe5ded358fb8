//===- CpuTargetBackend.h - CPU targets described by data -------*- C++ -*-===//
//
// Every CPU target runs the same linalg-to-LLVM pipeline (CpuPipeline.h) and
// links with ld.lld against its C library; what differs is data: triple,
// default CPU and features, vector width per CPU feature, ABI, library
// directories, the features checked at load time and the default schedule.
// A target folder under lowering/targets/ fills a CpuTargetDescription and
// registers a CpuTargetBackend made from it; it writes code only for what
// the description cannot say.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TARGETS_CPU_CPUTARGETBACKEND_H
#define KILN_LOWERING_TARGETS_CPU_CPUTARGETBACKEND_H

#include "lowering/cpu/CpuPipeline.h"
#include "lowering/targets/TargetBackend.h"

#include <string>
#include <utility>
#include <vector>

namespace kiln {

struct CpuTargetDescription {
  std::string name;        // `--target` value
  std::string description; // one line for `kiln targets`
  std::string triple;      // LLVM triple, also the multiarch directory name
  /// Portable baseline used without `--cpu` (see TargetBackend).
  std::string defaultCpu;
  /// LLVM features always on, before `--features`.
  std::string defaultFeatures;
  /// LLVM ABI name where the triple alone implies the wrong one (RISC-V's
  /// soft-float lp64); empty: the triple's.
  std::string abiName;
  /// Vector width by CPU feature: the first (feature, bits) whose feature
  /// the chosen CPU and `--features` enable gives the width the schedule
  /// tiles for; `baseVectorBits` when none does (0: scalar).
  std::vector<std::pair<std::string, unsigned>> vectorBitsByFeature;
  unsigned baseVectorBits = 0;
  /// The same for the 8-bit dot-product instruction (none: 0).
  std::vector<std::pair<std::string, unsigned>> int8DotBitsByFeature;
  /// The feature whose instruction multiplies u8 by s8, as the integer
  /// products are written; without it the instruction found above is
  /// s8 x s8 and the kernel moves the rows to s8 (empty: always u8 x s8).
  std::string int8MixedSignFeature;
  /// `--precision` values beyond fp32, each with the CPU feature it needs
  /// (the dot kernel's instructions, kiln-cpu-dot-kernel).
  std::vector<std::pair<std::string, std::string>> precisionsByFeature;
  /// CPU features that together give matrix tiles for the int8 and bf16
  /// products (x86 AMX); empty: none.
  std::vector<std::string> tileFeatures;
  /// Vector registers the register tiles may fill (x86 with AVX-512 has
  /// 32 whatever this says).
  unsigned vectorRegisters = 16;
  /// Where the target's libc.so/libm.so live (searched in order).
  std::vector<std::string> libDirs;
  /// Features kiln_rt checks at load time (see getCheckedCpuFeatures).
  std::vector<std::string> checkedCpuFeatures;
  /// The target's default schedule; `vectorBits` comes from the rules
  /// above, and `--schedule KEY=N` overrides any field.
  CpuScheduleOptions schedule;
};

class CpuTargetBackend : public TargetBackend {
public:
  explicit CpuTargetBackend(CpuTargetDescription desc)
      : desc(std::move(desc)) {}

  llvm::StringRef getName() const override { return desc.name; }
  llvm::StringRef getDescription() const override { return desc.description; }
  std::string getTriple() const override { return desc.triple; }
  std::string getDefaultCpu() const override { return desc.defaultCpu; }
  std::string getDefaultFeatures() const override {
    return desc.defaultFeatures;
  }
  /// Width in bits of the vector registers the schedule tiles for under
  /// `options` (from the description's vectorBitsByFeature); 0: scalar.
  unsigned getVectorBits(const TargetOptions &options) const;
  unsigned getInt8DotBits(const TargetOptions &options) const override;
  std::vector<std::string>
  getPrecisions(const TargetOptions &options) const override;
  std::string getPrecisionNeeds(llvm::StringRef precision) const override;
  std::vector<std::string> getCheckedCpuFeatures() const override {
    return desc.checkedCpuFeatures;
  }
  ScheduleValues
  getScheduleDefaults(const TargetOptions &options) const override;
  void buildLoweringPipeline(mlir::OpPassManager &pm,
                             const TargetOptions &options) const override;
  llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objects,
                                llvm::StringRef output) const override;
  // CpuSearchSpace.cpp
  llvm::Expected<std::vector<TunableOp>>
  getTunableOps(mlir::ModuleOp module,
                const TargetOptions &options) const override;
  SearchSpace getSearchSpace(const TunableOp &op, const TargetOptions &options,
                             int threads) const override;

  /// The schedule the pipeline runs with: the description's defaults, the
  /// vector width of the chosen CPU, then `--schedule` (later entries win).
  CpuScheduleOptions getSchedule(const TargetOptions &options) const;

protected:
  /// The bits of the first entry of `byFeature` whose feature the chosen
  /// CPU enables, else `otherwise`.
  unsigned
  bitsByFeature(const std::vector<std::pair<std::string, unsigned>> &byFeature,
                unsigned otherwise, const TargetOptions &options) const;
  void configureLlvmOptions(llvm::TargetOptions &options) const override;

  CpuTargetDescription desc;
};

} // namespace kiln

#endif // KILN_LOWERING_TARGETS_CPU_CPUTARGETBACKEND_H
