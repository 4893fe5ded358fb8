//===- QuantizeCommand.cpp - kiln quantize --------------------------------===//
//
// `kiln quantize M.onnx --calib DIR -o M.int8.onnx [--method ...]
// [--per-channel]`: INT8 post-training quantization. The fp32 model, with
// the inputs of its Conv/MatMul/Gemm nodes added as outputs, is compiled by
// kiln for this machine and run on every calibration sample; the observed
// ranges pick the activation scales, and the model is written back in ONNX
// QDQ form (compiler/quantization/).
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Commands.h"
#include "compiler/driver/OnnxFiles.h"
#include "compiler/driver/Samples.h"
#include "compiler/driver/TensorIO.h"
#include "compiler/quantization/PostTrainingQuantization.h"

#include "onnx/onnx_pb.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstring>

namespace cl = llvm::cl;

namespace kiln::driver {

static cl::SubCommand
    quantizeSub("quantize",
                "INT8 post-training quantization of an ONNX model (QDQ)");
static cl::opt<std::string> quantizeInput(cl::Positional, cl::Required,
                                          cl::desc("<model.onnx>"),
                                          cl::sub(quantizeSub));
static cl::opt<std::string> calibDir(
    "calib", cl::Required, cl::value_desc("dir"), cl::sub(quantizeSub),
    cl::desc("Calibration samples: one .npy/.pb per sample for a one-input "
             "model, or one folder per sample holding input_<k>.npy/.pb"));
static cl::opt<std::string>
    quantizeOutput("o", cl::value_desc("file"), cl::sub(quantizeSub),
                   cl::desc("Output model (default: <model>.int8.onnx)"));
static cl::opt<std::string> method(
    "method", cl::init("minmax"), cl::value_desc("minmax|percentile|entropy"),
    cl::sub(quantizeSub),
    cl::desc("How activation ranges are picked from the samples: the whole "
             "range, a percentile of |x| (--percentile), or the clipping "
             "that minimizes the KL divergence (default minmax)"));
static cl::opt<double>
    percentile("percentile", cl::init(99.999), cl::value_desc("P"),
               cl::sub(quantizeSub),
               cl::desc("Percentile of |x| kept by --method percentile "
                        "(default 99.999)"));
static cl::opt<bool>
    perChannel("per-channel", cl::sub(quantizeSub),
               cl::desc("One weight scale per output channel (else one per "
                        "weight tensor)"));

/// Compiles `model` (fp32, this machine) into a temporary library beside
/// `near` (so that external weights resolve); its path in `so`.
static int compileCalibrationModel(const onnx::ModelProto &model,
                                   const std::string &near, std::string &so) {
  llvm::SmallString<128> dir(near);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  llvm::SmallString<128> onnxPath, soPath;
  if (auto ec = llvm::sys::fs::createUniqueFile(
          dir + "/.kiln-calibration-%%%%%%.onnx", onnxPath))
    return fail("cannot create a file in " + std::string(dir) + ": " +
                ec.message());
  std::string err = writeOnnxModel(model, std::string(onnxPath));
  if (err.empty()) {
    if (auto ec = llvm::sys::fs::createTemporaryFile("kiln-calibration", "so",
                                                     soPath))
      err = "cannot create a temporary file: " + ec.message();
  }
  if (!err.empty()) {
    llvm::sys::fs::remove(onnxPath);
    return fail(err);
  }
  auto ctx = makeContext();
  auto module = loadModel(*ctx, std::string(onnxPath));
  llvm::sys::fs::remove(onnxPath);
  if (failed(module))
    return 1;
  err = compileForThisMachine(**module, std::string(soPath));
  if (!err.empty())
    return fail(quantizeInput + " (calibration): " + err);
  so = std::string(soPath);
  return 0;
}

static int runQuantize() {
  QuantizeOptions options;
  if (!parseCalibrationMethod(method, options.method))
    return fail("--method: '" + method +
                "' is not one of minmax, percentile, entropy");
  if (!(percentile > 0 && percentile <= 100))
    return fail("--percentile: must be in (0, 100]");
  options.percentile = percentile;
  options.perChannel = perChannel;

  onnx::ModelProto model;
  if (int rc = readOnnxModel(quantizeInput, model))
    return rc;
  std::vector<std::string> tensors = findCalibrationTensors(model);
  if (tensors.empty())
    return fail(quantizeInput + ": no Conv, MatMul or Gemm node with a "
                                "constant float weight to quantize");

  std::string so;
  if (int rc = compileCalibrationModel(addCalibrationOutputs(model, tensors),
                                       quantizeInput, so))
    return rc;
  ModelPtr lib;
  ContextPtr ctx;
  int rc = openLibrary(so, lib, ctx);
  llvm::sys::fs::remove(so);
  if (rc)
    return rc;
  // Which library output observes which activation.
  std::map<std::string, ActivationStats> stats;
  std::vector<ActivationStats *> byOutput;
  for (int64_t i = 0, e = kiln_model_num_outputs(lib.get()); i < e; ++i) {
    const kiln_tensor_info *info = kiln_model_output(lib.get(), i);
    bool observed = info->dtype == KILN_DTYPE_FLOAT32 &&
                    llvm::is_contained(tensors, std::string(info->name));
    byOutput.push_back(observed ? &stats[info->name] : nullptr);
  }
  std::vector<Sample> samples;
  std::string why;
  if (!listSamples(calibDir, kiln_model_num_inputs(lib.get()), samples, why))
    return fail("--calib: " + why);
  bool histograms = options.method != QuantizeOptions::Method::MinMax;
  for (int pass = 0; pass < (histograms ? 2 : 1); ++pass)
    for (const Sample &s : samples) {
      RunTensors run;
      if (!runSample(ctx.get(), lib.get(), s.files, run, why))
        return fail(s.name + ": " + why);
      for (size_t o = 0; o < byOutput.size(); ++o) {
        if (!byOutput[o])
          continue;
        const HostTensor &t = run.outputs[o];
        const float *x = reinterpret_cast<const float *>(t.bytes.data());
        if (pass == 0)
          byOutput[o]->observeRange(x, t.numElements());
        else
          byOutput[o]->observeHistogram(x, t.numElements());
      }
    }

  std::map<std::string, std::pair<double, double>> ranges;
  for (auto &[name, st] : stats)
    if (st.seen())
      ranges[name] = st.range(options);
  std::vector<QuantizedNode> report;
  if (!quantizeModel(model, ranges, options, report, why))
    return fail(quantizeInput + ": " + why);
  std::string out = quantizeOutput.empty()
                        ? derivedModelPath(quantizeInput, ".int8.onnx")
                        : std::string(quantizeOutput);
  std::string err = writeOnnxModel(model, out);
  if (!err.empty())
    return fail(err);

  int64_t quantized = 0;
  std::printf("%-32s %-7s %12s %5s %14s\n", "node", "op", "input scale", "zp",
              "weight scales");
  for (const QuantizedNode &q : report) {
    std::string name = q.node.empty() ? q.activation : q.node;
    if (!q.skipped.empty()) {
      std::printf("%-32s %-7s stays fp32: %s\n", name.c_str(), q.opType.c_str(),
                  q.skipped.c_str());
      continue;
    }
    ++quantized;
    std::printf("%-32s %-7s %12.4g %5lld %14lld\n", name.c_str(),
                q.opType.c_str(), q.scale, (long long)q.zeroPoint,
                (long long)q.weightScales);
  }
  std::printf("quantized %lld of %zu nodes (%s, %s weights) on %zu "
              "calibration sample(s); wrote %s\n",
              (long long)quantized, report.size(), method.c_str(),
              perChannel ? "per-channel" : "per-tensor", samples.size(),
              out.c_str());
  return 0;
}

Command QuantizeCommand{quantizeSub, runQuantize};

} // namespace kiln::driver
