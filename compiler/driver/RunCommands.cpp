//===- RunCommands.cpp - run and inspect compiled model libraries ---------===//
//
// Uses only kiln_rt and the tensor file readers: what a deployment would.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Commands.h"
#include "compiler/driver/Profile.h"
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

static cl::SubCommand runSub("run", "Run a compiled model on .npy/.pb tensors");
static cl::SubCommand
    profileSub("profile", "Time each layer of a model compiled with --profile");
static cl::SubCommand inspectSub("inspect",
                                 "Describe a model library or an ONNX model");

// run
static cl::opt<std::string> runLibrary(cl::Positional, cl::Required,
                                       cl::desc("<model.so>"), cl::sub(runSub));
static cl::list<std::string>
    inputFiles("input", cl::value_desc("[name=]file"), cl::sub(runSub),
               cl::sub(profileSub),
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
    cl::sub(profileSub),
    cl::desc(
        "Threads of kiln_rt's pool (0: $KILN_NUM_THREADS, else one per core)"));

// profile
static cl::opt<std::string> profileLibrary(cl::Positional, cl::Required,
                                           cl::desc("<model.so>"),
                                           cl::sub(profileSub));
static cl::opt<unsigned> profileIters("iters", cl::init(20),
                                      cl::value_desc("N"), cl::sub(profileSub),
                                      cl::desc("Timed runs (default 20)"));
static cl::opt<unsigned>
    profileWarmup("warmup", cl::init(3), cl::value_desc("N"),
                  cl::sub(profileSub),
                  cl::desc("Untimed runs first (default 3)"));
static cl::opt<std::string>
    traceFile("trace", cl::value_desc("file.json"), cl::sub(profileSub),
              cl::desc("Write a Chrome trace (chrome://tracing, Perfetto)"));

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
         : t->dims[d] == KILN_DIM_AT_RUN_TIME
             ? std::string("(run time)")
             : std::string(kiln_model_symbol(m, -t->dims[d] - 1));
  }
  return s + "]";
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

/// Reads the inputs named by --input (or, when none are given, makes
/// seeded ones for a model whose inputs are all static) and allocates the
/// outputs.
static int prepareTensors(const kiln_model *m, RunTensors &t) {
  int64_t nIn = kiln_model_num_inputs(m);
  t.inputs.resize(nIn);
  if (inputFiles.empty() && profileSub) {
    for (int64_t i = 0; i < nIn; ++i)
      if (!makeSeededInput(kiln_model_input(m, i), (uint32_t)i, t.inputs[i]))
        return fail(std::string("input '") + kiln_model_input(m, i)->name +
                    "' has symbolic dims: give it with --input");
  } else {
    std::vector<std::string> files;
    std::string bindError;
    if (!bindInputs(m, files, bindError))
      return fail(bindError);
    for (int64_t i = 0; i < nIn; ++i) {
      std::string err;
      if (!readTensorFile(files[i], t.inputs[i], err))
        return fail(err);
    }
  }
  std::string err;
  if (!describeRunTensors(m, t, err))
    return fail("input shapes do not fit the model: " + err);
  return 0;
}

/// Loads the library at `path` (after setting --threads) and creates one
/// context for it; 0, or the exit code after printing why.
static int openModel(const std::string &path, ModelPtr &model,
                     ContextPtr &ctx) {
  if (threads.getNumOccurrences())
    kiln_rt_set_num_threads((int)threads);
  kiln_model *raw = nullptr;
  if (kiln_model_load(path.c_str(), &raw) != KILN_STATUS_OK)
    return fail(rtError("cannot load " + path));
  model.reset(raw);
  kiln_context *ctxRaw = nullptr;
  if (kiln_context_create(raw, &ctxRaw) != KILN_STATUS_OK)
    return fail(rtError("cannot create a context"));
  ctx.reset(ctxRaw);
  return 0;
}

static int runRun() {
  std::vector<std::string> outputs(outputFiles.begin(), outputFiles.end());
  ModelPtr model;
  ContextPtr ctx;
  if (int rc = openModel(runLibrary, model, ctx))
    return rc;
  int64_t nOut = kiln_model_num_outputs(model.get());
  if ((int64_t)outputs.size() > nOut)
    return fail("model has " + std::to_string(nOut) + " outputs, " +
                std::to_string(outputs.size()) + " output files given");
  RunTensors t;
  if (int rc = prepareTensors(model.get(), t))
    return rc;
  std::string runError;
  if (!runModel(ctx.get(), t, runError))
    return fail("run failed: " + runError);
  for (int64_t i = 0; i < nOut; ++i) {
    if (i < (int64_t)outputs.size()) {
      std::string err;
      if (!writeTensorFile(outputs[i], t.outputs[i], err))
        return fail(err);
    } else {
      printSummary(i, t.outputs[i]);
    }
  }
  return 0;
}

