//===- TargetBackend.h - One class per code-generation target ---*- C++ -*-===//
//
// A target owns everything after linalg: the lowering pipeline to LLVM (or
// GPU) dialects, the LLVM target machine, and the link step. The driver and
// pipeline only talk to this interface, so adding a target means adding one
// folder under lowering/targets/ and one registration line. Notions of one
// family of targets (vector width, CPU schedules) live in that family's
// sub-interface (cpu/CpuTargetBackend.h), not here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TARGETS_TARGETBACKEND_H
#define KILN_LOWERING_TARGETS_TARGETBACKEND_H

#include "lowering/targets/SearchSpace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
class TargetOptions;
} // namespace llvm

namespace kiln {

/// User-facing code-generation choices, from `kiln compile` flags.
struct TargetOptions {
  /// Empty: the target's portable default; "native": the host's CPU and
  /// features (only for a target of the host's architecture).
  std::string cpu;
  std::string features; // extra LLVM features, "+avx2,-avx512f"
  unsigned optLevel = 3;
  /// Schedule parameters from `--schedule key=value,...`, applied to every
  /// op in order (a later entry for the same key wins); names are those of
  /// getScheduleDefaults().
  std::vector<std::pair<std::string, int64_t>> schedule;
  /// Per-op schedules (JSON keyed by op identity; `--schedule-file`),
  /// applied after `schedule`.
  std::string scheduleFile;
  /// Per-op schedules as JSON text, keyed by signature (from a tuning
  /// database: `--tuning-db`); the schedule file's entries win.
  std::string schedules;
  /// Time every kernel through kiln_rt (`kiln compile --profile`).
  bool profile = false;
  /// Arithmetic of contractions (`--precision`): "fp32", or one of the
  /// target's getPrecisions() that trades accuracy for speed.
  std::string precision = "fp32";
  /// A device target's kernels run as host loops, in a CPU library
  /// (`--emulate-device`: checks a mapping where the device is absent).
  bool emulateDevice = false;
};

class TargetBackend {
public:
  virtual ~TargetBackend() = default;
  /// Name used by `--target`.
  virtual llvm::StringRef getName() const = 0;
  virtual llvm::StringRef getDescription() const = 0;
  virtual std::string getTriple() const = 0;
  /// The CPU compiled for without `--cpu`: a portable baseline, so that a
  /// library built on one machine runs on others of its architecture.
  virtual std::string getDefaultCpu() const = 0;
  /// LLVM features always enabled for this target, before `--features`.
  virtual std::string getDefaultFeatures() const { return ""; }
  /// Activation layout of convolutions, "nchw" or "nhwc" (see the
  /// kiln-convert-layout pass); `kiln compile --layout` overrides it.
  virtual llvm::StringRef getPreferredConvLayout() const { return "nchw"; }
  /// Width in bits of the vectors of the target's 8-bit dot-product
  /// instruction under `options` (x86's vpdpbusd); 0 when it has none, and
  /// quantized models then compute in float.
  virtual unsigned getInt8DotBits(const TargetOptions &) const { return 0; }
  /// CPU features kiln_rt can check at load time (LLVM's names, as
  /// kiln_rt_cpu_supports knows them); those the compiled code may use are
  /// recorded in the library, which refuses to load where one is missing.
  virtual std::vector<std::string> getCheckedCpuFeatures() const { return {}; }
  /// The checked features the target machine's subtarget enables, joined
  /// with commas.
  std::string getRequiredCpuFeatures(const llvm::TargetMachine &tm) const;
  /// Schedule parameters `--schedule` may set for this target, with the
  /// values the target uses for them under `options` (0 where a heuristic
  /// decides per op).
  using ScheduleValues = std::vector<std::pair<std::string, int64_t>>;
  virtual ScheduleValues getScheduleDefaults(const TargetOptions &) const {
    return {};
  }
  /// The device a library's kernels run on, as kiln_rt names it
  /// ("cuda:sm_90"); empty for code that runs on the CPU alone.
  virtual std::string getDevice(const TargetOptions &) const { return ""; }
  /// The values `--precision` may take for this target under `options`,
  /// "fp32" first.
  virtual std::vector<std::string> getPrecisions(const TargetOptions &) const {
    return {"fp32"};
  }
  /// What `precision`, when the target lacks it under the current options,
  /// would need ("the CPU feature avx512bf16"); empty when nothing would.
  virtual std::string getPrecisionNeeds(llvm::StringRef) const { return ""; }
  /// Dialect extensions and translations the target's pipeline needs
  /// beyond the CPU's (a GPU target's serialization to PTX, say).
  virtual void appendDialectRegistry(mlir::DialectRegistry &) const {}
  /// Adds the passes taking linalg-on-tensors to the LLVM dialect.
  virtual void buildLoweringPipeline(mlir::OpPassManager &pm,
                                     const TargetOptions &options) const = 0;
  /// The ops of `module` (linalg on tensors, as the lowering pipeline gets
  /// it) that the target schedules per op, with static shapes: the tuner's
  /// tasks. Runs the target's schedule selection on the module.
  virtual llvm::Expected<std::vector<TunableOp>>
  getTunableOps(mlir::ModuleOp, const TargetOptions &) const {
    return std::vector<TunableOp>();
  }
  /// The knobs of `op` when its library runs on `threads` threads (a
  /// thread-split knob only matters for more than one).
  virtual SearchSpace getSearchSpace(const TunableOp &op,
                                     const TargetOptions &options,
                                     int threads) const {
    (void)op, (void)options, (void)threads;
    return {};
  }
  /// "name:cpu[+features]": what a schedule was tuned for; a tuned schedule
  /// applies only to compiles with the same string.
  std::string getTuningTarget(const TargetOptions &options) const;
  /// Creates the LLVM target machine for object emission.
  virtual llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
  createTargetMachine(const TargetOptions &options) const;
  /// Links objects into a shared library at `output`.
  virtual llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objects,
                                        llvm::StringRef output) const = 0;

protected:
  /// Hook for code-generation options the triple does not imply (the float
  /// ABI of RISC-V, for instance); called by createTargetMachine.
  virtual void configureLlvmOptions(llvm::TargetOptions &) const {}
};

using TargetFactory = std::function<std::unique_ptr<TargetBackend>()>;

/// Registry of targets by name, filled by registerAllTargets().
void registerTarget(llvm::StringRef name, TargetFactory factory);
std::unique_ptr<TargetBackend> createTarget(llvm::StringRef name);
std::vector<std::string> getRegisteredTargetNames();
void registerAllTargets();

} // namespace kiln

#endif // KILN_LOWERING_TARGETS_TARGETBACKEND_H
