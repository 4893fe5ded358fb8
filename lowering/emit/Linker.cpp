//===- Linker.cpp - Link objects into a shared library with lld -----------===//

#include "lowering/emit/Linker.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

namespace kiln {

static llvm::ErrorOr<std::string> findLld() {
  for (const char *name : {"ld.lld-22", "ld.lld"})
    if (auto path = llvm::sys::findProgramByName(name))
      return path;
  return llvm::sys::findProgramByName("ld.lld", {"/usr/lib/llvm-22/bin"});
}

llvm::Error linkSharedLibraryWithLld(llvm::ArrayRef<std::string> objects,
                                     llvm::StringRef output,
                                     llvm::ArrayRef<std::string> extraArgs) {
  auto lld = findLld();
  if (!lld)
    return llvm::createStringError("ld.lld not found (install lld-22)");
  std::vector<std::string> args{*lld, "-shared",     "--as-needed",
                                "-z", "noexecstack", "-O1",
                                "-o", output.str()};
  args.insert(args.end(), objects.begin(), objects.end());
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());

  llvm::SmallString<128> errFile;
  if (auto ec = llvm::sys::fs::createTemporaryFile("kiln-lld", "txt", errFile))
    return llvm::errorCodeToError(ec);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, errFile.str(),
                                                errFile.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(*lld, argRefs, std::nullopt, redirects, 0,
                                     0, &execError);
  std::string log;
  if (auto buf = llvm::MemoryBuffer::getFile(errFile))
    log = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(errFile);
  if (rc != 0)
    return llvm::createStringError("linking " + output.str() + " failed: " +
                                   (execError.empty() ? log : execError));
  return llvm::Error::success();
}

} // namespace kiln
