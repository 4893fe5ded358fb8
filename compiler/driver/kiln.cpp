//===- kiln.cpp - The kiln command-line driver ----------------------------===//
//
// Parses the command line with llvm::cl subcommands (help per command,
// typed options, response files, `--version`) and runs the chosen one.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Commands.h"
#include "lowering/targets/TargetBackend.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>
#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

using namespace kiln::driver;
namespace cl = llvm::cl;

int kiln::driver::fail(const std::string &message) {
  llvm::errs() << "kiln: error: " << message << "\n";
  return 1;
}

static void printVersion(llvm::raw_ostream &os) {
  os << "kiln " << KILN_VERSION << "\n";
  os << "  LLVM/MLIR " << LLVM_VERSION_STRING << "\n";
  os << "  targets: " << llvm::join(kiln::getRegisteredTargetNames(), ", ")
     << "\n";
}

/// `kiln compile` copies a model's weights several times (protobuf, MLIR
/// blobs, LLVM constants, the object file), and on a virtual machine each
/// fresh 4 KiB page of them costs a fault: VGG-11's 507 MB took 6-9 s of
/// system time. glibc's malloc asks for transparent huge pages when its
/// tunable says so, which it reads only at start: set it and start again
/// (VGG-11: 9.4-11.1 -> 7.3-8.7 s). Where the exec fails, go on as is.
static void preferHugePages(int argc, char **argv) {
#if defined(__linux__) && defined(__GLIBC__)
  if (argc < 2 || std::strcmp(argv[1], "compile") != 0)
    return;
  const char *tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.hugetlb"))
    return;
  std::string value = "glibc.malloc.hugetlb=1";
  if (tunables && *tunables)
    value = std::string(tunables) + ":" + value;
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) == 0)
    execv("/proc/self/exe", argv);
#else
  (void)argc;
  (void)argv;
#endif
}

int main(int argc, char **argv) {
  preferHugePages(argc, argv);
  // Targets first: `--target` values and `--version` list them.
  kiln::registerAllTargets();
  const Command *commands[] = {
      &CompileCommand, &RunCommand,     &ProfileCommand, &InspectCommand,
      &ImportCommand,  &TargetsCommand, &OpsCommand,     &TuneCommand,
      &PruneCommand,   &CheckCommand,   &QuantizeCommand};
  cl::SetVersionPrinter(printVersion);
  // libLLVM registers its own options at the top level, where kiln has
  // none of its own: `kiln --help` lists only the commands and the generic
  // options. Each command's options live in its subcommand.
  static cl::OptionCategory topLevel("kiln");
  cl::HideUnrelatedOptions(topLevel);
  if (!cl::ParseCommandLineOptions(
          argc, argv, "kiln: an ahead-of-time compiler for ONNX models\n",
          &llvm::errs()))
    return 1;
  for (const Command *command : commands)
    if (command->sub)
      return command->run();
  cl::PrintHelpMessage();
  return 1;
}
