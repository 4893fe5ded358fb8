//===- ModelLibrary.h - ABI entry, metadata, object and header --*- C++ -*-===//
//
// Turns the LLVM IR of a lowered model into what kiln_model_abi.h promises:
// a `kiln_model_get` symbol returning the model descriptor, whose `run`
// unpacks plain buffers into the memref arguments of the compiled entry.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_EMIT_MODELLIBRARY_H
#define KILN_LOWERING_EMIT_MODELLIBRARY_H

#include "lowering/emit/ModelSignature.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Constant;
class DataLayout;
class TargetMachine;
} // namespace llvm

namespace kiln {

/// One entry of a profiled library's kernel table (kiln_kernel_info).
struct KernelInfo {
  std::string symbol, node, opType, fused;
  double nodeFlops = 0;
};

/// A specialization of the model for static input dims linked into the same
/// library (`kiln compile --specialize`): its entry function, signature and
/// whether that entry takes the arena.
struct ModelVariant {
  std::string entry;
  ModelSignature sig;
  /// Dims the variant keeps symbolic but takes only within [lo, hi]
  /// (`--specialize x=1x3x48x160..640`): input index, dim, bounds.
  struct DimRange {
    int64_t input, dim, lo, hi;
  };
  std::vector<DimRange> ranges;
  bool entryTakesArena = false;
  /// The function computing its arena bytes from the run's dims, when its
  /// memory plan places buffers of symbolic size; empty otherwise.
  std::string arenaBytesFunction;
};

struct ModelLibraryInfo {
  std::string target;
  /// CPU compiled for and the CPU features kiln_rt checks at load time.
  std::string cpu;
  std::string cpuFeatures;
  uint64_t arenaBytes = 0;
  uint64_t arenaAlignment = 64;
  uint64_t arenaLowerBound = 0;
  /// True when the entry takes a trailing arena memref argument.
  bool entryTakesArena = false;
  /// The function computing the arena bytes a run needs from its dims (the
  /// entry's arguments without the arena), when the memory plan places
  /// buffers of symbolic size; empty otherwise.
  std::string arenaBytesFunction;
  /// The kernels of a `--profile` library, by index.
  std::vector<KernelInfo> kernels;
  /// With `--weights external`: the weights file's name (beside the
  /// library), its size and checksum; empty when the weights are inside.
  std::string externalWeightsFile;
  uint64_t externalWeightsBytes = 0;
  uint64_t externalWeightsChecksum = 0;
  /// Where the kernels run ("cuda:sm_90"); empty for CPU code. The launcher
  /// functions the host code calls, by kiln_rt's names, in table order.
  std::string device;
  std::vector<std::string> deviceCalls;
  /// Specializations: a run whose input dims equal one's static dims (and
  /// lie in its ranges) takes its entry, any other the generic one.
  /// arenaBytes covers them all.
  std::vector<ModelVariant> variants;
};

/// Name of the compiled graph function inside the library.
inline constexpr const char *kEntryFunctionName = "kiln_entry";

/// The writable pointer through which code reads external weights.
inline constexpr const char *kWeightsBaseSymbol = "kiln.weights_base";

/// The table of launcher functions kiln_rt fills (routeDeviceCalls).
inline constexpr const char *kDeviceCallsSymbol = "kiln.device_calls";
/// Makes every launcher function the GPU lowering declares an internal stub
/// calling through `kiln.device_calls`, whose slot names go to `names`, and
/// moves the kernel modules' constructors to the start of `entryName`.
llvm::Error routeDeviceCalls(llvm::Module &module, llvm::StringRef entryName,
                             std::vector<std::string> &names);
/// Moves every weight global's bytes into the returned blob (64-byte
/// aligned offsets) and rewrites the code to read them through
/// `kiln.weights_base`; an empty blob when the module has no weights.
llvm::Expected<std::string> externalizeWeights(llvm::Module &module);
/// FNV-1a 64 of `bytes`, continuing from `hash` (as kiln_rt checks the
/// weights file).
inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;
uint64_t fnv1a64(llvm::StringRef bytes, uint64_t hash = kFnv1a64Offset);
/// Appends the raw bytes of a constant initializer to `out`; false when some
/// of it is not plain data (those parts are left out).
bool appendConstantBytes(const llvm::Constant *c, const llvm::DataLayout &dl,
                         std::string &out);

/// Adds `kiln_model_get`, the descriptor and the run wrapper to `module`,
/// and makes every other definition internal.
llvm::Error addModelEntryPoints(llvm::Module &module, const ModelSignature &sig,
                                const ModelLibraryInfo &info);

/// FNV-1a 64 over the bytes of every constant global (the weights).
uint64_t computeWeightsChecksum(const llvm::Module &module);

/// Code-generation choices for optimizeAndEmitObjects.
struct CodegenOptions {
  unsigned optLevel = 3;
  /// Number of partitions the module is split into, each optimized and
  /// compiled on its own thread; 0 picks one from the hardware threads and
  /// the module's size (small modules stay in one piece).
  unsigned threads = 0;
  /// When set, also write the target assembly of the model here, one
  /// section per partition.
  std::string asmPath;
};

/// Creates another target machine like the one passed alongside it; each
/// code-generation thread needs its own. Called on the calling thread only.
using TargetMachineFactory =
    llvm::function_ref<llvm::Expected<std::unique_ptr<llvm::TargetMachine>>()>;

/// Runs the LLVM optimization pipeline and code generation on `module`,
/// writing one or more temporary object files whose paths are appended to
/// `objects` (also on failure); the caller links and removes them. When the
/// module is split, `module` is left holding only the first partition.
llvm::Error optimizeAndEmitObjects(llvm::Module &module,
                                   llvm::TargetMachine &tm,
                                   TargetMachineFactory createTargetMachine,
                                   const CodegenOptions &options,
                                   llvm::SmallVectorImpl<std::string> &objects);

/// Writes the C header describing the model's inputs and outputs.
llvm::Error writeModelHeader(const ModelSignature &sig,
                             const ModelLibraryInfo &info,
                             llvm::StringRef path);

} // namespace kiln

#endif // KILN_LOWERING_EMIT_MODELLIBRARY_H
