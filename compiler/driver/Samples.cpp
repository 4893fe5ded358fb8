//===- Samples.cpp - Folders of model inputs, run through a library -------===//

#include "compiler/driver/Samples.h"
#include "compiler/driver/Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace kiln::driver {

/// The samples of `dir`, sorted by name.
bool listSamples(const std::string &dir, int64_t numInputs,
                 std::vector<Sample> &out, std::string &err) {
  std::error_code ec;
  std::vector<std::string> entries;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    entries.push_back(it->path());
  if (ec) {
    err = "cannot read " + dir + ": " + ec.message();
    return false;
  }
  std::sort(entries.begin(), entries.end());
  auto isTensor = [](llvm::StringRef p) {
    return p.ends_with(".npy") || p.ends_with(".pb");
  };
  for (const std::string &e : entries) {
    Sample s;
    s.name = llvm::sys::path::filename(e).str();
    if (llvm::sys::fs::is_directory(e)) {
      for (int64_t k = 0; k < numInputs; ++k) {
        std::string base = e + "/input_" + std::to_string(k);
        std::string f =
            llvm::sys::fs::exists(base + ".npy") ? base + ".npy" : base + ".pb";
        if (!llvm::sys::fs::exists(f)) {
          err = s.name + ": no input_" + std::to_string(k) + ".npy or .pb";
          return false;
        }
        s.files.push_back(f);
      }
    } else if (isTensor(e) && numInputs == 1) {
      s.files.push_back(e);
    } else {
      continue;
    }
    out.push_back(std::move(s));
  }
  if (out.empty()) {
    err = dir + " holds no samples (" +
          (numInputs == 1 ? std::string(".npy/.pb files or folders")
                          : std::string("folders of input_<k> files")) +
          ")";
    return false;
  }
  return true;
}

/// Runs the library of `ctx` on `files`; its outputs in `t.outputs`.
bool runSample(kiln_context *ctx, const kiln_model *m,
               const std::vector<std::string> &files, RunTensors &t,
               std::string &err) {
  t.inputs.assign(files.size(), HostTensor());
  for (size_t i = 0; i < files.size(); ++i)
    if (!readTensorFile(files[i], t.inputs[i], err))
      return false;
  if (!describeRunTensors(m, t, err))
    return false;
  return runModel(ctx, t, err);
}

std::string compileForThisMachine(mlir::ModuleOp module,
                                  const std::string &soPath) {
  CompileOptions options;
  options.target = "x86_64";
  options.targetOptions.cpu = "native";
  options.outputPath = soPath;
  options.headerPath = soPath + ".h";
  llvm::Error err = compileModelLibrary(module, options);
  llvm::sys::fs::remove(options.headerPath);
  if (!err)
    return "";
  llvm::sys::fs::remove(soPath);
  return llvm::toString(std::move(err));
}

int openLibrary(const std::string &path, ModelPtr &model, ContextPtr &ctx) {
  kiln_model *m = nullptr;
  if (kiln_model_load(path.c_str(), &m) != KILN_STATUS_OK)
    return fail("cannot load " + path + ": " + kiln_last_error());
  model.reset(m);
  kiln_context *c = nullptr;
  if (kiln_context_create(m, &c) != KILN_STATUS_OK)
    return fail(path + ": cannot create a context: " + kiln_last_error());
  ctx.reset(c);
  return 0;
}

} // namespace kiln::driver
