//===- Commands.h - kiln CLI subcommands ------------------------*- C++ -*-===//
//
// Each command family declares its llvm::cl subcommands and their options
// next to its implementation; kiln.cpp parses the command line once and
// calls the chosen command's entry point.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_COMMANDS_H
#define KILN_COMPILER_DRIVER_COMMANDS_H

#include "llvm/Support/CommandLine.h"

#include <string>

namespace kiln::driver {

/// Prints "kiln: error: <message>" to stderr and returns exit code 1.
int fail(const std::string &message);

/// One subcommand: its llvm::cl registration and what runs when it is
/// chosen.
struct Command {
  llvm::cl::SubCommand &sub;
  int (*run)();
};

// CompileCommands.cpp: compile, import, ops, targets.
extern Command CompileCommand, ImportCommand, OpsCommand, TargetsCommand;
// RunCommands.cpp: run, inspect.
extern Command RunCommand, InspectCommand;

/// `inspect` of an .onnx file (needs the importer).
int inspectOnnx(const std::string &path);

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_COMMANDS_H
