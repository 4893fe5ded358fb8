//===- RunCommands.cpp - run and inspect compiled model libraries ---------===//
//
// Uses only kiln_rt and the tensor file readers: what a deployment would.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Commands.h"
#include "compiler/driver/TensorIO.h"

#include "kiln_rt.h"

#include <cinttypes>
#include <cstdio>
#include <memory>

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

int runRun(const Args &args) {
  std::string libPath;
  std::vector<std::string> inputs, outputs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if ((a == "--input" || a == "-i" || a == "--output" || a == "-o" ||
         a == "--threads") &&
        i + 1 >= args.size())
      return fail("option '" + a + "' needs a value");
    if (a == "--input" || a == "-i")
      inputs.push_back(args[++i]);
    else if (a == "--output" || a == "-o")
      outputs.push_back(args[++i]);
    else if (a == "--threads")
      kiln_rt_set_num_threads(std::atoi(args[++i].c_str()));
    else if (!a.empty() && a[0] == '-')
      return fail("unknown option '" + a + "' for run");
    else if (libPath.empty())
      libPath = a;
    else
      return fail("more than one model library given");
  }
  if (libPath.empty())
    return fail("usage: kiln run MODEL.so --input FILE... [--output FILE...]");
  kiln_model *raw = nullptr;
  if (kiln_model_load(libPath.c_str(), &raw) != KILN_STATUS_OK)
    return fail(rtError("cannot load " + libPath));
  ModelPtr model(raw);
  int64_t nIn = kiln_model_num_inputs(raw), nOut = kiln_model_num_outputs(raw);
  if ((int64_t)inputs.size() != nIn)
    return fail("model takes " + std::to_string(nIn) + " inputs, " +
                std::to_string(inputs.size()) + " given");
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
      std::printf("output %" PRId64 " '%s': %s, %" PRId64 " elements\n", i,
                  outTensors[i].name.c_str(), dtypeName(outTensors[i].dtype),
                  outTensors[i].numElements());
    }
  }
  return 0;
}

int runInspect(const Args &args) {
  if (args.size() != 1)
    return fail("usage: kiln inspect MODEL.so|MODEL.onnx");
  const std::string &path = args[0];
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
  std::printf("  weights checksum: %016" PRIx64 "\n",
              kiln_model_weights_checksum(raw));
  std::printf("  arena: %" PRIu64 " bytes (alignment %" PRIu64
              ", lower bound %" PRIu64 " bytes of buffers live at once)\n",
              kiln_model_arena_bytes(raw), kiln_model_arena_alignment(raw),
              kiln_model_descriptor(raw)->arena_lower_bound);
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

} // namespace kiln::driver
