//===- Commands.h - kiln CLI subcommands ------------------------*- C++ -*-===//
//
// Each command family declares its llvm::cl subcommands and their options
// next to its implementation; kiln.cpp parses the command line once and
// calls the chosen command's entry point.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_COMMANDS_H
#define KILN_COMPILER_DRIVER_COMMANDS_H

#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/CommandLine.h"

#include <memory>

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
// TuneCommands.cpp: tune (sweeps, merge, report).
extern Command TuneCommand;
/// `tune`, which shares compile's target options (declared with them).
llvm::cl::SubCommand &getTuneSubCommand();

/// A context with every dialect kiln's pipelines use, multithreading off
/// (compiles are parallelized across models, not within one).
std::unique_ptr<mlir::MLIRContext> makeContext();
/// An ONNX model imported, or a kiln.graph module parsed from `.mlir`;
/// prints the error and fails otherwise.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
loadModel(mlir::MLIRContext &ctx, const std::string &path);
/// Target, CPU, features, layout and schedule options of compile and tune
/// into `options`; nonzero (after printing why) if they are wrong.
/// `allowBundle`: several targets (and NAME:CPU) may be given; the first
/// one's go into `options`.
int getTargetOptions(CompileOptions &options, bool allowBundle = false);
// PruneCommand.cpp: prune.
extern Command PruneCommand;
// CheckCommand.cpp: check (a compiled model against the fp32 model).
extern Command CheckCommand;
// QuantizeCommand.cpp: quantize (INT8 post-training quantization).
extern Command QuantizeCommand;
// RunCommands.cpp: run, profile, inspect.
extern Command RunCommand, ProfileCommand, InspectCommand;

/// `inspect` of an .onnx file (needs the importer).
int inspectOnnx(const std::string &path);

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_COMMANDS_H
