//===- Samples.h - Folders of model inputs, run through a library -*- C++
//-*-===//
//
// `kiln check` and `kiln quantize` read the user's inputs the same way: a
// folder of samples, and run each through a loaded library.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_SAMPLES_H
#define KILN_COMPILER_DRIVER_SAMPLES_H

#include "compiler/driver/Profile.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace kiln::driver {

struct Sample {
  std::string name;
  std::vector<std::string> files; // one per model input
};

/// The samples of `dir`, sorted by name: one .npy/.pb file each for a
/// one-input model, else one folder each holding input_<k>.npy/.pb.
bool listSamples(const std::string &dir, int64_t numInputs,
                 std::vector<Sample> &out, std::string &err);

/// Runs the library of `ctx` on `files`; its outputs in `t.outputs`.
bool runSample(kiln_context *ctx, const kiln_model *m,
               const std::vector<std::string> &files, RunTensors &t,
               std::string &err);

/// Compiles `module` in fp32 for this machine (`--cpu native`) into the
/// library `soPath` (no header kept): the reference `kiln check` compares
/// with, and the model `kiln quantize` calibrates. "" or the error; a failed
/// library is removed.
std::string compileForThisMachine(mlir::ModuleOp module,
                                  const std::string &soPath);

/// Loads the library at `path` with one context; 0, or the exit code
/// after printing why.
int openLibrary(const std::string &path, ModelPtr &model, ContextPtr &ctx);

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_SAMPLES_H
