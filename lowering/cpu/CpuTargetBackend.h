//===- CpuTargetBackend.h - Shared base of the CPU targets ------*- C++ -*-===//
//
// Every CPU target runs the same linalg-to-LLVM pipeline (CpuPipeline.h) and
// links with ld.lld against its C library; what differs is data: triple,
// default CPU and features, vector width, library directories. A target
// folder under lowering/targets/ subclasses this and overrides only what its
// architecture does differently.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_CPUTARGETBACKEND_H
#define KILN_LOWERING_CPU_CPUTARGETBACKEND_H

#include "compiler/pipeline/TargetBackend.h"

#include <string>
#include <vector>

namespace kiln {

struct CpuTargetDescription {
  std::string name;        // `--target` value
  std::string description; // one line for `kiln targets`
  std::string triple;      // LLVM triple, also the multiarch directory name
  std::string defaultCpu;  // used when not compiling for the host
  std::string defaultFeatures;
  unsigned vectorBits = 0;
  /// Where the target's libc.so/libm.so live (searched in order).
  std::vector<std::string> libDirs;
};

class CpuTargetBackend : public TargetBackend {
public:
  explicit CpuTargetBackend(CpuTargetDescription desc)
      : desc(std::move(desc)) {}

  llvm::StringRef getName() const override { return desc.name; }
  llvm::StringRef getDescription() const override { return desc.description; }
  std::string getTriple() const override { return desc.triple; }
  /// The host CPU when the target is the host's architecture, else the
  /// description's generic baseline.
  std::string getDefaultCpu() const override;
  std::string getDefaultFeatures() const override {
    return desc.defaultFeatures;
  }
  unsigned getVectorBits(const TargetOptions &) const override {
    return desc.vectorBits;
  }
  std::vector<std::string> getScheduleKeys() const override;
  void buildLoweringPipeline(mlir::OpPassManager &pm,
                             const TargetOptions &options) const override;
  llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objects,
                                llvm::StringRef output) const override;

protected:
  CpuTargetDescription desc;
};

} // namespace kiln

#endif // KILN_LOWERING_CPU_CPUTARGETBACKEND_H
