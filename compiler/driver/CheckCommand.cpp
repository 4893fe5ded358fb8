//===- CheckCommand.cpp - kiln check --------------------------------------===//
//
// `kiln check M.onnx M.so --inputs DIR [--json report.json]`: how far a
// compiled library (reduced precision, pruned weights, another target) is
// from the fp32 model, on the user's inputs. The reference is the model
// compiled by kiln for this machine in fp32; each sample runs through both,
// and every output is compared: max absolute and relative error, and for
// float outputs with more than one class along the last axis, how often the
// top-1 index agrees.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Commands.h"
#include "compiler/driver/Profile.h"
#include "compiler/driver/Samples.h"
#include "compiler/driver/TensorIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cl = llvm::cl;

namespace kiln::driver {

static cl::SubCommand
    checkSub("check", "Compare a compiled model with the fp32 model on inputs");
static cl::opt<std::string> checkModel(cl::Positional, cl::Required,
                                       cl::desc("<model.onnx>"),
                                       cl::sub(checkSub));
static cl::opt<std::string> checkLibrary(cl::Positional, cl::Required,
                                         cl::desc("<model.so|model.kiln>"),
                                         cl::sub(checkSub));
static cl::opt<std::string> checkInputs(
    "inputs", cl::Required, cl::value_desc("dir"), cl::sub(checkSub),
    cl::desc("Samples: one .npy/.pb per sample for a one-input model, or "
             "one folder per sample holding input_<k>.npy/.pb"));
static cl::opt<std::string> checkJson("json", cl::value_desc("file"),
                                      cl::sub(checkSub),
                                      cl::desc("Also write the report here"));

namespace {
struct OutputStats {
  std::string name;
  double maxAbs = 0, maxRel = 0, refMax = 0;
  int64_t rows = 0, top1 = 0;
  bool classes = false;
};
} // namespace

static int runCheck() {
  // The reference: the model in fp32 for this machine.
  llvm::SmallString<128> refPath;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("kiln-check-ref", "so", refPath))
    return fail("cannot create a temporary file: " + ec.message());
  auto ctx = makeContext();
  auto module = loadModel(*ctx, checkModel);
  if (failed(module))
    return 1;
  std::string err = compileForThisMachine(**module, std::string(refPath));
  if (!err.empty())
    return fail(checkModel + " (fp32 reference): " + err);
  ModelPtr ref, lib;
  ContextPtr refCtx, libCtx;
  int rc = openLibrary(std::string(refPath), ref, refCtx);
  llvm::sys::fs::remove(refPath);
  if (rc || (rc = openLibrary(checkLibrary, lib, libCtx)))
    return rc;
  int64_t nIn = kiln_model_num_inputs(ref.get());
  int64_t nOut = kiln_model_num_outputs(ref.get());
  if (kiln_model_num_inputs(lib.get()) != nIn ||
      kiln_model_num_outputs(lib.get()) != nOut)
    return fail(checkLibrary + " does not have " + checkModel +
                "'s inputs and outputs");
  std::vector<Sample> samples;
  std::string why;
  if (!listSamples(checkInputs, nIn, samples, why))
    return fail("--inputs: " + why);

  std::vector<OutputStats> stats(nOut);
  for (const Sample &s : samples) {
    RunTensors refRun, libRun;
    if (!runSample(refCtx.get(), ref.get(), s.files, refRun, why) ||
        !runSample(libCtx.get(), lib.get(), s.files, libRun, why))
      return fail(s.name + ": " + why);
    const std::vector<HostTensor> &want = refRun.outputs, &got = libRun.outputs;
    for (int64_t o = 0; o < nOut; ++o) {
      OutputStats &st = stats[o];
      st.name = want[o].name;
      if (want[o].dims != got[o].dims || want[o].dtype != got[o].dtype)
        return fail(s.name + ": output '" + st.name +
                    "' differs in shape or type from the reference's");
      int64_t n = want[o].numElements();
      for (int64_t i = 0; i < n; ++i) {
        double a = elementAsDouble(got[o], i), b = elementAsDouble(want[o], i);
        st.maxAbs = std::max(st.maxAbs, std::fabs(a - b));
        st.refMax = std::max(st.refMax, std::fabs(b));
      }
      st.maxRel = st.refMax > 0 ? st.maxAbs / st.refMax : st.maxAbs;
      // Top-1 along the last axis, per row.
      bool isFloat = want[o].dtype == KILN_DTYPE_FLOAT32 ||
                     want[o].dtype == KILN_DTYPE_FLOAT64;
      int64_t classes = want[o].dims.empty() ? 1 : want[o].dims.back();
      if (isFloat && classes > 1 && n > 0) {
        st.classes = true;
        for (int64_t r = 0; r < n / classes; ++r) {
          int64_t wa = 0, ga = 0;
          for (int64_t c = 1; c < classes; ++c) {
            if (elementAsDouble(want[o], r * classes + c) >
                elementAsDouble(want[o], r * classes + wa))
              wa = c;
            if (elementAsDouble(got[o], r * classes + c) >
                elementAsDouble(got[o], r * classes + ga))
              ga = c;
          }
          ++st.rows;
          st.top1 += wa == ga;
        }
      }
    }
  }

  std::printf("%s vs fp32 %s on %zu sample(s) of %s\n", checkLibrary.c_str(),
              checkModel.c_str(), samples.size(), checkInputs.c_str());
  std::printf("%-24s %12s %12s %16s\n", "output", "max abs err", "max rel err",
              "top-1 agreement");
  llvm::json::Array outputs;
  for (const OutputStats &st : stats) {
    std::string top1 =
        st.classes ? std::to_string(st.top1) + "/" + std::to_string(st.rows)
                   : "-";
    std::printf("%-24s %12.3g %12.3g %16s\n", st.name.c_str(), st.maxAbs,
                st.maxRel, top1.c_str());
    llvm::json::Object o{{"name", st.name},
                         {"max_abs_error", st.maxAbs},
                         {"max_rel_error", st.maxRel}};
    if (st.classes) {
      o["top1_agree"] = st.top1;
      o["top1_rows"] = st.rows;
    }
    outputs.push_back(std::move(o));
  }
  if (!checkJson.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(checkJson, ec);
    if (ec)
      return fail("cannot write " + checkJson + ": " + ec.message());
    os << llvm::formatv("{0:2}\n",
                        llvm::json::Value(llvm::json::Object{
                            {"model", std::string(checkModel)},
                            {"library", std::string(checkLibrary)},
                            {"samples", (int64_t)samples.size()},
                            {"reference", "kiln x86_64 fp32, --cpu native"},
                            {"outputs", std::move(outputs)}}));
  }
  return 0;
}

Command CheckCommand{checkSub, runCheck};

} // namespace kiln::driver
