//===- Linker.h - Link objects into a shared library with lld ---*- C++ -*-===//
#ifndef KILN_LOWERING_EMIT_LINKER_H
#define KILN_LOWERING_EMIT_LINKER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

/// Runs ld.lld to produce a shared library from `objects`; `extraArgs` are
/// target-specific (emulation, library paths, libraries).
llvm::Error linkSharedLibraryWithLld(llvm::ArrayRef<std::string> objects,
                                     llvm::StringRef output,
                                     llvm::ArrayRef<std::string> extraArgs);

} // namespace kiln

#endif // KILN_LOWERING_EMIT_LINKER_H