static int runProfile() {
  const std::string &libPath = profileLibrary;
  if (profileIters == 0)
    return fail("--iters: at least 1");
  ModelPtr model;
  ContextPtr ctx;
  if (int rc = openModel(libPath, model, ctx))
    return rc;
  kiln_model *raw = model.get();
  kiln_context *ctxRaw = ctx.get();
  if (kiln_model_num_kernels(raw) == 0)
    return fail(libPath + " was not compiled with --profile: recompile it "
                          "with `kiln compile --profile`");
  RunTensors t;
  if (int rc = prepareTensors(raw, t))
    return rc;
  std::string runError;
  auto runOnce = [&] { return runModel(ctxRaw, t, runError); };
  for (unsigned i = 0; i < profileWarmup; ++i)
    if (!runOnce())
      return fail("run failed: " + runError);
  // Room for each kernel called a few times per run (kernels inside loops
  // run once per iteration); what does not fit is reported as dropped.
  int64_t capacity = (kiln_model_num_kernels(raw) + 1) * 4 * profileIters;
  capacity = std::min<int64_t>(std::max<int64_t>(capacity, 1 << 16), 1 << 22);
  if (kiln_context_set_profiling(ctxRaw, capacity) != KILN_STATUS_OK)
    return fail(rtError("cannot profile"));
  for (unsigned i = 0; i < profileIters; ++i)
    if (!runOnce())
      return fail("run failed: " + runError);
  const kiln_profile_event *events = nullptr;
  int64_t count = 0, dropped = 0;
  kiln_context_profile_events(ctxRaw, &events, &count, &dropped);
  ProfileReport report = summarizeProfile(raw, events, count);
  printProfileTable(report, libPath, kiln_rt_get_num_threads(), dropped);
  if (!traceFile.empty()) {
    std::string err;
    if (!writeChromeTrace(raw, events, count, traceFile, err))
      return fail(err);
    std::printf("trace: %s\n", traceFile.c_str());
  }
  return 0;
}

static int runInspect() {
  const std::string &path = inspectPath;
  if (endsWith(path, ".onnx"))
    return inspectOnnx(path);
  if (kiln_is_bundle(path.c_str())) {
    kiln_bundle *bundle = nullptr;
    if (kiln_bundle_open(path.c_str(), &bundle) != KILN_STATUS_OK)
      return fail(rtError("cannot read " + path));
    int64_t n = kiln_bundle_num_entries(bundle);
    int64_t chosen = kiln_bundle_select(bundle);
    std::string why = chosen < 0 ? kiln_last_error() : "";
    std::printf("bundle %s: %" PRId64 " librar%s\n", path.c_str(), n,
                n == 1 ? "y" : "ies");
    for (int64_t i = 0; i < n; ++i) {
      const kiln_bundle_entry *e = kiln_bundle_entry_at(bundle, i);
      std::printf("  %c %" PRId64 ": %s (%s), cpu %s, %" PRIu64
                  " bytes, features: %s%s%s\n",
                  i == chosen ? '*' : ' ', i, e->target, e->arch, e->cpu,
                  e->size, *e->cpu_features ? e->cpu_features : "-",
                  *e->device ? ", device: " : "", e->device);
    }
    kiln_bundle_close(bundle);
    if (chosen < 0) {
      std::printf("  none runs on this machine: %s\n", why.c_str());
      return 0;
    }
    std::printf("  * loads on this machine\n");
  }
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
  if (desc->device) {
    std::string calls;
    for (int64_t i = 0; i < desc->num_device_calls; ++i)
      calls += std::string(i ? ", " : "") + desc->device_call_names[i];
    std::printf("  device: %s (launcher calls: %s)\n", desc->device,
                calls.empty() ? "none" : calls.c_str());
  }
  std::printf("  weights checksum: %016" PRIx64 "\n",
              kiln_model_weights_checksum(raw));
  if (desc->weights_file)
    std::printf("  weights: external, %s (%" PRIu64 " bytes)\n",
                desc->weights_file, desc->weights_bytes);
  if (kiln_model_num_kernels(raw) > 0)
    std::printf("  profiled kernels: %" PRId64 "\n",
                kiln_model_num_kernels(raw));
  std::printf("  arena: %" PRIu64 " bytes (alignment %" PRIu64
              ", lower bound %" PRIu64 " bytes of buffers live at once)\n",
              kiln_model_arena_bytes(raw), kiln_model_arena_alignment(raw),
              desc->arena_lower_bound);
  if (desc->arena_bytes_for)
    std::printf("  arena grows with the symbolic dims: buffers sized by them "
                "are planned too (kiln_model_arena_bytes_for)\n");
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
Command ProfileCommand{profileSub, runProfile};
Command InspectCommand{inspectSub, runInspect};

} // namespace kiln::driver
