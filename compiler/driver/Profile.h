//===- Profile.h - Per-layer tables and traces of kiln profile -*- C++ -*-===//
//
// Turns the kernel events kiln_rt records for a `--profile` library into a
// per-layer table (ONNX node, op type, fused ops, time, share, GF/s) and a
// Chrome trace (the JSON that chrome://tracing and Perfetto read).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_PROFILE_H
#define KILN_COMPILER_DRIVER_PROFILE_H

#include "compiler/driver/TensorIO.h"

#include "kiln_rt.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::driver {

struct ModelDeleter {
  void operator()(kiln_model *m) const { kiln_model_unload(m); }
};
struct ContextDeleter {
  void operator()(kiln_context *c) const { kiln_context_destroy(c); }
};
using ModelPtr = std::unique_ptr<kiln_model, ModelDeleter>;
using ContextPtr = std::unique_ptr<kiln_context, ContextDeleter>;

/// The tensors of one run and their kiln_rt descriptors.
struct RunTensors {
  std::vector<HostTensor> inputs, outputs;
  std::vector<kiln_tensor> inDesc, outDesc;
};

/// Fills t.inDesc from t.inputs, then t.outputs (shapes inferred by kiln_rt
/// from the inputs, zeroed) and t.outDesc; false, kiln_rt's message in
/// `err`, when the input shapes do not fit the model.
bool describeRunTensors(const kiln_model *m, RunTensors &t, std::string &err);

/// kiln_run on t's descriptions; the outputs sized at run time are copied
/// into t.outputs afterwards. False, kiln_rt's message in `err`, on failure.
bool runModel(kiln_context *ctx, RunTensors &t, std::string &err);

/// A seeded input for a static tensor: floats uniform in [-1, 1), integers
/// and bools 0; false when a dim is symbolic.
bool makeSeededInput(const kiln_tensor_info *info, uint32_t seed,
                     HostTensor &out);

/// One ONNX node: all its kernels' time over all timed runs.
struct LayerTime {
  std::string node, opType, fused;
  double flops = 0;    ///< per run; 0 if unknown
  double ns = 0;       ///< summed over runs
  int64_t kernels = 0; ///< distinct kernels of the node that ran
};

struct ProfileReport {
  std::vector<LayerTime> layers; ///< slowest first
  int64_t runs = 0;
  double runNs = 0;    ///< summed wall time of the runs
  double kernelNs = 0; ///< summed time inside kernels
};

ProfileReport summarizeProfile(const kiln_model *model,
                               const kiln_profile_event *events, int64_t count);
void printProfileTable(const ProfileReport &report, const std::string &library,
                       int threads, int64_t dropped);
/// Writes every event as a complete ("X") event, microseconds from the
/// first run's start; kernels on one track, runs on another.
bool writeChromeTrace(const kiln_model *model, const kiln_profile_event *events,
                      int64_t count, const std::string &path, std::string &err);

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_PROFILE_H
