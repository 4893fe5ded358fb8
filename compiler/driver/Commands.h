//===- Commands.h - kiln CLI subcommands ------------------------*- C++ -*-===//
#ifndef KILN_COMPILER_DRIVER_COMMANDS_H
#define KILN_COMPILER_DRIVER_COMMANDS_H

#include <string>
#include <vector>

namespace kiln::driver {

using Args = std::vector<std::string>;

/// Prints "kiln: error: <message>" to stderr and returns exit code 1.
int fail(const std::string &message);

int runImport(const Args &args);
int runCompile(const Args &args);
int runOps(const Args &args);
int runTargets(const Args &args);
int runRun(const Args &args);
int runInspect(const Args &args);
/// `inspect` of an .onnx file (needs the importer).
int inspectOnnx(const std::string &path);

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_COMMANDS_H
