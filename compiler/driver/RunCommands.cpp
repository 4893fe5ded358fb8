//===- RunCommands.cpp - run and inspect compiled model libraries ---------===//
//
// Uses only kiln_rt and the tensor file readers: what a deployment would.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Commands.h"
#include "compiler/driver/TensorIO.h"

#include "kiln_rt.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

namespace cl = llvm::cl;

namespace kiln::driver {

namespace {
struct ModelDeleter {
  void operator()(kiln_model *m) const { kiln_model_unload(m); }
};
struct ContextDeleter {
  void operator()(kiln_context *c) const { kiln_context_destroy(c); }
};
using ModelPtr = std::unique_ptr<kiln_model, ModelDeleter>;
using ContextPtr = std::unique_ptr<kiln_context, ContextDeleter>;
} // namespace

static cl::SubCommand runSub("run", "Run a compiled model on .npy/.pb tensors");
static cl::SubCommand inspectSub("inspect",
                                 "Describe a model library or an ONNX model");

// run
static cl::opt<std::string> runLibrary(cl::Positional, cl::Required,
                                       cl::desc("<model.so>"), cl::sub(runSub));
static cl::list<std::string>
    inputFiles("input", cl::value_desc("[name=]file"), cl::sub(runSub),
               cl::desc("An input tensor (.npy or ONNX .pb), by position "
                        "or bound to a model input by name"));
static cl::alias inputFilesShort("i", cl::aliasopt(inputFiles),
                                 cl::desc("Alias for --input"));
static cl::list<std::string>
    outputFiles("output", cl::value_desc("file"), cl::sub(runSub),
                cl::desc("Write the outputs in order (.npy, else ONNX .pb); "
                         "outputs without a file are summarized"));
static cl::alias outputFilesShort("o", cl::aliasopt(outputFiles),
                                  cl::desc("Alias for --output"));
static cl::opt<unsigned> threads(
    "threads", cl::init(0), cl::value_desc("N"), cl::sub(runSub),
    cl::desc(
        "Threads of kiln_rt's pool (0: $KILN_NUM_THREADS, else one per core)"));

// inspect
static cl::opt<std::string> inspectPath(cl::Positional, cl::Required,
                                        cl::desc("<model.so|model.onnx>"),
                                        cl::sub(inspectSub));

static bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

static std::string rtError(const std::string &what) {
  return what + ": " + kiln_last_error();
}

static std::string formatDims(const kiln_model *m, const kiln_tensor_info *t) {
  std::string s = "[";
  for (int32_t d = 0; d < t->rank; ++d) {
    if (d)
      s += ", ";
    s += t->dims[d] >= 0 ? std::to_string(t->dims[d])
                         : std::string(kiln_model_symbol(m, -t->dims[d] - 1));
  }
  return s + "]";
}

/// Element `i` of `t` as a double, for summaries.
static double elementAsDouble(const HostTensor &t, int64_t i) {
  const uint8_t *p = t.bytes.data() + i * dtypeByteSize(t.dtype);
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.dtype) {
  case KILN_DTYPE_FLOAT32:
    return load(float());
  case KILN_DTYPE_FLOAT64:
    return load(double());
  case KILN_DTYPE_UINT8:
  case KILN_DTYPE_BOOL:
    return load(uint8_t());
  case KILN_DTYPE_INT8:
    return load(int8_t());
  case KILN_DTYPE_UINT16:
    return load(uint16_t());
  case KILN_DTYPE_INT16:
    return load(int16_t());
  case KILN_DTYPE_INT32:
    return load(int32_t());
  case KILN_DTYPE_UINT32:
    return load(uint32_t());
  case KILN_DTYPE_INT64:
    return (double)load(int64_t());
  case KILN_DTYPE_UINT64:
    return (double)load(uint64_t());
  case KILN_DTYPE_BFLOAT16: {
    uint32_t bits = (uint32_t)load(uint16_t()) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case KILN_DTYPE_FLOAT16: {
    uint16_t h = load(uint16_t());
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v = exponent == 0    ? std::ldexp(mantissa, -24)
               : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                : std::ldexp(mantissa | 0x400, exponent - 25);
    return (h & 0x8000) ? -v : v;
  }
  default:
    return NAN;
  }
}

/// One line per output that has no file: name, dtype, shape, min/max/mean
/// and the first values.
static void printSummary(int64_t index, const HostTensor &t) {
  std::string dims;
  for (int64_t d : t.dims)
    dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  std::printf("output %" PRId64 " '%s': %s [%s]", index, t.name.c_str(),
              dtypeName(t.dtype), dims.c_str());
  int64_t n = t.numElements();
  if (n <= 0) {
    std::printf(" (empty)\n");
    return;
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = elementAsDouble(t, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  std::printf("  min %g max %g mean %g\n  values:", lo, hi, sum / n);
  for (int64_t i = 0; i < std::min<int64_t>(n, 8); ++i)
    std::printf(" %g", elementAsDouble(t, i));
  std::printf("%s\n", n > 8 ? " ..." : "");
}

/// Orders `--input` arguments by model input: `name=file` binds by name
/// when `name` is one of the model's inputs, everything else fills the
/// remaining inputs in order.
static bool bindInputs(const kiln_model *m, std::vector<std::string> &files,
                       std::string &err) {
  int64_t n = kiln_model_num_inputs(m);
  std::vector<std::string> bound(n);
  std::vector<bool> isBound(n, false);
  std::vector<std::string> positional;
  for (const std::string &arg : inputFiles) {
    size_t eq = arg.find('=');
    int64_t index = -1;
    if (eq != std::string::npos && !llvm::sys::fs::exists(arg))
      for (int64_t i = 0; i < n; ++i)
        if (arg.compare(0, eq, kiln_model_input(m, i)->name) == 0 &&
            std::strlen(kiln_model_input(m, i)->name) == eq)
          index = i;
    if (index < 0) {
      positional.push_back(arg);
      continue;
    }
    if (isBound[index]) {
      err = "input '" + arg.substr(0, eq) + "' given twice";
      return false;
    }
    bound[index] = arg.substr(eq + 1);
    isBound[index] = true;
  }
  size_t next = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!isBound[i] && next < positional.size()) {
      bound[i] = positional[next++];
      isBound[i] = true;
    }
  int64_t given = inputFiles.size();
  if (next < positional.size() || llvm::is_contained(isBound, false)) {
    std::string names;
    for (int64_t i = 0; i < n; ++i)
      names += std::string(i ? ", " : "") + kiln_model_input(m, i)->name;
    err = "model takes " + std::to_string(n) + " inputs (" + names + "), " +
          std::to_string(given) + " given";
    return false;
  }
  files = std::move(bound);
  return true;
}

static int runRun() {
  const std::string &libPath = runLibrary;
  if (threads.getNumOccurrences())
    kiln_rt_set_num_threads((int)threads);
  std::vector<std::string> outputs(outputFiles.begin(), outputFiles.end());
  kiln_model *raw = nullptr;
  if (kiln_model_load(libPath.c_str(), &raw) != KILN_STATUS_OK)
    return fail(rtError("cannot load " + libPath));
  ModelPtr model(raw);
  int64_t nIn = kiln_model_num_inputs(raw), nOut = kiln_model_num_outputs(raw);
  std::vector<std::string> inputs;
  std::string bindError;
  if (!bindInputs(raw, inputs, bindError))
    return fail(bindError);
  if ((int64_t)outputs.size() > nOut)
    return fail("model has " + std::to_string(nOut) + " outputs, " +
                std::to_string(outputs.size()) + " output files given");

  std::vector<HostTensor> inTensors(nIn);
  std::vector<kiln_tensor> inDesc(nIn);
  for (int64_t i = 0; i < nIn; ++i) {
    std::string err;
    if (!readTensorFile(inputs[i], inTensors[i], err))
      return fail(err);
    HostTensor &t = inTensors[i];
    inDesc[i] = kiln_tensor{t.dtype, (int32_t)t.dims.size(), t.dims.data(),
                            t.bytes.data(), t.bytes.size()};
  }
  std::vector<HostTensor> outTensors(nOut);
  std::vector<kiln_tensor> outDesc(nOut);
  for (int64_t i = 0; i < nOut; ++i) {
    const kiln_tensor_info *info = kiln_model_output(raw, i);
    HostTensor &t = outTensors[i];
    t.dtype = info->dtype;
    t.name = info->name;
    t.dims.resize(info->rank);
    if (kiln_infer_output_dims(raw, inDesc.data(), nIn, i, t.dims.data()) !=
        KILN_STATUS_OK)
      return fail(rtError("input shapes do not fit the model"));
    t.bytes.assign(t.numElements() * dtypeByteSize(t.dtype), 0);
    outDesc[i] = kiln_tensor{t.dtype, (int32_t)t.dims.size(), t.dims.data(),
                             t.bytes.data(), t.bytes.size()};
  }
  kiln_context *ctxRaw = nullptr;
  if (kiln_context_create(raw, &ctxRaw) != KILN_STATUS_OK)
    return fail(rtError("cannot create a context"));
  ContextPtr ctx(ctxRaw);
  if (kiln_run(ctxRaw, inDesc.data(), nIn, outDesc.data(), nOut) !=
      KILN_STATUS_OK)
    return fail(rtError("run failed"));
  for (int64_t i = 0; i < nOut; ++i) {
    if (i < (int64_t)outputs.size()) {
      std::string err;
      if (!writeTensorFile(outputs[i], outTensors[i], err))
        return fail(err);
    } else {
      printSummary(i, outTensors[i]);
    }
  }
  return 0;
}

static int runInspect() {
  const std::string &path = inspectPath;
  if (endsWith(path, ".onnx"))
    return inspectOnnx(path);
  kiln_model *raw = nullptr;
  if (kiln_model_load(path.c_str(), &raw) != KILN_STATUS_OK)
    return fail(rtError("cannot load " + path));
  ModelPtr model(raw);
  std::printf("model library %s\n", path.c_str());
  std::printf("  name: %s\n  target: %s\n  compiled by kiln %s\n",
              kiln_model_name(raw), kiln_model_target(raw),
              kiln_model_kiln_version(raw));
  const kiln_model_desc *desc = kiln_model_descriptor(raw);
  std::printf("  cpu: %s\n  cpu features: %s\n", desc->cpu ? desc->cpu : "-",
              desc->cpu_features && *desc->cpu_features ? desc->cpu_features
                                                        : "-");
  std::printf("  weights checksum: %016" PRIx64 "\n",
              kiln_model_weights_checksum(raw));
  std::printf("  arena: %" PRIu64 " bytes (alignment %" PRIu64
              ", lower bound %" PRIu64 " bytes of buffers live at once)\n",
              kiln_model_arena_bytes(raw), kiln_model_arena_alignment(raw),
              desc->arena_lower_bound);
  for (int64_t i = 0; i < kiln_model_num_inputs(raw); ++i) {
    const kiln_tensor_info *t = kiln_model_input(raw, i);
    std::printf("  input %" PRId64 ": %s %s %s\n", i, t->name,
                dtypeName(t->dtype), formatDims(raw, t).c_str());
  }
  for (int64_t i = 0; i < kiln_model_num_outputs(raw); ++i) {
    const kiln_tensor_info *t = kiln_model_output(raw, i);
    std::printf("  output %" PRId64 ": %s %s %s\n", i, t->name,
                dtypeName(t->dtype), formatDims(raw, t).c_str());
  }
  return 0;
}

Command RunCommand{runSub, runRun};
Command InspectCommand{inspectSub, runInspect};

} // namespace kiln::driver
