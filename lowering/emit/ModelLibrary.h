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

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace kiln {

struct ModelLibraryInfo {
  std::string target;
  uint64_t arenaBytes = 0;
  uint64_t arenaAlignment = 64;
  uint64_t arenaLowerBound = 0;
  /// True when the entry takes a trailing arena memref argument.
  bool entryTakesArena = false;
};

/// Name of the compiled graph function inside the library.
inline constexpr const char *kEntryFunctionName = "kiln_entry";

/// Adds `kiln_model_get`, the descriptor and the run wrapper to `module`,
/// and makes every other definition internal.
llvm::Error addModelEntryPoints(llvm::Module &module, const ModelSignature &sig,
                                const ModelLibraryInfo &info);

/// FNV-1a 64 over the bytes of every constant global (the weights).
uint64_t computeWeightsChecksum(const llvm::Module &module);

/// Runs the LLVM optimization pipeline and writes an object file, and the
/// same code as assembly to `asmPath` when it is not empty.
llvm::Error optimizeAndEmitObject(llvm::Module &module, llvm::TargetMachine &tm,
                                  unsigned optLevel, llvm::StringRef path,
                                  llvm::StringRef asmPath = "");

/// Writes the C header describing the model's inputs and outputs.
llvm::Error writeModelHeader(const ModelSignature &sig,
                             const ModelLibraryInfo &info,
                             llvm::StringRef path);

} // namespace kiln

#endif // KILN_LOWERING_EMIT_MODELLIBRARY_H
