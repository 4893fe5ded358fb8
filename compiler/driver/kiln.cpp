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

int main(int argc, char **argv) {
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
